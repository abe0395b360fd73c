// Package shelloperator is the shell-operator style: bash and jq hooks run by
// shell-operator.
package shelloperator

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

//go:embed all:templates
var files embed.FS

// Style is the shell-operator style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name:            "shell-operator",
		Pins:            []string{"certManager", "devContainerBase", "shellOperatorImage"},
		Ownership:       "the operator's code sets each child's controller ownerReference; a child it no longer wants stays until you delete it",
		Finalizers:      "none: shell-operator cannot hold a deletion (a finalizer would be yours to add and remove)",
		ConformanceTest: "bash tests/test_conformance.sh",
		Checklist: checklist.Profile{
			Languages: []checklist.Language{checklist.Language{Value: "shell", Label: "shell and kubectl", Reason: "a shell/kubectl team with small automations: a style of shell hooks"}},
			Comparison: checklist.Comparison{Language: "bash + jq", LearningCurve: "gentle for shell users",
				Expressiveness: "limited: scripts and kubectl-style patches", Performance: "light: a Go runner executing hooks",
				Idempotency: "you: hooks must tolerate replays of every binding context",
				Maturity:    "mature (Flant, used by Deckhouse)", BestFit: "small automations by ops teams"},
			Points:           map[string]int{"new-crd=no": 4, "stage=prototype": 1, "language=shell": 4, "logic=imperative": 1},
			MaintainerPoints: map[string]int{"shell": 4},
			Reasons: map[string]string{
				"new-crd=no":     "no new CRD: shell-operator hooks react to built-in resources with the least machinery",
				"language=shell": "a shell/kubectl team with small automations: shell-operator runs bash hooks",
			},
		},
		Summary: "bash hooks run by shell-operator: small automations for shell and kubectl teams",
		Access: scaffold.Access{
			Parent: []string{"get", "list", "watch"},
			Status: []string{"patch"},
			// The children's controller reference blocks the owner's
			// deletion, which needs update on its finalizers where the
			// OwnerReferencesPermissionEnforcement admission plugin runs.
			Finalizers: []string{"update"},
			// The hooks watch the children (snapshots); shell-operator's
			// CreateOrUpdate creates, and on AlreadyExists gets and updates
			// (pkg/kube/object_patch/patch.go).
			Child: func(api.ChildKind) []string { return []string{"create", "delete", "get", "list", "update", "watch"} },
			// A watch hook's Events are Create operations.
			Events: []string{"create"},
			// A binding's namespace.nameSelector.matchNames makes an
			// informer per named namespace
			// (pkg/kube_events_manager/monitor.go, CreateInformers).
			WatchesInNamespace: true,
		},
		Webhooks: true,
		Watches:  true,
		Runtime: func(p scaffold.Project) scaffold.Runtime {
			rt := scaffold.Runtime{
				Env: []corev1.EnvVar{{Name: "LOG_TYPE", Value: "json"},
					// The object patcher, which writes every child and
					// status, has a client of its own at 5 requests a second
					// (burst 10) by default: 1000 objects took over 10
					// minutes on it (docs/runtime-costs.md in opctl).
					{Name: "OBJECT_PATCHER_KUBE_CLIENT_QPS", Value: "50"},
					{Name: "OBJECT_PATCHER_KUBE_CLIENT_BURST", Value: "100"}},
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9115, Protocol: corev1.ProtocolTCP}},
				Metrics:       &scaffold.Metrics{Port: 9115},
				HealthPort:    9115,
				LivenessPath:  "/metrics",
				ReadinessPath: "/metrics",
				WritableDirs:  []string{"/tmp"},
			}
			if p.Admits() {
				// shell-operator writes the webhook configurations (named
				// <project>-hooks) for the Service, and serves them on 9680
				// with the certificate in /validating-certs.
				rt.Webhook = &scaffold.WebhookServer{Port: 9680, CertDir: "/validating-certs", Registers: true}
				rt.Env = append(rt.Env,
					corev1.EnvVar{Name: "VALIDATING_WEBHOOK_CONFIGURATION_NAME", Value: p.Name},
					corev1.EnvVar{Name: "VALIDATING_WEBHOOK_SERVICE_NAME", Value: render.WebhookServiceName(p)})
			}
			if p.Converts() {
				// shell-operator points each CRD at /<CRD name> of the Service
				// (pkg/webhook/conversion), serves it on 9681 with the
				// certificate in /conversion-certs and chains the hooks' steps.
				rt.Conversion = &scaffold.ConversionServer{
					Own:  &scaffold.WebhookServer{Port: 9681, CertDir: "/conversion-certs", Registers: true},
					Path: func(crd string) string { return "/" + crd },
				}
				rt.Env = append(rt.Env, corev1.EnvVar{Name: "CONVERSION_WEBHOOK_SERVICE_NAME", Value: render.ConversionServiceName(p)})
			}
			if p.Webhooks() {
				// The namespace of the Services it names.
				rt.Env = append(rt.Env, corev1.EnvVar{Name: "SHELL_OPERATOR_NAMESPACE", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}})
			}
			return rt
		},
		Files: shellOperatorFiles,
		CI: func(p scaffold.Project) scaffold.CI {
			return scaffold.CI{
				Setup:    []scaffold.CIStep{{Name: "Install jq, yq and shellcheck", Run: "sudo apt-get update && sudo apt-get install -y jq yq shellcheck"}},
				Targets:  []string{"test", "lint"},
				DevImage: p.Versions.DevContainerBase,
			}
		},
	}
}

