//go:build e2e

package cmd

// The e2e suite's imitations of the runtimes the generated projects target
// (the real ones cannot be installed here; make test-runtimes runs them).
// Each does what its runtime really does against the API server — the same
// requests, with the same account and the same validation — so a project
// the runtime would reject fails here too.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/python"
)

// runGoManager builds the generated manager and runs it as a process.
// Conflicts on status writes would show as "Reconciler error".
func runGoManager(t *testing.T, dir, kubeconfig, _ string) func() {
	execIn(t, dir, "go", "build", "-o", "bin/manager", "./cmd")
	cmd := exec.Command(filepath.Join(dir, "bin/manager"), "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return startProcess(t, cmd, "forbidden", "Reconciler error")
}

// startProcess runs a style's reconciler; at stop its output must contain
// none of forbidden (how the runtime reports a missing permission or an
// error).
func startProcess(t *testing.T, cmd *exec.Cmd, forbidden ...string) func() {
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), logs.String())
		}
		for _, f := range forbidden {
			assert.NotContains(t, logs.String(), f, "the reconciler's log")
		}
	}
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

// runShellOperatorHooks plays shell-operator v1.20 as the project's
// ServiceAccount: it asks each hook for its --config, fills every binding's
// snapshot from the API server (label selectors applied), runs the hook with
// a Synchronization context of its first binding carrying the snapshots it
// includes, and carries out every operation the hook writes as
// shell-operator's object patcher does (pkg/kube/object_patch/patch.go):
// CreateOrUpdate is Create, then on AlreadyExists Get and Update; MergePatch
// with subresource status patches status; all operations are applied and
// their errors collected.
func runShellOperatorHooks(t *testing.T, dir, kubeconfig, _ string) func() {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	hooks, err := filepath.Glob(filepath.Join(dir, "hooks", "*.sh"))
	require.NoError(t, err)
	require.NotEmpty(t, hooks)
	return repeat(t, func(ctx context.Context) error {
		for _, hook := range hooks {
			if err := runHookOnce(ctx, c, hook); err != nil {
				return err
			}
		}
		return nil
	})
}

type hookBinding struct {
	Name                 string                `json:"name"`
	APIVersion           string                `json:"apiVersion"`
	Kind                 string                `json:"kind"`
	LabelSelector        *metav1.LabelSelector `json:"labelSelector"`
	IncludeSnapshotsFrom []string              `json:"includeSnapshotsFrom"`
}

func runHookOnce(ctx context.Context, c client.Client, hook string) error {
	out, err := exec.CommandContext(ctx, hook, "--config").Output()
	if err != nil {
		return fmt.Errorf("%s --config: %w", hook, err)
	}
	var config struct {
		Kubernetes []hookBinding `json:"kubernetes"`
	}
	if err := json.Unmarshal(out, &config); err != nil {
		return fmt.Errorf("%s --config: %w", hook, err)
	}
	if len(config.Kubernetes) == 0 {
		return fmt.Errorf("%s --config: no kubernetes binding", hook)
	}
	snapshots := map[string][]any{}
	for _, b := range config.Kubernetes {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(b.APIVersion)
		list.SetKind(b.Kind + "List")
		var opts []client.ListOption
		if b.LabelSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(b.LabelSelector)
			if err != nil {
				return err
			}
			opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
		}
		if err := c.List(ctx, list, opts...); err != nil {
			return fmt.Errorf("binding %s: %w", b.Name, err)
		}
		items := []any{}
		for _, o := range list.Items {
			items = append(items, map[string]any{"object": o.Object})
		}
		snapshots[b.Name] = items
	}
	first := config.Kubernetes[0]
	included := map[string]any{}
	for _, name := range first.IncludeSnapshotsFrom {
		included[name] = snapshots[name]
	}
	bindingContext, err := json.Marshal([]any{map[string]any{"binding": first.Name, "type": "Synchronization",
		"objects": snapshots[first.Name], "snapshots": included}})
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
	var errs []error
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
		if err := shellOperatorOperation(ctx, c, op.Operation, op.APIVersion, op.Kind, op.Namespace, op.Name, op.Subresource, op.Object, op.MergePatch); err != nil {
			errs = append(errs, fmt.Errorf("%s %s %s: %w", op.Operation, op.Kind, op.Name, err))
		}
	}
	return errors.Join(errs...)
}

