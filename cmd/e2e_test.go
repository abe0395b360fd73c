//go:build e2e

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
)

// reconcileRunners start a style's reconcile logic for the project in dir
// against the test API server and return a stop func. kubeconfig
// authenticates as the project's ServiceAccount, admin as a cluster admin
// (what Metacontroller runs as). Each style adds itself here; a style
// without one fails the suite.
var reconcileRunners = map[string]func(t *testing.T, dir, kubeconfig, admin string) (stop func()){
	"go":             runGoManager,
	"kopf":           runKopfReconciler,
	"shell-operator": runShellOperatorHooks,
	"metacontroller": runMetacontrollerHooks,
	"ansible":        runAnsibleRole,
}

// TestE2E proves every style's generated project on a real kube-apiserver
// and etcd built from the Go module proxy (make test-e2e).
func TestE2E(t *testing.T) {
	cfg, admin := startAPIServer(t, "make test-e2e")

	for _, style := range styles.All().Names() {
		t.Run(style, func(t *testing.T) {
			if style == "metacontroller-decorator" {
				e2eDecorator(t, cfg)
				return
			}
			e2eStyle(t, cfg, admin, style)
		})
	}
}

// startAPIServer starts kube-apiserver and etcd from KUBEBUILDER_ASSETS
// (which target sets it names) for the test, and a cluster admin.
func startAPIServer(t *testing.T, target string) (*rest.Config, *envtest.AuthenticatedUser) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatalf("KUBEBUILDER_ASSETS is not set: run `%s`, which builds kube-apiserver and etcd from the Go module proxy", target)
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	require.NoError(t, err, "start kube-apiserver and etcd")
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	admin, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	require.NoError(t, err)
	version, err := exec.Command(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver"), "--version").Output()
	require.NoError(t, err)
	t.Logf("API server: %s", strings.TrimSpace(string(version)))
	return cfg, admin
}

