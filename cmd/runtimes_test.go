//go:build e2e

package cmd

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/python"
)

// The real runtimes cannot be installed from the registries this machine
// reaches; make test-runtimes takes them from the environment
// (docs/real-runtimes.md says how to build them).
var runtimeEnv = map[string][]string{
	"go":             nil,
	"kopf":           {"OPCTL_KOPF_PYTHONPATH"},
	"metacontroller": {"OPCTL_METACONTROLLER", "OPCTL_METACONTROLLER_CRDS"},
	"shell-operator": {"OPCTL_SHELL_OPERATOR"},
	"ansible":        {"OPCTL_ANSIBLE_OPERATOR", "OPCTL_ANSIBLE_PYTHONPATH", "OPCTL_ANSIBLE_RUNNER_BIN_DIR", "OPCTL_ANSIBLE_COLLECTIONS_PATH"},
}

// realRuntimes start the project in dir in its style's real runtime, as the
// project's ServiceAccount (kubeconfig) or, for Metacontroller, as a cluster
// admin; they return the runtime's log so far.
var realRuntimes = map[string]func(t *testing.T, dir, kubeconfig, admin string, c client.Client) (logs func() string){
	"go":             realGo,
	"kopf":           realKopf,
	"metacontroller": realMetacontroller,
	"shell-operator": realShellOperator,
	"ansible":        realAnsibleOperator,
}

// errorLine is how each runtime logs an error: zap's console and JSON
// encoders, Kopf's and Python's logging.
var errorLine = regexp.MustCompile(`(?m)("level":"error"|\tERROR\t|\[ERROR|ERROR:| ERROR )`)

// TestRuntimes runs every style's seed project in its real runtime against
// the source-built API server and prints a table of checks by style.
func TestRuntimes(t *testing.T) {
	var missing []string
	for _, style := range sortedStyles() {
		for _, v := range runtimeEnv[style] {
			if os.Getenv(v) == "" {
				missing = append(missing, v)
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the real runtimes are not given: set %s (docs/real-runtimes.md says how to build them)", strings.Join(missing, ", "))
	}
	cfg, admin := startAPIServer(t, "make test-runtimes")
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	if crds := os.Getenv("OPCTL_METACONTROLLER_CRDS"); crds != "" {
		_, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{crds}})
		require.NoError(t, err, "Metacontroller's CRDs")
	}

	results := &resultTable{}
	defer func() { t.Logf("real runtimes (kube-apiserver v1.37.2):\n%s", results) }()
	for _, style := range sortedStyles() {
		t.Run(style, func(t *testing.T) {
			ctx := context.Background()
			dir := scaffoldSeed(t, style)
			p, err := scaffold.LoadProject(dir, styles.All())
			require.NoError(t, err)
			crdPath := filepath.Join(dir, scaffold.CRDPath(p, p.APIs[0]))
			_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{crdPath}})
			require.NoError(t, err)
			t.Cleanup(func() {
				crd := readObjects(t, crdPath)[0]
				_ = c.Delete(ctx, crd)
				waitFor(t, "the CRD to be deleted", func() (bool, error) {
					return c.Get(ctx, client.ObjectKeyFromObject(crd), crd) != nil, nil
				})
			})
			ns := "rt-" + style
			createNamespace(t, c, ns, false)
			applyRBAC(t, c, dir, p.Namespace())
			kubeconfig := serviceAccountKubeconfig(t, cfg, admin, p.Namespace(), p.Name+"-controller-manager")
			logs := realRuntimes[style](t, dir, kubeconfig, adminKubeconfig(t, admin), c)
			checkRuntime(t, c, dir, ns, style, logs, results)
		})
	}
	t.Run("metacontroller-decorator", func(t *testing.T) {
		checkDecoratorRuntime(t, c, adminKubeconfig(t, admin), results)
	})
}