// shellAPI is the template data of one kind in the shell-operator style.
type shellAPI struct {
	api.API
	jqTemplated
	FullGroup         string
	Hook              string // hook file name without .sh: 10-databases
	ChildBindingsJSON string // names of the children's bindings, as JSON
	Config            string // what the hook prints for --config
	PrintConfig       string // the command that prints it (configPrinter)
}

// shellChildData is the template data of one child's template: its kind's
// and its own.
type shellChildData struct {
	shellAPI
	Child jqChild
}

// hookConfig is the part of shell-operator's configVersion v1 hook
// configuration that opctl writes.
type hookConfig struct {
	ConfigVersion string              `json:"configVersion"`
	Kubernetes    []kubernetesBinding `json:"kubernetes"`
	Schedule      []scheduleBinding   `json:"schedule,omitempty"`
}

type kubernetesBinding struct {
	Name                         string                `json:"name"`
	APIVersion                   string                `json:"apiVersion"`
	Kind                         string                `json:"kind"`
	Namespace                    *namespaceSelector    `json:"namespace,omitempty"`
	LabelSelector                *metav1.LabelSelector `json:"labelSelector,omitempty"`
	ExecuteHookOnEvent           []string              `json:"executeHookOnEvent"`
	ExecuteHookOnSynchronization bool                  `json:"executeHookOnSynchronization"`
	JQFilter                     string                `json:"jqFilter,omitempty"`
	snapshotGroup
	failureIsolation
}

// namespaceSelector narrows a binding to namespaces by name.
type namespaceSelector struct {
	NameSelector struct {
		MatchNames []string `json:"matchNames"`
	} `json:"nameSelector"`
}

type scheduleBinding struct {
	Name    string `json:"name"`
	Crontab string `json:"crontab"`
	snapshotGroup
	failureIsolation
}

// snapshotGroup puts a kind's bindings in one group: every run gets the
// snapshot of each binding of the group and no object of its own, so the
// runs queued meanwhile are compacted into one (shell-operator's
// CombineBindingContextForHook keeps the last of a group). Without it each
// queued event keeps a binding context carrying every snapshot, and one
// run reads all of them: N events of N objects hold N squared objects
// (13 GiB at 1000 Databases, docs/runtime-costs.md).
type snapshotGroup struct {
	Group string `json:"group,omitempty"`
}

