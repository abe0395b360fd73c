//go:build e2e

package styletest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/styles"
)

// ReadObjects parses a multi-document YAML file.
func ReadObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		var m map[string]any
		require.NoError(t, yaml.Unmarshal(doc, &m), path)
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out
}

// manifestObjects are the RBAC and manager objects (not the Namespace),
// named as kustomize names them, in namespace ns but those that name their
// own (a watch's Role), as config/'s NamespaceTransformer leaves them.
func manifestObjects(t *testing.T, dir, prefix, ns string) []*unstructured.Unstructured {
	var objs []*unstructured.Unstructured
	files, err := filepath.Glob(filepath.Join(dir, "config/rbac/*.yaml"))
	require.NoError(t, err)
	manager, err := filepath.Glob(filepath.Join(dir, "config/manager/*.yaml"))
	require.NoError(t, err)
	files = append(files, manager...)
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		for _, o := range ReadObjects(t, f) {
			if o.GetKind() == "Namespace" {
				continue
			}
			o.SetName(prefix + o.GetName())
			if !strings.HasPrefix(o.GetKind(), "Cluster") && o.GetNamespace() == "" {
				o.SetNamespace(ns)
			}
			if ref, ok, _ := unstructured.NestedString(o.Object, "roleRef", "name"); ok {
				require.NoError(t, unstructured.SetNestedField(o.Object, prefix+ref, "roleRef", "name"))
			}
			if subjects, ok, _ := unstructured.NestedSlice(o.Object, "subjects"); ok {
				for _, s := range subjects {
					s.(map[string]any)["name"] = prefix + s.(map[string]any)["name"].(string)
					s.(map[string]any)["namespace"] = ns
				}
				require.NoError(t, unstructured.SetNestedSlice(o.Object, subjects, "subjects"))
			}
			if sa, ok, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName"); ok {
				require.NoError(t, unstructured.SetNestedField(o.Object, prefix+sa, "spec", "template", "spec", "serviceAccountName"))
			}
			objs = append(objs, o)
		}
	}
	return objs
}

// warningCollector records the warnings the API server sends.
type warningCollector struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningCollector) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// dryRun creates objs in namespace ns (the namespaced ones) with a dry run
// and returns the API server's warnings; each must be accepted.
func (c *Cluster) dryRun(t *testing.T, ns string, objs ...*unstructured.Unstructured) []string {
	collector := &warningCollector{}
	wcfg := rest.CopyConfig(c.Config)
	wcfg.WarningHandler = collector
	wc, err := client.New(wcfg, client.Options{})
	require.NoError(t, err)
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetNamespace() != "" {
			o.SetNamespace(ns)
		}
		require.NoError(t, wc.Create(context.Background(), o, client.DryRunAll), "%s %s must be accepted", o.GetKind(), o.GetName())
	}
	return collector.warnings
}

// DryRunManifests dry-runs the project's RBAC and manager manifests in
// namespace ns and returns the API server's warnings (Pod Security's among
// them).
func (c *Cluster) DryRunManifests(t *testing.T, dir, ns string) []string {
	objs := manifestObjects(t, dir, "", ns)
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o.GetKind()] = true
	}
	for _, k := range []string{"ServiceAccount", "Deployment"} {
		assert.True(t, kinds[k], "no %s among the manifests", k)
	}
	if _, err := os.Stat(filepath.Join(dir, "config/rbac/role.yaml")); err == nil {
		assert.True(t, kinds["ClusterRoleBinding"] || kinds["RoleBinding"], "no binding of the operator's roles among the manifests")
	}
	return c.dryRun(t, ns, objs...)
}

// DryRunChart renders the project's Helm chart as `helm install` would in
// namespace ns and dry-runs its objects (dryRunServed); it returns the API
// server's warnings.
func (c *Cluster) DryRunChart(t *testing.T, dir, ns string, values map[string]any) []string {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	return c.dryRunServed(t, ns, "the chart", RenderChart(t, dir, p.Name, ns, values))
}

