//go:build e2e

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
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
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test-e2e`, which builds kube-apiserver and etcd from the Go module proxy")
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	require.NoError(t, err, "start kube-apiserver and etcd")
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	admin, err := env.AddUser(envtest.User{Name: "e2e-admin", Groups: []string{"system:masters"}}, nil)
	require.NoError(t, err)
	version, err := exec.Command(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver"), "--version").Output()
	require.NoError(t, err)
	t.Logf("API server: %s", strings.TrimSpace(string(version)))

	for _, style := range scaffold.StyleNames() {
		t.Run(style, func(t *testing.T) {
			if style == "metacontroller-decorator" {
				e2eDecorator(t, cfg)
				return
			}
			e2eStyle(t, cfg, admin, style)
		})
	}
}

func e2eStyle(t *testing.T, cfg *rest.Config, admin *envtest.AuthenticatedUser, style string) {
	ctx := context.Background()
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)

	dir := scaffoldSeed(t, style)
	p, err := scaffold.LoadProject(dir)
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
		defer stop()
		// The ansible role writes status with operator_sdk.util, which is only
		// in the operator image: its local runs check children alone.
		checkReconcile(t, c, dir, ns, style != "ansible")
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
	p, err := scaffold.LoadProject(dir)
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
// children with ownerReferences, Ready status, children following a spec
// change, and no writes when nothing changed.
func checkReconcile(t *testing.T, c client.Client, dir, ns string, writesStatus bool) {
	ctx := context.Background()
	cr := readObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	require.NoError(t, c.Create(ctx, cr))
	child := &unstructured.Unstructured{}
	child.SetAPIVersion("v1")
	child.SetKind("ConfigMap")
	key := client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-configmap"}

	isReady := func() (bool, error) {
		if !writesStatus {
			return true, c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
		}
		return ready(ctx, c, cr)
	}
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
	assert.Equal(t, map[string]string{
		"app.kubernetes.io/name": "database", "app.kubernetes.io/instance": cr.GetName(), "app.kubernetes.io/managed-by": "db-operator",
	}, child.GetLabels())
	if writesStatus {
		assert.Equal(t, "Reconciled", readyReason(cr))
	}

	require.NoError(t, unstructured.SetNestedField(cr.Object, "8.0", "spec", "version"))
	require.NoError(t, c.Update(ctx, cr))
	waitFor(t, "the child to follow the spec change", func() (bool, error) {
		if err := c.Get(ctx, key, child); err != nil {
			return false, err
		}
		v, _, _ := unstructured.NestedString(child.Object, "data", "version")
		if v != "8.0" {
			return false, nil
		}
		return isReady()
	})

	before := child.GetResourceVersion()
	crBefore := cr.GetResourceVersion()
	time.Sleep(3 * time.Second)
	require.NoError(t, c.Get(ctx, key, child))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cr), cr))
	assert.Equal(t, before, child.GetResourceVersion(), "an unchanged resource must cause no write to its child")
	assert.Equal(t, crBefore, cr.GetResourceVersion(), "an unchanged resource must cause no status write")
}

// ready reports whether the CR's status says Ready for its generation.
func ready(ctx context.Context, c client.Client, cr *unstructured.Unstructured) (bool, error) {
	if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
		return false, err
	}
	observed, _, _ := unstructured.NestedInt64(cr.Object, "status", "observedGeneration")
	conditions, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, cond := range conditions {
		m := cond.(map[string]any)
		if m["type"] == "Ready" && m["status"] == "True" && observed == cr.GetGeneration() {
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

// runGoManager builds the generated manager and runs it as a process.
func runGoManager(t *testing.T, dir, kubeconfig, _ string) func() {
	execIn(t, dir, "go", "build", "-o", "bin/manager", "./cmd")
	cmd := exec.Command(filepath.Join(dir, "bin/manager"), "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return startProcess(t, cmd, "forbidden")
}

// startProcess runs a style's reconciler; at stop its output must not show
// a permission error (forbidden names how the runtime reports it).
func startProcess(t *testing.T, cmd *exec.Cmd, forbidden string) func() {
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), logs.String())
		}
		assert.NotContains(t, logs.String(), forbidden, "the reconciler lacked a permission")
	}
}

// kopfDriver runs the generated kopf project's reconcile logic without Kopf:
// every half second it lists each kind, applies the children with apply.py
// and patches status with children.status_patch, as the handlers do.
const kopfDriver = `
import datetime, importlib, sys, time
from kubernetes import config, dynamic
from kubernetes.client import api_client
pkg = sys.argv[1]
apply = importlib.import_module(pkg + ".apply")
children = importlib.import_module(pkg + ".children")
kinds = importlib.import_module(pkg + ".kinds")
config.load_kube_config()
resources = dynamic.DynamicClient(api_client.ApiClient()).resources
apis = {k: resources.get(api_version=v.group + "/" + v.version, kind=k) for k, v in kinds.KINDS.items()}
while True:
    for api in apis.values():
        for body in api.get().to_dict()["items"]:
            for kind, name, action in apply.apply_children(resources, body):
                print(action, kind, name, flush=True)
            now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            patch = children.status_patch(body, now)
            if patch:
                api.subresources["status"].patch(body={"status": patch}, name=body["metadata"]["name"],
                    namespace=body["metadata"]["namespace"], content_type="application/merge-patch+json")
                print("status", body["metadata"]["name"], flush=True)
    time.sleep(0.5)