// failureIsolation keeps one kind's failing run from delaying others: each
// kind has a queue of its own, where a failed run is retried (shell-operator
// applies every operation of a run, so the other objects of the kind
// converge in the same run, and each retry reconciles every object of the
// kind's fresh snapshot).
type failureIsolation struct {
	Queue string `json:"queue"`
}

// childBinding names the binding that watches one owned kind of a.
func childBinding(a api.API, c api.ChildKind) string { return a.Plural + "-" + c.Resource }

// newHookConfig watches the kind (changes of its spec and labels only: the
// jqFilter keeps status writes from running the hook again) and each owned
// kind, narrowed to this kind's children by their labels, all in one group
// so that every run sees the objects and their children as they are.
func newHookConfig(p scaffold.Project, a api.API) hookConfig {
	group := snapshotGroup{Group: a.Plural}
	isolated := failureIsolation{Queue: a.Plural}
	cfg := hookConfig{ConfigVersion: "v1", Kubernetes: []kubernetesBinding{{
		Name: a.Plural, APIVersion: a.FullGroup(p.Domain) + "/" + a.Version, Kind: a.Kind,
		ExecuteHookOnEvent: []string{"Added", "Modified"}, ExecuteHookOnSynchronization: true,
		JQFilter: "{spec: .spec, labels: .metadata.labels}", snapshotGroup: group, failureIsolation: isolated,
	}}}
	for _, c := range a.OwnedKinds() {
		cfg.Kubernetes = append(cfg.Kubernetes, kubernetesBinding{
			Name: childBinding(a, c), APIVersion: c.APIVersion(), Kind: c.Kind,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				"app.kubernetes.io/name": a.Singular(), "app.kubernetes.io/managed-by": p.Name}},
			ExecuteHookOnEvent:           []string{"Added", "Modified", "Deleted"},
			ExecuteHookOnSynchronization: true,
			snapshotGroup:                group,
			failureIsolation:             isolated,
		})
	}
	// A resync, as the other runtimes have: every object is checked against
	// its children every minute. shell-operator has been seen to miss a
	// child's deletion event under load (docs/real-runtimes.md); this
	// repairs it within a minute.
	cfg.Schedule = []scheduleBinding{{Name: a.Plural + "-drift-check", Crontab: "* * * * *", snapshotGroup: group, failureIsolation: isolated}}
	return cfg
}

// configPrinter is the command a hook prints its configuration with, from
// a heredoc: as written, or in a namespace-scoped project with every
// binding narrowed to the namespace the Deployment runs in, which the hook
// learns only when it runs.
func configPrinter(p scaffold.Project) string {
	if !p.NamespaceScoped() {
		return "cat"
	}
	return `jq --arg ns "${` + scaffold.WatchNamespaceEnv + `:?is not set: the operator watches one namespace (scope: namespace in opctl.yaml)}" '.kubernetes[].namespace = {nameSelector: {matchNames: [$ns]}}'`
}

// watchConfig watches the target's objects where the watch looks, each
// appearing or changing object running the hook. The watch has a queue of
// its own, where a failed run is retried: the handler's work is not done
// until it succeeds.
func watchConfig(w scaffold.Watch) hookConfig {
	b := kubernetesBinding{Name: w.Name, APIVersion: w.Target.APIVersion, Kind: w.Target.Kind,
		ExecuteHookOnEvent: []string{"Added", "Modified"}, ExecuteHookOnSynchronization: true,
		failureIsolation: failureIsolation{Queue: "watch-" + w.Name}}
	if w.Namespace != "" {
		b.Namespace = &namespaceSelector{}
		b.Namespace.NameSelector.MatchNames = []string{w.Namespace}
	}
	if len(w.Selector) > 0 {
		b.LabelSelector = &metav1.LabelSelector{MatchLabels: w.Selector}
	}
	return hookConfig{ConfigVersion: "v1", Kubernetes: []kubernetesBinding{b}}
}