func e2eStyle(t *testing.T, cfg *rest.Config, admin *envtest.AuthenticatedUser, style string) {
	ctx := context.Background()
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)

	dir := scaffoldSeed(t, style)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	api := p.APIs[0]

	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{filepath.Join(dir, scaffold.CRDPath(p, api))}})
	require.NoError(t, err, "the CRD must be accepted")
	t.Cleanup(func() {
		// The next style installs the same CRD: wait until this one is gone.
		crd := readObjects(t, filepath.Join(dir, scaffold.CRDPath(p, api)))[0]
		require.NoError(t, c.Delete(ctx, crd))
		waitFor(t, "the CRD to be deleted", func() (bool, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(crd), crd)
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	})

	ns := "e2e-" + style
	restricted := "e2e-" + style + "-restricted"
	createNamespace(t, c, ns, false)
	createNamespace(t, c, restricted, true)

	t.Run("schema", func(t *testing.T) {
		sample := readObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
		sample.SetNamespace(ns)
		sample.SetName("schema-check")
		require.NoError(t, c.Create(ctx, sample), "the sample must be accepted")
		assert.Empty(t, schemaViolationsAccepted(ctx, c, ns))
	})

	t.Run("manifests pass restricted Pod Security with zero warnings", func(t *testing.T) {
		warnings := dryRunManifests(t, cfg, dir, restricted)
		assert.Empty(t, warnings)
		// The check can fail: an unhardened Deployment draws warnings.
		bare := readObjects(t, filepath.Join(dir, "config/manager/manager.yaml"))[1]
		bare.SetNamespace(restricted)
		unstructured.RemoveNestedField(bare.Object, "spec", "template", "spec", "securityContext")
		containers, _, _ := unstructured.NestedSlice(bare.Object, "spec", "template", "spec", "containers")
		delete(containers[0].(map[string]any), "securityContext")
		require.NoError(t, unstructured.SetNestedSlice(bare.Object, containers, "spec", "template", "spec", "containers"))
		assert.NotEmpty(t, dryRun(t, cfg, restricted, bare), "Pod Security warnings are not reported: the zero-warning check would prove nothing")
	})

	t.Run("reconcile", func(t *testing.T) {
		start, ok := reconcileRunners[style]
		require.True(t, ok, "style %s has no reconcile runner in the e2e suite", style)
		applyRBAC(t, c, dir, p.Namespace())
		kubeconfig := serviceAccountKubeconfig(t, cfg, admin, p.Namespace(), p.Name+"-controller-manager")
		stop := start(t, dir, kubeconfig, adminKubeconfig(t, admin))
		stopped := false
		defer func() {
			if !stopped { // a failed check: stop it and report what it said
				stop()
			}
		}()
		checkReconcile(t, c, dir, ns)
		stop()
		stopped = true
		// Deletion never waits for the operator (no finalizer of its own):
		// with the operator stopped, a resource is gone at once.
		cr := readObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
		cr.SetNamespace(ns)
		require.NoError(t, c.Delete(ctx, cr))
		waitFor(t, "the resource to be deleted with the operator stopped", func() (bool, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
			if err == nil && len(cr.GetFinalizers()) > 0 {
				return false, fmt.Errorf("finalizers %v hold the deletion until the operator runs", cr.GetFinalizers())
			}
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	})

	if style == "go" {
		t.Run("generated project's own envtest suite", func(t *testing.T) {
			cmd := exec.Command("go", "test", "-v", "-count=1", "./internal/controller/")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "--- PASS: TestAgainstAPIServer")
		})
	}

	t.Run("schema checks catch a broken CRD", func(t *testing.T) {
		crd := readObjects(t, filepath.Join(dir, scaffold.CRDPath(p, api)))[0]
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(crd), crd))
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		unstructured.RemoveNestedField(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties", "engine", "enum")
		require.NoError(t, unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"))
		require.NoError(t, c.Update(ctx, crd))
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			return len(schemaViolationsAccepted(ctx, c, ns)) > 0, nil
		})
		require.NoError(t, err, "with the enum removed the schema checks must report a failure")
		assert.Equal(t, []string{`engine outside the enum: accepted`}, schemaViolationsAccepted(ctx, c, ns))
	})
}

// schemaViolationsAccepted creates one invalid object per schema rule and
// returns the rules the API server failed to enforce with the schema's
// message.
func schemaViolationsAccepted(ctx context.Context, c client.Client, ns string) []string {
	cases := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"engine outside the enum", map[string]any{"engine": "oracle"}, `spec.engine: Unsupported value: "oracle": supported values: "mysql", "postgres"`},
		{"replicas below min", map[string]any{"engine": "mysql", "replicas": int64(0)}, `spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1`},
		{"replicas above max", map[string]any{"engine": "mysql", "replicas": int64(6)}, `spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5`},
		{"engine missing", map[string]any{"version": "8"}, `spec.engine: Required value`},
	}
	var failures []string
	for i, tc := range cases {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "myapp.example.com/v1", "kind": "Database",
			"metadata": map[string]any{"name": fmt.Sprintf("invalid-%d", i), "namespace": ns},
			"spec":     tc.spec,
		}}
		err := c.Create(ctx, obj, client.DryRunAll)
		switch {
		case err == nil:
			failures = append(failures, tc.name+": accepted")
		case !strings.Contains(err.Error(), tc.want):
			failures = append(failures, fmt.Sprintf("%s: rejected with %q, want %q", tc.name, err, tc.want))
		}
	}
	return failures
}

func createNamespace(t *testing.T, c client.Client, name string, restricted bool) {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if restricted {
		ns.SetLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted"})
	}
	require.NoError(t, c.Create(context.Background(), ns))
}