`

// runKopfReconciler drives the kopf project's apply/reconcile modules with
// the real kubernetes client.
func runKopfReconciler(t *testing.T, dir, kubeconfig, _ string) func() {
	p, err := scaffold.LoadProject(dir)
	require.NoError(t, err)
	cmd := exec.Command(python(t), "-c", kopfDriver, scaffold.PythonPackage(p))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+dir)
	return startProcess(t, cmd, "Forbidden")
}

// runShellOperatorHooks plays shell-operator: it reads the custom resources
// from the API server, hands them to each hook as a Synchronization binding
// context, and carries out the operations the hook writes to the patch file
// (CreateOrUpdate: create, or merge-patch without status; MergePatch with
// subresource status: a status merge patch).
func runShellOperatorHooks(t *testing.T, dir, kubeconfig, _ string) func() {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	p, err := scaffold.LoadProject(dir)
	require.NoError(t, err)
	return repeat(t, func(ctx context.Context) error {
		for i, a := range p.APIs {
			hook := filepath.Join(dir, "hooks", scaffold.HookName(i, a)+".sh")
			if err := runHookOnce(ctx, c, hook, a.FullGroup(p.Domain)+"/"+a.Version, a.Kind, a.Plural); err != nil {
				return err
			}
		}
		return nil
	})
}

// repeat runs pass every half second until the returned stop is called;
// the first error ends the loop and fails the test at stop.
func repeat(t *testing.T, pass func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var failure error
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := pass(ctx); err != nil && ctx.Err() == nil {
				failure = err
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	return func() {
		cancel()
		<-done
		assert.NoError(t, failure)
	}
}

func runHookOnce(ctx context.Context, c client.Client, hook, apiVersion, kind, plural string) error {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(apiVersion)
	list.SetKind(kind + "List")
	if err := c.List(ctx, list); err != nil {
		return err
	}
	var objects []any
	for _, o := range list.Items {
		objects = append(objects, map[string]any{"object": o.Object, "filterResult": o.Object["spec"]})
	}
	bindingContext, err := json.Marshal([]any{map[string]any{"binding": plural, "type": "Synchronization", "objects": objects}})
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "hook")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	contextPath, patchPath := filepath.Join(tmp, "context.json"), filepath.Join(tmp, "patch.json")
	if err := os.WriteFile(contextPath, bindingContext, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, hook)
	cmd.Env = append(os.Environ(), "BINDING_CONTEXT_PATH="+contextPath, "KUBERNETES_PATCH_PATH="+patchPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", hook, err, out)
	}
	patch, err := os.ReadFile(patchPath)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(patch))
	for dec.More() {
		var op struct {
			Operation, APIVersion, Kind, Namespace, Name, Subresource string
			Object                                                    map[string]any
			MergePatch                                                json.RawMessage
		}
		if err := dec.Decode(&op); err != nil {
			return err
		}
		if err := carryOut(ctx, c, op.Operation, op.APIVersion, op.Kind, op.Namespace, op.Name, op.Subresource, op.Object, op.MergePatch); err != nil {
			return fmt.Errorf("%s %s %s: %w", op.Operation, op.Kind, op.Name, err)
		}
	}
	return nil
}

func carryOut(ctx context.Context, c client.Client, operation, apiVersion, kind, ns, name, subresource string, object map[string]any, mergePatch json.RawMessage) error {
	switch operation {
	case "CreateOrUpdate":
		obj := &unstructured.Unstructured{Object: object}
		current := &unstructured.Unstructured{}
		current.SetGroupVersionKind(obj.GroupVersionKind())
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), current)
		if apierrors.IsNotFound(err) {
			return c.Create(ctx, obj)
		}
		if err != nil {
			return err
		}
		delete(obj.Object, "status")
		body, err := json.Marshal(obj.Object)
		if err != nil {
			return err
		}
		return c.Patch(ctx, current, client.RawPatch(types.MergePatchType, body))
	case "MergePatch":
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(apiVersion)
		obj.SetKind(kind)
		obj.SetNamespace(ns)
		obj.SetName(name)
		if subresource == "status" {
			return c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, mergePatch))
		}
		return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, mergePatch))
	}
	return fmt.Errorf("unknown operation %q", operation)
}

// runMetacontrollerHooks plays Metacontroller: it serves the generated hook
// server on loopback, builds each sync request from the parent and its
// current children read from the API server, posts it, applies the returned
// children (create or merge-patch) and writes the returned status.
func runMetacontrollerHooks(t *testing.T, dir, _, admin string) func() {
	p, err := scaffold.LoadProject(dir)
	require.NoError(t, err)
	cfg, err := clientcmd.BuildConfigFromFlags("", admin)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	base, stopServer := startHookServer(t, dir)
	stopLoop := repeat(t, func(ctx context.Context) error {
		for _, a := range p.APIs {
			if err := syncOnce(ctx, c, base, p, a); err != nil {
				return err
			}
		}
		return nil
	})
	return func() {
		stopLoop()
		stopServer()
	}
}

// startHookServer runs the generated Python hook server on a free loopback
// port and returns its base URL.
func startHookServer(t *testing.T, dir string) (string, func()) {
	p, err := scaffold.LoadProject(dir)
	require.NoError(t, err)
	port := freePort(t)
	var logs bytes.Buffer
	server := exec.Command(python(t), "-m", scaffold.PythonPackage(p)+".server")
	server.Dir = dir
	server.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	server.Stdout, server.Stderr = &logs, &logs
	require.NoError(t, server.Start())
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitFor(t, "the hook server", func() (bool, error) {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	return base, func() {
		_ = server.Process.Kill()
		_ = server.Wait()
		if t.Failed() {
			t.Logf("hook server output:\n%s", logs.String())
		}
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func syncOnce(ctx context.Context, c client.Client, base string, p scaffold.Project, a scaffold.API) error {
	parents := &unstructured.UnstructuredList{}
	parents.SetAPIVersion(a.FullGroup(p.Domain) + "/" + a.Version)
	parents.SetKind(a.Kind + "List")
	if err := c.List(ctx, parents); err != nil {
		return err
	}
	for _, parent := range parents.Items {
		// Observed children, keyed as Metacontroller keys them: Kind.apiVersion, then name.
		observed := map[string]any{}
		for _, kind := range a.OwnedKinds() {
			key := kind.Kind + "." + kind.APIVersion()
			byName := map[string]any{}
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(kind.APIVersion())
			list.SetKind(kind.Kind + "List")
			if err := c.List(ctx, list, client.InNamespace(parent.GetNamespace())); err != nil {
				return err
			}
			for _, child := range list.Items {
				if ref := metav1.GetControllerOf(&child); ref != nil && ref.UID == parent.GetUID() {
					byName[child.GetName()] = child.Object
				}
			}
			observed[key] = byName
		}
		body, err := json.Marshal(map[string]any{"controller": map[string]any{"kind": "CompositeController"},
			"parent": parent.Object, "children": observed, "finalizing": false})
		if err != nil {
			return err
		}
		resp, err := http.Post(base+"/sync/"+a.Plural, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		var response struct {
			Status   map[string]any   `json:"status"`
			Children []map[string]any `json:"children"`
		}
		err = json.NewDecoder(resp.Body).Decode(&response)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return fmt.Errorf("sync %s: HTTP %d: %v", parent.GetName(), resp.StatusCode, err)
		}
		for _, child := range response.Children {
			if err := carryOut(ctx, c, "CreateOrUpdate", "", "", "", "", "", child, nil); err != nil {
				return err
			}
		}
		// Metacontroller injects observedGeneration, then writes status if it changed.
		response.Status["observedGeneration"] = parent.GetGeneration()
		current, _, _ := unstructured.NestedMap(parent.Object, "status")
		if !equalJSON(current, response.Status) {
			patch, err := json.Marshal(map[string]any{"status": response.Status})
			if err != nil {
				return err
			}
			if err := c.Status().Patch(ctx, &parent, client.RawPatch(types.MergePatchType, patch)); err != nil {
				return err
			}
		}
	}
	return nil
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xa, yb any
	_ = json.Unmarshal(x, &xa)
	_ = json.Unmarshal(y, &yb)
	return reflect.DeepEqual(xa, yb)
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
		deployment := func(name string, labels map[string]any) *unstructured.Unstructured {
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
		web := deployment("web", map[string]any{"app-type": "web"})
		other := deployment("other", nil)
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
					require.NoError(t, carryOut(ctx, c, "CreateOrUpdate", "", "", "", "", "", obj.Object, nil))
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

// runAnsibleRole runs the generated role with ansible-playbook, as the
// Ansible operator would, for every object of the kind, again and again;
// at the end the last run of each object must have changed nothing.
func runAnsibleRole(t *testing.T, dir, kubeconfig, _ string) func() {
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		t.Fatal("ansible-playbook not found: install ansible (Debian package; it ships kubernetes.core)")
	}
	p, err := scaffold.LoadProject(dir)
	require.NoError(t, err)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var failure error
	var mu sync.Mutex
	last := map[string]string{}
	passes := 0
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, a := range p.APIs {
				list := &unstructured.UnstructuredList{}
				list.SetAPIVersion(a.FullGroup(p.Domain) + "/" + a.Version)
				list.SetKind(a.Kind + "List")
				if err := c.List(ctx, list); err != nil {
					failure = err
					return
				}
				for _, o := range list.Items {
					cmd := exec.CommandContext(ctx, "ansible-playbook", "playbooks/local-"+a.Singular()+".yml",
						"-e", "cr_name="+o.GetName(), "-e", "cr_namespace="+o.GetNamespace())
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "K8S_AUTH_KUBECONFIG="+kubeconfig, "ANSIBLE_NOCOLOR=1")
					out, err := cmd.CombinedOutput()
					if ctx.Err() != nil {
						return
					}
					if err != nil {
						failure = fmt.Errorf("ansible-playbook: %v\n%s", err, out)
						return
					}
					mu.Lock()
					last[o.GetName()] = string(out)
					mu.Unlock()
				}
			}
			mu.Lock()
			passes++
			mu.Unlock()
		}
	}()
	return func() {
		// Let one whole pass start and finish after the checks: that is the
		// run that must change nothing.
		mu.Lock()
		target := passes + 2
		mu.Unlock()
		waitFor(t, "a complete ansible-playbook pass", func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return passes >= target || failure != nil, nil
		})
		cancel()
		<-done
		require.NoError(t, failure)
		require.NotEmpty(t, last)
		for name, out := range last {
			assert.Regexp(t, `changed=0\s`, out, "the last run for %s must change nothing", name)
		}
	}
}
