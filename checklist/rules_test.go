package checklist

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every rule names a question and an option that exist, and every option
// has a general reason (a rule's, or a language's), so the table has no
// dead rows and no answer goes unexplained.
func TestRulesMatchQuestions(t *testing.T) {
	profiles := []Profile{{Style: "a", Languages: []Language{{"go", "Go", "a Go team"}}}}
	options := map[string]bool{}
	for _, q := range Questions(profiles) {
		for _, o := range q.Options {
			options[q.ID+"="+o.Value] = true
		}
	}
	for _, r := range rules {
		assert.True(t, options[r.question+"="+r.answer], "rule for %s=%s", r.question, r.answer)
	}
	for key := range options {
		question, answer, _ := strings.Cut(key, "=")
		assert.NotEmpty(t, generalReason(profiles, question, answer), "answer %s has no reason", key)
	}
}