// readObjects parses a multi-document YAML file.
func readObjects(t *testing.T, path string) []*unstructured.Unstructured {
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
// named as kustomize names them, in namespace ns.
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
		for _, o := range readObjects(t, f) {
			if o.GetKind() == "Namespace" {
				continue
			}
			o.SetName(prefix + o.GetName())
			if !strings.HasPrefix(o.GetKind(), "Cluster") {
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

func dryRun(t *testing.T, cfg *rest.Config, ns string, objs ...*unstructured.Unstructured) []string {
	collector := &warningCollector{}
	wcfg := rest.CopyConfig(cfg)
	wcfg.WarningHandler = collector
	c, err := client.New(wcfg, client.Options{})
	require.NoError(t, err)
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetNamespace() != "" {
			o.SetNamespace(ns)
		}
		require.NoError(t, c.Create(context.Background(), o, client.DryRunAll), "%s %s must be accepted", o.GetKind(), o.GetName())
	}
	return collector.warnings
}

func dryRunManifests(t *testing.T, cfg *rest.Config, dir, ns string) []string {
	objs := manifestObjects(t, dir, "", ns)
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o.GetKind()] = true
	}
	want := []string{"ServiceAccount", "Deployment"}
	if _, err := os.Stat(filepath.Join(dir, "config/rbac/role.yaml")); err == nil {
		want = append(want, "ClusterRole", "ClusterRoleBinding")
	}
	for _, k := range want {
		assert.True(t, kinds[k], "no %s among the manifests", k)
	}
	return dryRun(t, cfg, ns, objs...)
}

