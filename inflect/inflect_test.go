package inflect

import (
	"strings"
	"testing"

	"github.com/gobuffalo/flect"
	"github.com/stretchr/testify/assert"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestMatchesFlect holds Pluralize and Singularize to flect's on every
// word of its tables, words ending in each of its suffixes, acronyms,
// compounds of them, every built-in Kubernetes kind, and odd input.
func TestMatchesFlect(t *testing.T) {
	var words []string
	for _, w := range dictionary {
		words = append(words, w.singular, w.plural, w.alternative)
	}
	for _, s := range suffixes {
		words = append(words, s.singular, s.plural, "x"+s.singular, "x"+s.plural, "Lab"+s.singular)
	}
	for a := range acronyms {
		words = append(words, a, strings.ToLower(a), a+"Route", "My"+a, "my"+a+"s")
	}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		words = append(words, gvk.Kind, strings.ToLower(gvk.Kind))
	}
	words = append(words, "", " ", "s", "a", "Database", "Policy", "Status", "ID", "Id", "ids", "IDs", "dataSet", "data_set",
		"foo bar", "foo/bars", "one-two", "日本", "Ñandú", "ÉCOLE", "HTTPProxy", "MySQLCluster", "backup:target", "x\xffy", "Person1", "a`b")
	for _, w := range words {
		for _, v := range []string{w, strings.ToUpper(w), capitalize(w), "Big" + capitalize(w), "big_" + w} {
			assert.Equal(t, flect.Pluralize(v), Pluralize(v), "Pluralize(%q)", v)
			assert.Equal(t, flect.Singularize(v), Singularize(v), "Singularize(%q)", v)
		}
	}
}