// checkDecoratorRuntime runs the seed decorator (a Service for every
// Deployment labelled app-type=web) in real Metacontroller.
func checkDecoratorRuntime(t *testing.T, c client.Client, admin string, results *resultTable) {
	ctx := context.Background()
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, decoratorInit...).code)
	r := run(t, dir, nil, false, decoratorCreate...)
	require.Equal(t, 0, r.code, r.stderr)
	ns := "rt-decorator"
	createNamespace(t, c, ns, false)
	suite := conformance{style: "metacontroller-decorator", logs: realMetacontroller(t, dir, "", admin, c), results: results}
	check := suite.check
	web := webDeployment("web", ns, map[string]any{"app-type": "web"})
	other := webDeployment("other", ns, nil)
	require.NoError(t, c.Create(ctx, web))
	require.NoError(t, c.Create(ctx, other))
	service := &unstructured.Unstructured{}
	service.SetAPIVersion("v1")
	service.SetKind("Service")
	key := client.ObjectKey{Namespace: ns, Name: "web-service"}
	attached := func() (bool, error) {
		if err := c.Get(ctx, key, service); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return true, nil
	}
	if !check(t, "children created, one controller ownerReference", func(t *testing.T) {
		waitFor(t, "the Service attached to the selected Deployment", attached)
		requireOneControllerRef(t, service, web)
	}) {
		return
	}
	check(t, "an unselected object gets no child", func(t *testing.T) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "other-service"}, service.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "other-service: %v", err)
	})
	check(t, "a deleted child is made again", func(t *testing.T) {
		old := service.GetUID()
		require.NoError(t, c.Delete(ctx, service))
		waitFor(t, "the Service to be made again", func() (bool, error) {
			ok, err := attached()
			return ok && service.GetUID() != old, err
		})
	})
	suite.steadyState(t, c, service)
}

func sortedStyles() []string {
	var styles []string
	for s := range realRuntimes {
		styles = append(styles, s)
	}
	sort.Strings(styles)
	return styles
}

// resultTable records pass or fail per check and style.
type resultTable struct {
	mu     sync.Mutex
	checks []string
	cells  map[[2]string]string
	styles []string
}

func (r *resultTable) record(check, style string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cells == nil {
		r.cells = map[[2]string]string{}
	}
	if !slices.Contains(r.checks, check) {
		r.checks = append(r.checks, check)
	}
	if !slices.Contains(r.styles, style) {
		r.styles = append(r.styles, style)
	}
	r.cells[[2]string{check, style}] = map[bool]string{true: "pass", false: "FAIL"}[ok]
}

func (r *resultTable) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "| check | %s |\n|---|%s\n", strings.Join(r.styles, " | "), strings.Repeat("---|", len(r.styles)))
	for _, check := range r.checks {
		fmt.Fprintf(&b, "| %s |", check)
		for _, s := range r.styles {
			v := r.cells[[2]string{check, s}]
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(&b, " %s |", v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkRuntime is the conformance suite of one style in its real runtime.
func checkRuntime(t *testing.T, c client.Client, dir, ns, style string, logs func() string, results *resultTable) {
	ctx := context.Background()
	suite := conformance{style: style, logs: logs, results: results}
	check := suite.check
	cr := readObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	child := &unstructured.Unstructured{}
	child.SetAPIVersion("v1")
	child.SetKind("ConfigMap")
	key := client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-configmap"}
	converged := func(version string) func() (bool, error) {
		return func() (bool, error) {
			if err := c.Get(ctx, key, child); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if v, _, _ := unstructured.NestedString(child.Object, "data", "version"); v != version {
				return false, nil
			}
			return ready(ctx, c, cr)
		}
	}
	require.NoError(t, c.Create(ctx, cr))
	if !check(t, "children created, one controller ownerReference", func(t *testing.T) {
		waitFor(t, "the ConfigMap child and Ready", converged("example"))
		requireOneControllerRef(t, child, cr)
	}) {
		return
	}
	check(t, "Ready and observedGeneration (resource and condition)", func(t *testing.T) {
		ok, err := ready(ctx, c, cr)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "Reconciled", readyReason(cr))
	})
	check(t, "same ConfigMap data and status fields in every style", func(t *testing.T) {
		data, _, _ := unstructured.NestedStringMap(child.Object, "data")
		assert.Equal(t, map[string]string{"engine": "mysql", "replicas": "1", "storage": "1Gi", "version": "example"}, data)
		status, _, _ := unstructured.NestedMap(cr.Object, "status")
		conditions, _ := status["conditions"].([]any)
		require.Len(t, conditions, 1)
		cond := conditions[0].(map[string]any)
		delete(cond, "lastTransitionTime")
		b, _ := yaml.Marshal(status)
		assert.Equal(t, "conditions:\n- message: all children are up to date\n  observedGeneration: 1\n  reason: Reconciled\n  status: \"True\"\n  type: Ready\nobservedGeneration: 1\n", string(b))
	})
	check(t, "spec change followed within 60 s", func(t *testing.T) {
		require.NoError(t, unstructured.SetNestedField(cr.Object, "8.0", "spec", "version"))
		require.NoError(t, c.Update(ctx, cr))
		waitFor(t, "the child to follow the spec change", converged("8.0"))
	})
	check(t, "a field removed from the spec leaves the child", func(t *testing.T) {
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cr), cr))
		unstructured.RemoveNestedField(cr.Object, "spec", "storage")
		require.NoError(t, c.Update(ctx, cr))
		waitFor(t, "storage to leave the child", func() (bool, error) {
			if ok, err := converged("8.0")(); !ok || err != nil {
				return ok, err
			}
			_, found, _ := unstructured.NestedString(child.Object, "data", "storage")
			return !found, nil
		})
	})
	check(t, "a deleted child is made again", func(t *testing.T) {
		require.NoError(t, c.Get(ctx, key, child))
		old := child.GetUID()
		require.NoError(t, c.Delete(ctx, child))
		waitFor(t, "the child to be made again", func() (bool, error) {
			if ok, err := converged("8.0")(); !ok || err != nil {
				return ok, err
			}
			return child.GetUID() != old, nil
		})
	})
	check(t, "invalid resources rejected", func(t *testing.T) {
		assert.Empty(t, schemaViolationsAccepted(ctx, c, ns))
	})
	suite.steadyState(t, c, child, cr)
}