// applyRBAC creates the ServiceAccount and roles for real, so the operator
// runs with exactly the permissions the project grants it.
func applyRBAC(t *testing.T, c client.Client, dir, ns string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	if err := c.Create(context.Background(), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	for _, o := range manifestObjects(t, dir, p.Name+"-", ns) {
		if o.GetKind() == "Deployment" {
			continue
		}
		require.NoError(t, c.Create(context.Background(), o), "%s %s", o.GetKind(), o.GetName())
		// The next style grants its own RBAC under the same names.
		t.Cleanup(func() { assert.NoError(t, c.Delete(context.Background(), o)) })
	}
}

func adminKubeconfig(t *testing.T, admin *envtest.AuthenticatedUser) string {
	raw, err := admin.KubeConfig()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "admin-kubeconfig")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// ServiceAccount with a token from the TokenRequest API, so the operator
// runs with exactly the RBAC the project grants it.
func serviceAccountKubeconfig(t *testing.T, cfg *rest.Config, admin *envtest.AuthenticatedUser, ns, sa string) string {
	clientset, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	expiry := int64(3600)
	tok, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(t, err)
	raw, err := admin.KubeConfig()
	require.NoError(t, err)
	kc, err := clientcmd.Load(raw)
	require.NoError(t, err)
	for name := range kc.AuthInfos {
		kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// checkReconcile creates the sample and checks the running reconcile logic:
// children with one controller ownerReference, Ready status (observed: only
// once the children are as desired), children following a spec change, a
// deleted child made again, and no writes when nothing changed.
func checkReconcile(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	cr := readObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	require.NoError(t, c.Create(ctx, cr))
	child := &unstructured.Unstructured{}
	child.SetAPIVersion("v1")
	child.SetKind("ConfigMap")
	key := client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-configmap"}

	isReady := func() (bool, error) { return ready(ctx, c, cr) }
	waitFor(t, "the ConfigMap child and Ready status", func() (bool, error) {
		if err := c.Get(ctx, key, child); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return isReady()
	})
	refs := child.GetOwnerReferences()
	require.Len(t, refs, 1)
	assert.Equal(t, cr.GetUID(), refs[0].UID)
	assert.True(t, refs[0].Controller != nil && *refs[0].Controller)
	// The same child in every style: same name, kind, labels and data.
	data, _, _ := unstructured.NestedStringMap(child.Object, "data")
	assert.Equal(t, map[string]string{"engine": "mysql", "replicas": "1", "storage": "1Gi", "version": "example"}, data)
	childLabels := child.GetLabels()
	// Metacontroller's generated selector labels every child with its parent's UID.
	delete(childLabels, "controller-uid")
	assert.Equal(t, map[string]string{
		"app.kubernetes.io/name": "database", "app.kubernetes.io/instance": cr.GetName(), "app.kubernetes.io/managed-by": "db-operator",
	}, childLabels)
	assert.Equal(t, "Reconciled", readyReason(cr))

	require.NoError(t, unstructured.SetNestedField(cr.Object, "8.0", "spec", "version"))
	require.NoError(t, c.Update(ctx, cr))
	following := func(version string) func() (bool, error) {
		return func() (bool, error) {
			if err := c.Get(ctx, key, child); err != nil {
				return false, err
			}
			if v, _, _ := unstructured.NestedString(child.Object, "data", "version"); v != version {
				return false, nil
			}
			return isReady()
		}
	}
	waitFor(t, "the child to follow the spec change", following("8.0"))

	// A burst of spec changes (a user editing quickly, a pipeline): the
	// children end at the last one, and status writes racing the changes
	// must not fail (the runners' logs are checked for errors).
	for i := 1; i <= 8; i++ {
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
				return err
			}
			if err := unstructured.SetNestedField(cr.Object, fmt.Sprintf("8.%d", i), "spec", "version"); err != nil {
				return err
			}
			return c.Update(ctx, cr)
		}))
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, "the child to follow a burst of spec changes", following("8.8"))

	// A field removed from the spec leaves the children: no stale keys.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return err
		}
		unstructured.RemoveNestedField(cr.Object, "spec", "version")
		return c.Update(ctx, cr)
	}))
	waitFor(t, "the removed field to leave the child", func() (bool, error) {
		if err := c.Get(ctx, key, child); err != nil {
			return false, err
		}
		if _, found, _ := unstructured.NestedString(child.Object, "data", "version"); found {
			return false, nil
		}
		return isReady()
	})

	require.NoError(t, c.Delete(ctx, child))
	waitFor(t, "the deleted child to be made again", func() (bool, error) {
		fresh := child.DeepCopy()
		if err := c.Get(ctx, key, fresh); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if fresh.GetUID() == child.GetUID() {
			return false, nil
		}
		return isReady()
	})
	require.NoError(t, c.Get(ctx, key, child))
	time.Sleep(time.Second)

	require.NoError(t, c.Get(ctx, key, child))
	before := child.GetResourceVersion()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cr), cr))
	crBefore := cr.GetResourceVersion()
	time.Sleep(3 * time.Second)
	require.NoError(t, c.Get(ctx, key, child))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cr), cr))
	assert.Equal(t, before, child.GetResourceVersion(), "an unchanged resource must cause no write to its child")
	assert.Equal(t, crBefore, cr.GetResourceVersion(), "an unchanged resource must cause no status write")
}

// ready reports whether the CR's status says Ready for its generation, in
// status.observedGeneration and in the condition's.
func ready(ctx context.Context, c client.Client, cr *unstructured.Unstructured) (bool, error) {
	if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
		return false, err
	}
	observed, _, _ := unstructured.NestedInt64(cr.Object, "status", "observedGeneration")
	conditions, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, cond := range conditions {
		m := cond.(map[string]any)
		if m["type"] == "Ready" && m["status"] == "True" && observed == cr.GetGeneration() &&
			fmt.Sprint(m["observedGeneration"]) == fmt.Sprint(cr.GetGeneration()) {
			return true, nil
		}
	}
	return false, nil
}

func readyReason(cr *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, cond := range conditions {
		if m := cond.(map[string]any); m["type"] == "Ready" {
			return fmt.Sprint(m["reason"])
		}
	}
	return ""
}

func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		return cond()
	})
	require.NoError(t, err, "waiting for %s", what)
}

