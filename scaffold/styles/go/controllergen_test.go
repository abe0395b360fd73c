//go:build generated

package golang_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// buildControllerGen installs the pinned controller-gen from the Go module
// proxy into the repository's cache directory (.cache/, git-ignored), once.
// The repository is found by its go.mod, wherever the test runs.
func buildControllerGen(t *testing.T) string {
	t.Helper()
	return tools.GoInstall(t, "sigs.k8s.io/controller-tools/cmd/controller-gen", pins.DefaultVersions().ControllerTools)
}

// assertControllerGenAgrees runs controller-gen on api/ and compares each
// CRD with opctl's, ignoring descriptions (Go doc comments) and
// controller-gen's version annotation.
func assertControllerGenAgrees(t *testing.T, dir, controllerGen string) {
	t.Helper()
	out := t.TempDir()
	// number fields are float64, which controller-gen takes when allowed.
	tools.ExecIn(t, dir, controllerGen, "crd:allowDangerousTypes=true", "paths=./api/...", "output:crd:dir="+out)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for _, a := range p.APIs {
		path := render.CRDPath(p, a)
		ours := loadCRD(t, filepath.Join(dir, path))
		theirs := loadCRD(t, filepath.Join(out, filepath.Base(path)))
		assert.Equal(t, theirs, ours, "controller-gen's schema for %s differs from opctl's", a.Kind)
	}
	// The RBAC markers say what config/rbac/role.yaml says, but for the
	// metrics endpoint's reviews (cmd/main.go's filter, which has no
	// marker): the same ClusterRole, and the same Role in each namespace.
	tools.ExecIn(t, dir, controllerGen, "rbac:roleName=manager-role", "paths=./internal/...", "output:rbac:dir="+out)
	theirs := grants(t, filepath.Join(out, "role.yaml"), "")
	theirs["ClusterRole  authentication.k8s.io tokenreviews create"] = true
	theirs["ClusterRole  authorization.k8s.io subjectaccessreviews create"] = true
	assert.Equal(t, theirs, grants(t, filepath.Join(dir, "config/rbac/role.yaml"), p.Namespace()),
		"controller-gen's roles from the RBAC markers differ from opctl's")
	if !p.Webhooks() {
		return
	}
	// The webhook markers say what config/webhook/manifests.yaml says.
	tools.ExecIn(t, dir, controllerGen, "webhook", "paths=./internal/webhook/...", "output:webhook:dir="+out)
	assert.Equal(t, webhookConfigurations(t, filepath.Join(out, "manifests.yaml")),
		webhookConfigurations(t, filepath.Join(dir, render.WebhookManifestsPath)),
		"controller-gen's webhook configurations differ from opctl's")
}

// grants are the (cluster) roles' rules in the file at path, one
// "kind namespace group resource verb" each, whichever way rules group them;
// a Role without a namespace is in own (kustomize puts it there).
func grants(t *testing.T, path, own string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, o := range styletest.DecodeObjects(t, b) {
		if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
			continue
		}
		var role rbacv1.ClusterRole
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role))
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						ns := o.GetNamespace()
						if ns == "" && o.GetKind() == "Role" {
							ns = own
						}
						out[strings.Join([]string{o.GetKind(), ns, g, res, v}, " ")] = true
					}
				}
			}
		}
	}
	return out
}

// webhookConfigurations maps each webhook configuration's kind to its
// webhooks, without the Service's namespace (controller-gen writes
// "system", for kustomize to replace).
func webhookConfigurations(t *testing.T, path string) map[string]any {
	t.Helper()
	out := map[string]any{}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, o := range styletest.DecodeObjects(t, b) {
		webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		for _, w := range webhooks {
			unstructured.RemoveNestedField(w.(map[string]any), "clientConfig", "service", "namespace")
		}
		out[o.GetKind()] = webhooks
	}
	return out
}

func loadCRD(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m))
	delete(m["metadata"].(map[string]any), "annotations")
	// controller-gen leaves the conversion webhook to the project's
	// kustomize patches (kubebuilder's config/crd/patches) and lists the
	// versions by name; opctl writes it and lists the newest first.
	spec := m["spec"].(map[string]any)
	delete(spec, "conversion")
	versions := spec["versions"].([]any)
	slices.SortFunc(versions, func(a, b any) int {
		return strings.Compare(a.(map[string]any)["name"].(string), b.(map[string]any)["name"].(string))
	})
	return withoutDescriptions(m).(map[string]any)
}

func withoutDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range t {
			if k != "description" {
				out[k] = withoutDescriptions(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = withoutDescriptions(val)
		}
		return out
	}
	return v
}
