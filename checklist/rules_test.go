package checklist

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every rule names a question and an option that exist, and every option
// has a rule, so the table has no dead rows and no answer goes unexplained.
func TestRulesMatchQuestions(t *testing.T) {
	options := map[string]bool{}
	for _, q := range Questions() {
		for _, o := range q.Options {
			options[q.ID+"="+o.Value] = true
		}
	}
	for _, r := range rules {
		assert.True(t, options[r.question+"="+r.answer], "rule for %s=%s", r.question, r.answer)
	}
	for key := range options {
		found := false
		for _, r := range rules {
			found = found || r.question+"="+r.answer == key
		}
		assert.True(t, found, "answer %s has no rule", key)
	}
}