// shellWatch is the template data of a watch's hook and handler.
type shellWatch struct {
	scaffold.WatchIn
	Project         scaffold.Project
	Handler, Config string
	PrintConfig     string // configPrinter
	Reason          string
}

// addWatchHooks adds each watch's hook, the library it shares, the user's
// handler and the hook's fixtures.
func addWatchHooks(p scaffold.Project, r *machinery.Renderer, t *machinery.Tree) error {
	if len(p.Watches) == 0 {
		return nil
	}
	r.File("hooks/lib/watch.sh", "hooks/lib/watch.sh.tmpl", machinery.Generated, shellWatch{Project: p, Reason: render.WatchHandledReason})
	for _, w := range p.Watches {
		config, err := json.MarshalIndent(watchConfig(w), "", "  ")
		if err != nil {
			return err
		}
		d := shellWatch{WatchIn: p.WatchIn(w), Project: p, Handler: "handle-" + w.Name + ".sh", Config: string(config), PrintConfig: configPrinter(p)}
		hook := "hooks/watch-" + w.Name + ".sh"
		r.File(hook, "hooks/watch.sh.tmpl", machinery.Generated, d)
		r.Chmod(hook, 0o755)
		r.File("hooks/lib/"+d.Handler, "hooks/lib/handler.sh.tmpl", machinery.UserOwned, d)
		r.Chmod("hooks/lib/"+d.Handler, 0o755)
		if err := addWatchFixtures(p, w, t); err != nil {
			return err
		}
	}
	return r.Err()
}

// addWatchFixtures writes binding contexts for a watch hook and the
// operations it writes for them with the starter handler: an Event per
// object handled.
func addWatchFixtures(p scaffold.Project, w scaffold.Watch, t *machinery.Tree) error {
	object := func(name, uid, rv string) map[string]any { return render.WatchFixture(w, name, uid, rv) }
	first := object("first", "00000000-0000-4000-8000-000000000001", "41")
	second := object("second", "00000000-0000-4000-8000-000000000002", "42")
	changed := object("first", "00000000-0000-4000-8000-000000000001", "43")
	event := func(watch string, o map[string]any) map[string]any {
		return map[string]any{"binding": w.Name, "type": "Event", "watchEvent": watch, "object": o}
	}
	cases := []struct {
		name     string
		contexts []map[string]any
		handled  []map[string]any
	}{
		{"synchronization", []map[string]any{{"binding": w.Name, "type": "Synchronization",
			"objects": []any{map[string]any{"object": first}, map[string]any{"object": second}}}}, []map[string]any{first, second}},
		{"added", []map[string]any{event("Added", first)}, []map[string]any{first}},
		// Queued events in one run: the newest copy of an object is handled
		// once, a deletion needs nothing.
		{"combined", []map[string]any{event("Added", first), event("Deleted", second), event("Modified", changed)}, []map[string]any{changed}},
	}
	for _, c := range cases {
		ops := []any{}
		for _, o := range c.handled {
			ops = append(ops, watchEventOperation(p, o))
		}
		if err := addFixture(t, "watch-"+w.Name, c.name, c.contexts, ops); err != nil {
			return err
		}
	}
	return nil
}

// addFixture writes a watch hook's test case: the binding contexts it runs
// with and the operations it must write. They are the user's: the Events
// hold the message of the user's handler, which the user changes.
func addFixture(t *machinery.Tree, hook, name string, contexts, ops any) error {
	for path, v := range map[string]any{
		"tests/fixtures/" + hook + "--" + name + ".json": contexts,
		"tests/expected/" + hook + "--" + name + ".json": ops,
	} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := t.Add(machinery.File{Path: path, Content: append(b, '\n'), Owner: machinery.UserOwned}); err != nil {
			return err
		}
	}
	return nil
}

