package shelloperator

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/scaffold/api"
)

func TestJQPaths(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"engine"}, ".spec.engine"},
		{[]string{"backup", "schedule"}, ".spec.backup.schedule"},
		{[]string{"if"}, `.spec["if"]`}, // a jq keyword cannot follow a dot
		{[]string{"backup", "then"}, `.spec.backup["then"]`},
	} {
		assert.Equal(t, tc.want, jqPath(tc.path), "%v", tc.path)
	}
	assert.Equal(t, ".engine", jqGet("engine"))
	assert.Equal(t, `.["not"]`, jqGet("not"), "after a pipe, a keyword's key needs its dot")
}

// A rename reaches the field in every object holding it: through nested
// objects and each object of a list on the way.
func TestJQRename(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"engine", "flavor", `(.spec | objects) |= rename("engine"; "flavor")`},
		{"backup.schedule", "backup.cron", `(.spec | objects | .backup | objects) |= rename("schedule"; "cron")`},
		{"users[].name", "users[].login", `(.spec | objects | .users | arrays | .[] | objects) |= rename("name"; "login")`},
		{"if.then", "if.else", `(.spec | objects | .["if"] | objects) |= rename("then"; "else")`},
	} {
		assert.Equal(t, tc.want, jqRename(tc.from, tc.to), tc.from)
	}
}

// Hooks run in the order of their names: each kind's hook in the order
// of the kinds, ten apart so that a team's own hooks fit between.
func TestHookName(t *testing.T) {
	assert.Equal(t, "10-databases", HookName(0, api.API{Plural: "databases"}))
	assert.Equal(t, "20-caches", HookName(1, api.API{Plural: "caches"}))
	assert.Equal(t, "databases-configmaps", childBinding(api.API{Plural: "databases"}, api.ChildKind{Resource: "configmaps"}))
}