func shellOperatorOperation(ctx context.Context, c client.Client, operation, apiVersion, kind, ns, name, subresource string, object map[string]any, mergePatch json.RawMessage) error {
	switch operation {
	case "CreateOrUpdate":
		obj := &unstructured.Unstructured{Object: object}
		err := c.Create(ctx, obj.DeepCopy())
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			existing := &unstructured.Unstructured{}
			existing.SetGroupVersionKind(obj.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing); err != nil {
				return err
			}
			update := obj.DeepCopy()
			update.SetResourceVersion(existing.GetResourceVersion())
			return c.Update(ctx, update)
		})
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
	return fmt.Errorf("operation %q is not one opctl's hooks write", operation)
}

// runMetacontrollerHooks plays Metacontroller v4.17 (with its own cluster
// admin account): it serves the generated hook server on loopback and, for
// each CompositeController in config/metacontroller, validates it as
// Metacontroller does (pkg/controller/composite/controller.go: without
// generateSelector the parent needs a spec.selector), claims the children
// that match the selector and are controlled by the parent, posts the sync
// request, adds the controller-uid label to the desired children when the
// selector is generated and refuses children the selector would not match,
// applies them, and writes the returned status with observedGeneration.
func runMetacontrollerHooks(t *testing.T, dir, _, admin string) func() {
	cfg, err := clientcmd.BuildConfigFromFlags("", admin)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	controllers, err := filepath.Glob(filepath.Join(dir, "config/metacontroller/*.yaml"))
	require.NoError(t, err)
	var composite []*unstructured.Unstructured
	for _, f := range controllers {
		for _, o := range readObjects(t, f) {
			if o.GetKind() == "CompositeController" {
				composite = append(composite, o)
			}
		}
	}
	require.NotEmpty(t, composite, "no CompositeController in config/metacontroller")
	base, stopServer := startHookServer(t, dir)
	stopLoop := repeat(t, func(ctx context.Context) error {
		for _, cc := range composite {
			if err := syncOnce(ctx, c, base, cc); err != nil {
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
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	port := freePort(t)
	var logs bytes.Buffer
	server := exec.Command(pythonInterpreter(t), "-m", python.Package(p)+".server")
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

func resourceKind(c client.Client, apiVersion, resource string) (string, error) {
	gvk, err := c.RESTMapper().KindFor(schemaResource(apiVersion, resource))
	return gvk.Kind, err
}

func syncOnce(ctx context.Context, c client.Client, base string, cc *unstructured.Unstructured) error {
	parentAPIVersion, _, _ := unstructured.NestedString(cc.Object, "spec", "parentResource", "apiVersion")
	parentResource, _, _ := unstructured.NestedString(cc.Object, "spec", "parentResource", "resource")
	generateSelector, _, _ := unstructured.NestedBool(cc.Object, "spec", "generateSelector")
	hookURL, _, _ := unstructured.NestedString(cc.Object, "spec", "hooks", "sync", "webhook", "url")
	u, err := url.Parse(hookURL)
	if err != nil {
		return err
	}
	parentKind, err := resourceKind(c, parentAPIVersion, parentResource)
	if err != nil {
		return err
	}
	childRules, _, _ := unstructured.NestedSlice(cc.Object, "spec", "childResources")
	parents := &unstructured.UnstructuredList{}
	parents.SetAPIVersion(parentAPIVersion)
	parents.SetKind(parentKind + "List")
	if err := c.List(ctx, parents); err != nil {
		return err
	}
	for _, parent := range parents.Items {
		selector := labels.SelectorFromSet(labels.Set{"controller-uid": string(parent.GetUID())})
		if !generateSelector {
			ls := &metav1.LabelSelector{}
			raw, _, _ := unstructured.NestedMap(parent.Object, "spec", "selector")
			b, _ := json.Marshal(raw)
			_ = json.Unmarshal(b, ls)
			if len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0 {
				return fmt.Errorf("failed to sync %s '%s/%s': .spec.selector must have either matchLabels, matchExpressions, or both",
					parentKind, parent.GetNamespace(), parent.GetName())
			}
			if selector, err = metav1.LabelSelectorAsSelector(ls); err != nil {
				return err
			}
		}
		// Observed children, keyed as Metacontroller keys them: Kind.apiVersion, then name.
		observed := map[string]any{}
		for _, r := range childRules {
			rule := r.(map[string]any)
			apiVersion, resource := rule["apiVersion"].(string), rule["resource"].(string)
			kind, err := resourceKind(c, apiVersion, resource)
			if err != nil {
				return err
			}
			byName := map[string]any{}
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(apiVersion)
			list.SetKind(kind + "List")
			if err := c.List(ctx, list, client.InNamespace(parent.GetNamespace()), client.MatchingLabelsSelector{Selector: selector}); err != nil {
				return err
			}
			for _, child := range list.Items {
				if ref := metav1.GetControllerOf(&child); ref != nil && ref.UID == parent.GetUID() {
					byName[child.GetName()] = child.Object
				}
			}
			observed[kind+"."+apiVersion] = byName
		}
		body, err := json.Marshal(map[string]any{"controller": cc.Object,
			"parent": parent.Object, "children": observed, "finalizing": false})
		if err != nil {
			return err
		}
		resp, err := http.Post(base+u.Path, "application/json", bytes.NewReader(body))
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
		for _, obj := range response.Children {
			child := &unstructured.Unstructured{Object: obj}
			childLabels := child.GetLabels()
			if generateSelector {
				if childLabels == nil {
					childLabels = map[string]string{}
				}
				if _, ok := childLabels["controller-uid"]; !ok {
					childLabels["controller-uid"] = string(parent.GetUID())
					child.SetLabels(childLabels)
				}
			}
			if !selector.Matches(labels.Set(childLabels)) {
				return fmt.Errorf("labels on desired child %s %s/%s don't match parent selector", child.GetKind(), child.GetNamespace(), child.GetName())
			}
			if err := applyAsMetacontroller(ctx, c, child); err != nil {
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

// lastAppliedAnnotation is where Metacontroller keeps what it last applied.
const lastAppliedAnnotation = "metacontroller.k8s.io/last-applied-configuration"

// applyAsMetacontroller creates a child, or updates it in place as
// Metacontroller's dynamic apply does (pkg/controller/common: a three-way
// merge of what it last applied, what it applies now and what the API server
// has, so fields it stops applying are removed), recording what it applied
// in an annotation; nothing is written when nothing differs.
func applyAsMetacontroller(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	desired := obj.DeepCopy()
	delete(desired.Object, "status")
	applied, err := json.Marshal(desired.Object)
	if err != nil {
		return err
	}
	annotations := desired.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[lastAppliedAnnotation] = string(applied)
	desired.SetAnnotations(annotations)
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(obj.GroupVersionKind())
	err = c.Get(ctx, client.ObjectKeyFromObject(obj), current)
	if apierrors.IsNotFound(err) {
		return c.Create(ctx, desired)
	}
	if err != nil {
		return err
	}
	modified, err := json.Marshal(desired.Object)
	if err != nil {
		return err
	}
	currentJSON, err := json.Marshal(current.Object)
	if err != nil {
		return err
	}
	var original []byte
	if last, ok := current.GetAnnotations()[lastAppliedAnnotation]; ok {
		original = []byte(last)
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, currentJSON)
	if err != nil || string(patch) == "{}" {
		return err
	}
	return c.Patch(ctx, current, client.RawPatch(types.MergePatchType, patch))
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xa, yb any
	_ = json.Unmarshal(x, &xa)
	_ = json.Unmarshal(y, &yb)
	return reflect.DeepEqual(xa, yb)
}

// k8sStatusStandIn stands in for operator_sdk.util.k8s_status (0.5.0),
// which cannot be installed here. It makes the module's requests: get the
// object, merge the given status over it (conditions by type, kept when
// they did not transition), and when that changes anything, merge-patch the
// status subresource; conditions given as the `conditions` parameter are
// validated (known keys only) as the module does.
const k8sStatusStandIn = `#!/usr/bin/python3
import copy, os
from ansible.module_utils.basic import AnsibleModule
from kubernetes import config, dynamic
from kubernetes.client import api_client

KEYS = {"type", "status", "reason", "message", "lastHeartbeatTime", "lastTransitionTime"}


def contains(obj, sub):
    if isinstance(sub, dict):
        return isinstance(obj, dict) and all(k in obj and contains(obj[k], v) for k, v in sub.items())
    return obj == sub


def main():
    m = AnsibleModule(argument_spec=dict(api_version=dict(required=True), kind=dict(required=True),
                                         name=dict(required=True), namespace=dict(), status=dict(type="dict"),
                                         conditions=dict(type="list", elements="dict"),
                                         replace=dict(type="bool", default=False),
                                         replace_lists=dict(type="bool", default=False)))
    status = dict(m.params["status"] or {})
    for c in m.params["conditions"] or []:
        unknown = set(c) - KEYS
        if unknown:
            m.fail_json(msg="The specified conditions failed to validate", error="unknown keys %s" % sorted(unknown))
    if m.params["conditions"]:
        status["conditions"] = m.params["conditions"]
    config.load_kube_config(os.environ.get("K8S_AUTH_KUBECONFIG"))
    res = dynamic.DynamicClient(api_client.ApiClient()).resources.get(api_version=m.params["api_version"], kind=m.params["kind"])
    instance = res.get(name=m.params["name"], namespace=m.params["namespace"]).to_dict()
    old = instance.get("status") or {}
    new = copy.deepcopy(status)
    if old.get("conditions") and new.get("conditions"):
        merged = copy.deepcopy(old["conditions"])
        for cond in new["conditions"]:
            idx = next((i for i, c in enumerate(merged) if c.get("type") == cond["type"]), None)
            if idx is None:
                merged.append(cond)
            elif any(k != "lastTransitionTime" and v != merged[idx].get(k) for k, v in cond.items()):
                merged[idx] = cond
        new["conditions"] = merged
    if contains(old, new):
        m.exit_json(changed=False)
    instance["status"] = new
    try:
        res.status.patch(body=instance, content_type="application/merge-patch+json")
    except Exception as e:
        m.fail_json(msg="Failed to replace status: %s" % e)
    m.exit_json(changed=True)


main()
`

// ownerInjectingProxy stands between the role and the API server as the
// Ansible Operator's proxy does (internal/ansible/proxy/inject_owner.go):
// it authenticates as the ServiceAccount and appends an ownerReference to
// the object being reconciled (apiVersion, kind, name, uid; not a
// controller reference) to every object the role creates with a POST.
type ownerInjectingProxy struct {
	mu    sync.Mutex
	owner *metav1.OwnerReference
}

func (p *ownerInjectingProxy) setOwner(o *unstructured.Unstructured) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.owner = &metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID()}
}

func (p *ownerInjectingProxy) start(t *testing.T, cfg *rest.Config) (kubeconfig string) {
	transport, err := rest.TransportFor(cfg)
	require.NoError(t, err)
	target, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && isCreate(r.URL.Path) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			obj := &unstructured.Unstructured{}
			if err := json.Unmarshal(body, &obj.Object); err == nil {
				p.mu.Lock()
				if p.owner != nil {
					obj.SetOwnerReferences(append(obj.GetOwnerReferences(), *p.owner))
				}
				p.mu.Unlock()
				body, _ = json.Marshal(obj.Object)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server.URL}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	path := filepath.Join(t.TempDir(), "proxy-kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// isCreate reports whether a POST path creates a namespaced object (not a
// subresource): /api/v1/namespaces/NS/RESOURCE or
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE.
func isCreate(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 5 && parts[0] == "api" && parts[2] == "namespaces":
		return true
	case len(parts) == 6 && parts[0] == "apis" && parts[3] == "namespaces":
		return true
	}
	return false
}

// runAnsibleRole runs the generated role with ansible-playbook, as the
// Ansible operator would, for every object of the kind, again and again,
// through ownerInjectingProxy, with status written by k8sStatusStandIn; at
// the end the last run of each object must have changed nothing.
func runAnsibleRole(t *testing.T, dir, kubeconfig, _ string) func() {
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		t.Fatal("ansible-playbook not found: install ansible (Debian package; it ships kubernetes.core)")
	}
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	injector := &ownerInjectingProxy{}
	proxied := injector.start(t, cfg)
	collections := t.TempDir()
	module := filepath.Join(collections, "ansible_collections/operator_sdk/util/plugins/modules/k8s_status.py")
	require.NoError(t, os.MkdirAll(filepath.Dir(module), 0o755))
	require.NoError(t, os.WriteFile(module, []byte(k8sStatusStandIn), 0o755))

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
					injector.setOwner(&o)
					cmd := exec.CommandContext(ctx, "ansible-playbook", "playbooks/local-"+a.Singular()+".yml",
						"-e", "cr_name="+o.GetName(), "-e", "cr_namespace="+o.GetNamespace(), "-e", "opctl_write_status=true")
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "K8S_AUTH_KUBECONFIG="+proxied, "ANSIBLE_NOCOLOR=1",
						"ANSIBLE_COLLECTIONS_PATH="+collections+":/usr/share/ansible/collections:/usr/lib/python3/dist-packages")
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

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// schemaResource names a resource of an apiVersion ("apps/v1", "v1").
func schemaResource(apiVersion, resource string) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithResource(resource)
}