// watchEventOperation is the Create of the Normal Event the watch hook
// records on an object the starter handler handled.
func watchEventOperation(p scaffold.Project, o map[string]any) map[string]any {
	meta := o["metadata"].(map[string]any)
	involved := map[string]any{"apiVersion": o["apiVersion"], "kind": o["kind"], "name": meta["name"], "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]}
	ns := "default"
	if v, ok := meta["namespace"].(string); ok {
		ns, involved["namespace"] = v, v
	}
	return map[string]any{"operation": "Create", "object": map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"generateName": fmt.Sprint(meta["name"], "."), "namespace": ns},
		"involvedObject": involved, "reason": render.WatchHandledReason, "message": scaffold.WatchMessage(o), "type": "Normal",
		"source": map[string]any{"component": p.Name}, "firstTimestamp": fixtureNow, "lastTimestamp": fixtureNow, "count": 1,
	}}
}

// admissionConfig is the configuration of an admission hook: one
// kubernetesValidating or kubernetesMutating binding.
type admissionConfig struct {
	ConfigVersion string             `json:"configVersion"`
	Validating    []admissionBinding `json:"kubernetesValidating,omitempty"`
	Mutating      []admissionBinding `json:"kubernetesMutating,omitempty"`
}

type admissionBinding struct {
	Name           string                           `json:"name"`
	Rules          []admissionv1.RuleWithOperations `json:"rules"`
	FailurePolicy  admissionv1.FailurePolicyType    `json:"failurePolicy"`
	SideEffects    admissionv1.SideEffectClass      `json:"sideEffects"`
	TimeoutSeconds int32                            `json:"timeoutSeconds"`
}

// shellAdmission is the template data of a kind's admission hooks and
// their test.
type shellAdmission struct {
	shellAPI
	MaxNameLength         int
	NameTooLong           string
	DefaultedLabel        string
	DefaultedLabelPointer string // the label's key in a JSON pointer
	Op                    string // validate or default
}

// addAdmissionHooks adds the kind's validating and defaulting hooks and
// their tests, a file each (so that adding one later adds its files).
func addAdmissionHooks(p scaffold.Project, r *machinery.Renderer, sa shellAPI) error {
	a := sa.API
	scope := admissionv1.ClusterScope
	if a.Namespaced {
		scope = admissionv1.NamespacedScope
	}
	binding := func(prefix string) []admissionBinding {
		return []admissionBinding{{Name: a.WebhookName(p.Domain, prefix), Rules: []admissionv1.RuleWithOperations{{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
			Rule: admissionv1.Rule{APIGroups: []string{sa.FullGroup}, APIVersions: []string{a.Version},
				Resources: []string{a.Plural}, Scope: &scope},
		}}, FailurePolicy: admissionv1.Fail, SideEffects: admissionv1.SideEffectClassNone, TimeoutSeconds: 10}}
	}
	d := shellAdmission{shellAPI: sa, MaxNameLength: api.MaxNameLength, NameTooLong: a.NameTooLong(),
		DefaultedLabel: scaffold.DefaultedLabel, DefaultedLabelPointer: strings.ReplaceAll(scaffold.DefaultedLabel, "/", "~1")}
	for _, op := range []struct {
		on   bool
		name string
		cfg  admissionConfig
	}{
		{a.Admission.Validate, "validate", admissionConfig{ConfigVersion: "v1", Validating: binding("v")}},
		{a.Admission.Default, "default", admissionConfig{ConfigVersion: "v1", Mutating: binding("m")}},
	} {
		if !op.on {
			continue
		}
		b, err := json.MarshalIndent(op.cfg, "", "  ")
		if err != nil {
			return err
		}
		hook := d
		hook.Config, hook.Op = string(b), op.name
		file := "hooks/" + sa.Hook + "-" + op.name + ".sh"
		r.File(file, "hooks/"+op.name+".sh.tmpl", machinery.UserOwned, hook)
		r.Chmod(file, 0o755)
		test := "tests/test_admission_" + a.Plural + "_" + op.name + ".sh"
		r.File(test, "tests/test_admission.sh.tmpl", machinery.UserOwned, hook)
		r.Chmod(test, 0o755)
	}
	return r.Err()
}