// e2eDecorator proves the decorator project: its manifests pass restricted
// Pod Security, and its hook, driven as Metacontroller would with objects
// read from the API server, attaches a matching Service to each selected
// Deployment (owned by it) and to no other, then changes nothing.
func e2eDecorator(t *testing.T, cfg *rest.Config) {
	ctx := context.Background()
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, decoratorInit...).code)
	r := run(t, dir, nil, false, decoratorCreate...)
	require.Equal(t, 0, r.code, r.stderr)
	ns, restricted := "e2e-decorator", "e2e-decorator-restricted"
	createNamespace(t, c, ns, false)
	createNamespace(t, c, restricted, true)
	t.Run("manifests pass restricted Pod Security with zero warnings", func(t *testing.T) {
		assert.Empty(t, dryRunManifests(t, cfg, dir, restricted))
	})

	t.Run("attach", func(t *testing.T) {
		web := webDeployment("web", ns, map[string]any{"app-type": "web"})
		other := webDeployment("other", ns, nil)
		require.NoError(t, c.Create(ctx, web))
		require.NoError(t, c.Create(ctx, other))
		base, stop := startHookServer(t, dir)
		defer stop()

		decorate := func() {
			targets := &unstructured.UnstructuredList{}
			targets.SetAPIVersion("apps/v1")
			targets.SetKind("DeploymentList")
			require.NoError(t, c.List(ctx, targets, client.InNamespace(ns), client.MatchingLabels{"app-type": "web"}))
			for _, target := range targets.Items {
				observed := map[string]any{}
				services := &unstructured.UnstructuredList{}
				services.SetAPIVersion("v1")
				services.SetKind("ServiceList")
				require.NoError(t, c.List(ctx, services, client.InNamespace(ns)))
				for _, s := range services.Items {
					if ref := metav1.GetControllerOf(&s); ref != nil && ref.UID == target.GetUID() {
						observed[s.GetName()] = s.Object
					}
				}
				body, err := json.Marshal(map[string]any{"controller": map[string]any{"kind": "DecoratorController"},
					"object": target.Object, "attachments": map[string]any{"Service.v1": observed}})
				require.NoError(t, err)
				resp, err := http.Post(base+"/sync/deployments", "application/json", bytes.NewReader(body))
				require.NoError(t, err)
				var response struct {
					Attachments []map[string]any `json:"attachments"`
				}
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&response))
				resp.Body.Close()
				for _, a := range response.Attachments {
					// Metacontroller makes the decorated object the attachment's controller.
					obj := &unstructured.Unstructured{Object: a}
					obj.SetOwnerReferences([]metav1.OwnerReference{*metav1.NewControllerRef(&target, target.GroupVersionKind())})
					require.NoError(t, applyAsMetacontroller(ctx, c, obj))
				}
			}
		}
		decorate()
		service := &unstructured.Unstructured{}
		service.SetAPIVersion("v1")
		service.SetKind("Service")
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service))
		selector, _, _ := unstructured.NestedStringMap(service.Object, "spec", "selector")
		assert.Equal(t, map[string]string{"app": "web"}, selector)
		ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
		require.Len(t, ports, 1)
		assert.EqualValues(t, 8080, ports[0].(map[string]any)["port"])
		assert.Equal(t, web.GetUID(), metav1.GetControllerOf(service).UID)
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "other-service"}, service.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "an unselected Deployment must get no Service")

		before := service.GetResourceVersion()
		decorate()
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service))
		assert.Equal(t, before, service.GetResourceVersion(), "a second sync must change nothing")
	})
}

// webDeployment is a Deployment with an http container port: what the seed
// decorator attaches a Service to when it carries the selected labels.
func webDeployment(name, ns string, labels map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "busybox:1.37.0",
					"ports": []any{map[string]any{"name": "http", "containerPort": int64(8080)}}}}},
			},
		},
	}}
}
