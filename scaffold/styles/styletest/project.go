package styletest

import (
	"strings"
	"testing"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles/styletest/seed"
)

// Seed writes the seed example (package seed) in style into a new
// directory and returns it.
func Seed(t *testing.T, style scaffold.Style) string {
	t.Helper()
	dir := t.TempDir()
	MustRun(t, dir, seed.Init(style.Name)...)
	MustRun(t, dir, seed.Create()...)
	return dir
}

// AddCache adds the project tests' second kind to the project in dir:
// Cache in group cache, version v1alpha1, with fields (--field specs),
// owning every child kind.
func AddCache(t *testing.T, dir string, fields ...string) {
	t.Helper()
	args := []string{"create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache"}
	for _, f := range fields {
		args = append(args, "--field", f)
	}
	MustRun(t, dir, append(args, "--owns", strings.Join(scaffold.ChildKindNames(), ","))...)
}

// CacheFields are Cache's fields in the styles that flatten the spec into
// the children: a number, a list and a nested field with a default, then
// extra.
func CacheFields(extra ...string) []string {
	return append([]string{"size:int64", "tags:[]string", "backup.schedule:string:default=@daily"}, extra...)
}