// HookName numbers hooks in steps of ten, in the order kinds were added.
func HookName(i int, a api.API) string { return fmt.Sprintf("%02d-%s", 10*(i+1), a.Plural) }

// The project's files, and those it has once it has kinds.
var (
	projectFiles = []machinery.Template{
		machinery.UserFile("Dockerfile", "Dockerfile.tmpl"),
		machinery.UserFile("Makefile", "Makefile.tmpl"),
		machinery.UserFile("README.md", "README.md.tmpl"),
		machinery.UserFile(".gitignore", "gitignore.tmpl"),
		machinery.UserFile(".shellcheckrc", "shellcheckrc.tmpl"),
		machinery.GeneratedFile("tests/test_hooks.sh", "tests/test_hooks.sh.tmpl").Executable(),
	}
	reconcileFiles = []machinery.Template{
		machinery.GeneratedFile("hooks/lib/children.sh", "hooks/lib/children.sh.tmpl"),
		machinery.GeneratedFile("hooks/lib/children.jq", "hooks/lib/children.jq.tmpl"),
		machinery.GeneratedFile("hooks/lib/reconcile.jq", "hooks/lib/reconcile.jq.tmpl"),
		machinery.GeneratedFile("tests/test_conformance.sh", "tests/test_conformance.sh.tmpl").Executable(),
	}
)

func shellOperatorFiles(p scaffold.Project, t *machinery.Tree) error {
	d := struct {
		Project scaffold.Project
		V       pins.Versions
		APIs    []shellAPI
		// Keeps: some kind keeps the fields a version removed.
		Keeps bool
	}{Project: p, V: p.Versions, Keeps: slices.ContainsFunc(p.APIs, api.API.KeepsRemoved)}
	for i, a := range p.APIs {
		cfg := newHookConfig(p, a)
		configJSON, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			return err
		}
		bindings := []string{}
		for _, b := range cfg.Kubernetes[1:] {
			bindings = append(bindings, b.Name)
		}
		childBindingsJSON, _ := json.Marshal(bindings)
		d.APIs = append(d.APIs, shellAPI{API: a, jqTemplated: newJQTemplated(a), FullGroup: a.FullGroup(p.Domain), Hook: HookName(i, a),
			ChildBindingsJSON: string(childBindingsJSON), Config: string(configJSON), PrintConfig: configPrinter(p)})
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"))
	r.Files(d, projectFiles...)
	if len(p.APIs) > 0 {
		r.Files(d, reconcileFiles...)
	}
	if p.Converts() {
		r.Files(d, machinery.GeneratedFile("hooks/lib/conversion.jq", "hooks/lib/conversion.jq.tmpl"))
	}
	for _, sa := range d.APIs {
		r.Files(sa, machinery.GeneratedFile("hooks/{{.Hook}}.sh", "hooks/hook.sh.tmpl").Executable())
		if sa.Workloads {
			r.Files(sa, machinery.UserFile("hooks/lib/{{.Plural}}/pod.jq", "hooks/children/pod.jq.tmpl"))
		}
		for _, c := range sa.Children {
			r.File("hooks/"+c.Module+".jq", "hooks/children/"+c.Shape()+".jq.tmpl", machinery.UserOwned, shellChildData{sa, c})
		}
		if sa.StatusModule != "" {
			r.Files(sa, machinery.UserFile("hooks/{{.StatusModule}}.jq", "hooks/status.jq.tmpl"))
		}
		if sa.Admission != nil {
			if err := addAdmissionHooks(p, r, sa); err != nil {
				return err
			}
		}
		if sa.Converts() {
			if err := addConversion(p, r, sa); err != nil {
				return err
			}
		}
	}
	if err := addWatchHooks(p, r, t); err != nil {
		return err
	}
	return r.Err()
}

// fixtureNow is the clock the hook tests run with.
const fixtureNow = "2025-01-01T00:00:00Z"