// DryRunDeploy runs the project's make deploy with IMG=img and a kubectl
// that hands the test what `kubectl apply` is given instead of applying
// it, dry-runs those objects in namespace ns as DryRunInstaller does, and
// returns the API server's warnings and the images of their Deployments'
// containers.
func (c *Cluster) DryRunDeploy(t *testing.T, dir, ns, img string) (warnings, images []string) {
	tools.RequireTools(t, "make and kubectl, whose kustomize builds config/", "make", "kubectl")
	bin := t.TempDir()
	applied, kubectl := filepath.Join(bin, "applied.yaml"), filepath.Join(bin, "kubectl")
	script := "#!/bin/sh\nif [ \"$1\" = apply ]; then cat >'" + applied + "'; else exec kubectl \"$@\"; fi\n"
	require.NoError(t, os.WriteFile(kubectl, []byte(script), 0o755))
	tools.ExecIn(t, dir, "make", "deploy", "IMG="+img, "KUBECTL="+kubectl)
	data, err := os.ReadFile(applied)
	require.NoError(t, err, "make deploy applied nothing")
	var objs []*unstructured.Unstructured
	for _, o := range DecodeObjects(t, data) {
		if o.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			for _, ctr := range containers {
				images = append(images, fmt.Sprint(ctr.(map[string]any)["image"]))
			}
		}
		if o.GetKind() != "Namespace" { // ns stands for it
			objs = append(objs, o)
		}
	}
	return c.dryRunServed(t, ns, "make deploy", objs), images
}

// DryRunInstaller writes dist/install.yaml with the project's make
// build-installer and dry-runs its objects in namespace ns, as
// DryRunChart does the chart's; it returns the API server's warnings.
func (c *Cluster) DryRunInstaller(t *testing.T, dir, ns string) []string {
	tools.RequireTools(t, "make and kubectl, whose kustomize builds config/", "make", "kubectl")
	tools.ExecIn(t, dir, "make", "build-installer")
	data, err := os.ReadFile(filepath.Join(dir, "dist/install.yaml"))
	require.NoError(t, err)
	var objs []*unstructured.Unstructured
	for _, o := range DecodeObjects(t, data) {
		if o.GetKind() != "Namespace" { // ns stands for it
			objs = append(objs, o)
		}
	}
	return c.dryRunServed(t, ns, "dist/install.yaml", objs)
}

// dryRunServed dry-runs objs in namespace ns but the CRDs (installed
// already) and the objects of kinds this API server does not serve
// (Metacontroller's controllers, whose CRDs come with Metacontroller; the
// Helm test proves them equal to config/'s, and make test-runtimes applies
// them); it returns the API server's warnings.
func (c *Cluster) dryRunServed(t *testing.T, ns, what string, objs []*unstructured.Unstructured) []string {
	var served []*unstructured.Unstructured
	kinds := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			continue
		}
		if _, err := c.Client.RESTMapper().RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version); meta.IsNoMatchError(err) {
			t.Logf("%s %s: no such kind on this API server, not dry-run", o.GetKind(), o.GetName())
			continue
		}
		served = append(served, o)
		kinds[o.GetKind()] = true
	}
	for _, k := range []string{"ServiceAccount", "Deployment"} {
		assert.True(t, kinds[k], "no %s in %s", k, what)
	}
	return c.dryRun(t, ns, served...)
}

// prometheusOperatorAPIs is the version of the Prometheus Operator's API
// types that the ServiceMonitor CRD of the metrics check is generated from,
// with controller-gen, as the Prometheus Operator generates its own.
const prometheusOperatorAPIs = "v0.95.2"

// InstallServiceMonitorCRD installs the Prometheus Operator's
// ServiceMonitor CRD, generated from its Go types at
// prometheusOperatorAPIs (from the Go module proxy).
func (c *Cluster) InstallServiceMonitorCRD(t *testing.T) {
	t.Helper()
	controllerGen := tools.GoInstall(t, "sigs.k8s.io/controller-tools/cmd/controller-gen", pins.DefaultVersions().ControllerTools)
	mod := t.TempDir()
	const pkg = "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring"
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module servicemonitorcrd\n\ngo 1.24\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "types.go"), []byte("package servicemonitorcrd\n\nimport _ \""+pkg+"/v1\"\n"), 0o644))
	tools.ExecIn(t, mod, "go", "get", pkg+"@"+prometheusOperatorAPIs)
	tools.ExecIn(t, mod, "go", "mod", "tidy")
	tools.ExecIn(t, mod, controllerGen, "crd", "paths="+pkg+"/v1", "output:crd:dir=crds")
	_, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(mod, "crds", "monitoring.coreos.com_servicemonitors.yaml")}})
	require.NoError(t, err, "the ServiceMonitor CRD")
}

// applyRBAC creates the project's ServiceAccount and roles for real, so
// the operator runs with exactly the permissions the project grants it.
func (c *Cluster) applyRBAC(t *testing.T, dir string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	ns := p.Namespace()
	if err := c.Client.Create(context.Background(), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	for _, o := range manifestObjects(t, dir, p.Name+"-", ns) {
		if o.GetKind() == "Deployment" {
			continue
		}
		require.NoError(t, c.Client.Create(context.Background(), o), "%s %s", o.GetKind(), o.GetName())
		// The grants last as long as the test that needs them.
		t.Cleanup(func() { assert.NoError(t, c.Client.Delete(context.Background(), o)) })
	}
}
