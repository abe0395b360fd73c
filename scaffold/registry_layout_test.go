package scaffold_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/scaffold/styles"
)

// TestEveryStyleHasItsTests: the tests that run a style's generated project
// for real sit in its folder, scaffold/styles/<name>/, so a registered
// style without them would go untested with no test failing.
func TestEveryStyleHasItsTests(t *testing.T) {
	tests := map[string]string{
		"project_test.go": "TestGeneratedProject", // its own make test
		"e2e_test.go":     "TestE2E",              // make test-e2e, with an imitation of its runtime
		"runtime_test.go": "TestRuntime",          // make test-runtimes, in its real runtime
	}
	for _, style := range styles.All() {
		for file, test := range tests {
			path := filepath.Join("styles", style.Name, file)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if assert.NoError(t, err, "style %s needs %s with %s", style.Name, file, test) {
				assert.True(t, declares(f, test), "%s does not declare %s", path, test)
			}
		}
	}
}

// declares reports whether f declares the function name.
func declares(f *ast.File, name string) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			return true
		}
	}
	return false
}