// conformance runs one style's checks in its real runtime and records each
// outcome in the table of checks by style.
type conformance struct {
	style   string
	logs    func() string
	results *resultTable
}

// check runs one named check as a subtest and records whether it passed;
// a failure shows the runtime's log.
func (s conformance) check(t *testing.T, name string, f func(t *testing.T)) bool {
	ok := t.Run(name, f)
	s.results.record(name, s.style, ok)
	if !ok {
		t.Logf("%s log:\n%s", s.style, s.logs())
	}
	return ok
}

// steadyState checks, once the runtime has settled, that nothing changes
// objs for 30 s and that its log shows no error meanwhile.
func (s conformance) steadyState(t *testing.T, c client.Client, objs ...*unstructured.Unstructured) {
	ctx := context.Background()
	time.Sleep(5 * time.Second) // let the runtime settle after the last change
	logStart := len(s.logs())
	s.check(t, "no writes for 30 s when nothing changes", func(t *testing.T) {
		versions := map[*unstructured.Unstructured]string{}
		for _, o := range objs {
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
			versions[o] = o.GetResourceVersion()
		}
		time.Sleep(30 * time.Second)
		for _, o := range objs {
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
			assert.Equal(t, versions[o], o.GetResourceVersion(), "%s %s written", o.GetKind(), o.GetName())
		}
	})
	s.check(t, "no ERROR lines in the runtime's log in steady state", func(t *testing.T) {
		steady := s.logs()[logStart:]
		assert.Empty(t, errorLine.FindAllString(steady, -1), "%s", steady)
	})
}

// requireOneControllerRef checks that child has exactly one ownerReference,
// a controller reference to owner.
func requireOneControllerRef(t *testing.T, child, owner *unstructured.Unstructured) {
	refs := child.GetOwnerReferences()
	require.Len(t, refs, 1, "ownerReferences: %v", refs)
	assert.Equal(t, owner.GetUID(), refs[0].UID)
	assert.True(t, refs[0].Controller != nil && *refs[0].Controller)
}

// startLogged starts cmd with its output in a buffer, stopped at cleanup.
func startLogged(t *testing.T, cmd *exec.Cmd) func() string {
	var mu sync.Mutex
	var logs bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	})
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start(), "start %s", cmd.Path)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return logs.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func realGo(t *testing.T, dir, kubeconfig, _ string, _ client.Client) func() string {
	execIn(t, dir, "go", "build", "-o", "bin/manager", "./cmd")
	cmd := exec.Command(filepath.Join(dir, "bin/manager"), "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return startLogged(t, cmd)
}

func realKopf(t *testing.T, dir, kubeconfig, _ string, _ client.Client) func() string {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	cmd := exec.Command(pythonInterpreter(t), "-m", "kopf", "run", "--standalone", "--all-namespaces",
		fmt.Sprintf("--liveness=http://127.0.0.1:%d/healthz", freePort(t)), "-m", python.Package(p)+".operator")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+os.Getenv("OPCTL_KOPF_PYTHONPATH")+":"+dir)
	return startLogged(t, cmd)
}

