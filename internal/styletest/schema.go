//go:build e2e

package styletest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/render"
)

// projectCase is a conformance case of a project, its file's path under
// test/conformance, and its object as a client creates it in a namespace.
type projectCase struct {
	render.ConformanceCase
	name   string
	object *unstructured.Unstructured
}

// projectCases are the conformance cases of the project in dir, with
// olderVersions those of the older versions of its kinds too
// (test/conformance/KIND/VERSION), their objects in namespace ns (when
// namespaced) without the uid and generation the API server sets.
func projectCases(t *testing.T, dir, ns string, olderVersions bool) []projectCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, render.ConformanceDir, "*", "*.yaml"))
	require.NoError(t, err)
	if olderVersions {
		older, err := filepath.Glob(filepath.Join(dir, render.ConformanceDir, "*", "*", "*.yaml"))
		require.NoError(t, err)
		files = append(files, older...)
	}
	require.NotEmpty(t, files, "the project has no conformance cases")
	var out []projectCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var tc render.ConformanceCase
		require.NoError(t, yaml.UnmarshalStrict(b, &tc), f)
		name, err := filepath.Rel(filepath.Join(dir, render.ConformanceDir), f)
		require.NoError(t, err)
		obj := &unstructured.Unstructured{Object: tc.Object}
		obj.SetUID("")
		obj.SetGeneration(0)
		if obj.GetNamespace() != "" {
			obj.SetNamespace(ns)
		}
		out = append(out, projectCase{tc, filepath.ToSlash(name), obj})
	}
	return out
}

// conformanceCasesFailing creates the object of each conformance case of
// the project in dir in namespace ns, as a dry run: a case that says
// rejected must be rejected with its message, any other must be stored as
// the case gives it (its defaults filled in). It returns the cases the API
// server disagrees with, one line each.
func conformanceCasesFailing(ctx context.Context, t *testing.T, c client.Client, dir, ns string) []string {
	t.Helper()
	var failures []string
	for _, pc := range projectCases(t, dir, ns, true) {
		tc, name, obj := pc.ConformanceCase, pc.name, pc.object
		obj.SetName("conformance-" + obj.GetName()) // beside the resources of other checks
		want, _ := json.Marshal(obj.Object["spec"])
		err := c.Create(ctx, obj, client.DryRunAll)
		got, _ := json.Marshal(obj.Object["spec"])
		switch {
		case tc.Rejected == "" && err != nil:
			failures = append(failures, fmt.Sprintf("%s: rejected: %v", name, err))
		case tc.Rejected == "" && string(got) != string(want):
			failures = append(failures, fmt.Sprintf("%s: spec stored as %s, the case gives %s", name, got, want))
		case tc.Rejected != "" && err == nil:
			failures = append(failures, name+": accepted")
		case tc.Rejected != "" && !strings.Contains(err.Error(), tc.Rejected):
			failures = append(failures, fmt.Sprintf("%s: rejected with %q, want %q", name, err, tc.Rejected))
		}
	}
	return failures
}