// realMetacontroller runs Metacontroller outside the cluster with the
// project's Composite- and DecoratorControllers, their hook URL (only)
// rewritten to the hook server on loopback.
func realMetacontroller(t *testing.T, dir, _, admin string, c client.Client) func() string {
	base, stop := startHookServer(t, dir)
	t.Cleanup(stop)
	files, err := filepath.Glob(filepath.Join(dir, "config/metacontroller/*.yaml"))
	require.NoError(t, err)
	for _, f := range files {
		for _, cc := range readObjects(t, f) {
			if cc.GetKind() != "CompositeController" && cc.GetKind() != "DecoratorController" {
				continue
			}
			hook, _, _ := unstructured.NestedString(cc.Object, "spec", "hooks", "sync", "webhook", "url")
			u, err := url.Parse(hook)
			require.NoError(t, err)
			require.NoError(t, unstructured.SetNestedField(cc.Object, base+u.Path, "spec", "hooks", "sync", "webhook", "url"))
			require.NoError(t, c.Create(context.Background(), cc))
			t.Cleanup(func() { _ = c.Delete(context.Background(), cc) })
		}
	}
	cmd := exec.Command(os.Getenv("OPCTL_METACONTROLLER"), "-kubeconfig", admin, "-discovery-interval=5s",
		fmt.Sprintf("-health-probe-bind-address=127.0.0.1:%d", freePort(t)), fmt.Sprintf("-metrics-address=127.0.0.1:%d", freePort(t)))
	return startLogged(t, cmd)
}

func realShellOperator(t *testing.T, dir, kubeconfig, _ string, _ client.Client) func() string {
	tmp := t.TempDir()
	cmd := exec.Command(os.Getenv("OPCTL_SHELL_OPERATOR"), "start")
	cmd.Env = append(os.Environ(),
		"SHELL_OPERATOR_HOOKS_DIR="+filepath.Join(dir, "hooks"),
		"SHELL_OPERATOR_TMP_DIR="+tmp, "TMPDIR="+tmp,
		"SHELL_OPERATOR_LISTEN_ADDRESS=127.0.0.1", fmt.Sprintf("SHELL_OPERATOR_LISTEN_PORT=%d", freePort(t)),
		"VALIDATING_WEBHOOK_LISTEN_ADDRESS=127.0.0.1", "CONVERSION_WEBHOOK_LISTEN_ADDRESS=127.0.0.1",
		"DEBUG_UNIX_SOCKET="+filepath.Join(tmp, "debug.socket"),
		"KUBE_CONFIG="+kubeconfig, "LOG_TYPE=json")
	return startLogged(t, cmd)
}

// realAnsibleOperator runs ansible-operator from the project directory, as
// its image does. Its proxy port (8888) and /tmp paths are fixed: one
// instance at a time.
func realAnsibleOperator(t *testing.T, dir, kubeconfig, _ string, _ client.Client) func() string {
	cmd := exec.Command(os.Getenv("OPCTL_ANSIBLE_OPERATOR"), "run", "--watches-file=./watches.yaml",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", freePort(t)),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", freePort(t)))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kubeconfig,
		"PATH="+os.Getenv("OPCTL_ANSIBLE_RUNNER_BIN_DIR")+":"+os.Getenv("PATH"),
		"PYTHONPATH="+os.Getenv("OPCTL_ANSIBLE_PYTHONPATH"),
		"ANSIBLE_COLLECTIONS_PATH="+os.Getenv("OPCTL_ANSIBLE_COLLECTIONS_PATH")+":/usr/share/ansible/collections:/usr/lib/python3/dist-packages",
		"ANSIBLE_FILTER_PLUGINS="+filepath.Join(dir, "filter_plugins"),
		"ANSIBLE_ROLES_PATH="+filepath.Join(dir, "roles"),
		"ANSIBLE_GATHERING=explicit")
	return startLogged(t, cmd)
}
