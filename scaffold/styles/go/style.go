// Package golang is the go style: controller-runtime in the kubebuilder go/v4
// layout.
package golang

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

//go:embed all:templates
var files embed.FS

// Style is the go style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name: "go",
		Pins: []string{"actionsCache", "actionsGolangciLint", "actionsSetupGo", "certManager", "controllerRuntime", "controllerTools", "devContainerGo",
			"distrolessImage", "etcd", "go", "goBuilderImage", "golangciLint", "kubeAPIServer", "kubernetes", "sigsYAML"},
		Summary: "Go with controller-runtime in the kubebuilder go/v4 layout: typed, fast, for large long-lived operators",
		Checklist: checklist.Profile{
			Languages: []checklist.Language{checklist.Language{Value: "go", Label: "Go", Reason: "a Go team: a style in Go is native to it"}},
			Comparison: checklist.Comparison{Language: "Go", LearningCurve: "steep: controller-runtime, informers, typed clients",
				Expressiveness: "anything", Performance: "best: one static binary, shared caches",
				Idempotency: "you: reconcile must be idempotent (CreateOrUpdate helps)",
				Maturity:    "highest: kubebuilder, operator-sdk, most production operators",
				BestFit:     "large, long-lived, performance-sensitive operators"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -1, "scale=small": 1, "scale=large": 3,
				"language=go": 4, "logic=declarative": -1, "logic=imperative": 2},
			Reasons: map[string]string{
				"new-crd=yes":      "a new API: the go style scaffolds the CRD with its Go types and deep copies",
				"scale=large":      "large or long-lived: a compiled, typed controller-runtime operator has the lowest footprint and the richest tooling",
				"language=go":      "a Go team: controller-runtime is native to it",
				"logic=imperative": "imperative steps, state machines and external calls: a controller-runtime reconcile loop takes any Go code",
			},
			MaintainerPoints: map[string]int{"go": 4},
		},
		ModulePath: true,
		TypesFile:  goTypesFile,
		// Quantities and durations are resource.Quantity and
		// metav1.Duration fields.
		CanonicalValues: true,
		Ownership:       "the operator's code sets each child's controller ownerReference; a child it no longer wants stays until you delete it",
		Finalizers:      "only one your code adds (controllerutil.AddFinalizer)",
		ConformanceTest: "$(GO) test -count=1 -run '^TestConformance$$' ./internal/controller/",
		Access: scaffold.Access{
			Parent: []string{"get", "list", "watch"},
			// Status is merge-patched, so that a concurrent change is no conflict.
			Status:     []string{"patch"},
			Finalizers: []string{"update"},
			// Children are server-side applied: a patch, which creates a
			// missing child (the API server asks for create then); the
			// controller caches them.
			Child: func(api.ChildKind) []string { return []string{"create", "delete", "get", "list", "patch", "watch"} },
			// A watch's handler records Events with the events.k8s.io API.
			Events: []string{"create", "patch"}, EventsGroup: "events.k8s.io",
			// A watch lists its target through a cache of its own, narrowed
			// to the watch's namespace (watch_<name>.go).
			WatchesInNamespace: true,
		},
		LeaderElection: true,
		Webhooks:       true,
		Watches:        true,
		Runtime: func(p scaffold.Project) scaffold.Runtime {
			rt := scaffold.Runtime{
				Command:       []string{"/manager"},
				Args:          []string{"--health-probe-bind-address=:8081", "--metrics-bind-address=:8443"},
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8443, Protocol: corev1.ProtocolTCP}},
				Metrics:       &scaffold.Metrics{Port: 8443, Secure: true},
				HealthPort:    8081,
				LivenessPath:  "/healthz",
				ReadinessPath: "/readyz",
				// cmd/main.go's flag; the lease Role is there (LeaderElection).
				LeaderElectionArgs: []string{"--leader-elect"},
			}
			if p.Webhooks() {
				// controller-runtime's default port and certificate directory,
				// which cmd/main.go's --webhook-port and --webhook-cert-path keep.
				rt.Webhook = &scaffold.WebhookServer{Port: 9443, CertDir: "/tmp/k8s-webhook-server/serving-certs"}
			}
			if p.Converts() {
				// The webhook server converts too, at controller-runtime's path.
				rt.Conversion = &scaffold.ConversionServer{Path: func(string) string { return "/convert" }}
			}
			return rt
		},
		Files: goFiles,
		CI: func(p scaffold.Project) scaffold.CI {
			v := p.Versions
			return scaffold.CI{
				Setup: []scaffold.CIStep{
					{Name: "Set up Go", Uses: v.ActionsSetupGo, With: map[string]string{"go-version-file": "go.mod"}},
					// make test builds kube-apiserver and etcd from source once
					// (about ten minutes): keep them between runs.
					{Name: "Cache the API-server binaries", Uses: v.ActionsCache,
						With: map[string]string{"path": "~/.cache/opctl/" + v.EnvtestDir(), "key": v.EnvtestDir()}},
					{Name: "Lint", Uses: v.ActionsGolangciLint, With: map[string]string{"version": v.GolangciLint}},
				},
				Targets:  []string{"test"},
				DevImage: v.DevContainerGo,
			}
		},
	}
}

// goAPI is the template data of one kind in the go style.
type goAPI struct {
	api.API
	FullGroup    string
	Version      string
	Import       string // Go import path of the api.API package
	Alias        string // import alias: <group><version>, dots and dashes removed
	Structs      []goStruct
	StatusStruct goStruct
	// StatusFields are the kind's status fields beyond observedGeneration
	// and conditions (in StatusStruct too).
	StatusFields []goField
	// ScaleRequired: the field the scale subresource scales is required
	// (a value, not a pointer).
	ScaleRequired bool
	// Named are the named types of items with modifiers of their own.
	Named       []goNamed
	Markers     []string
	RBACMarkers []string
	// TypeImports are the packages the types name.
	TypeImports []goImport
	SamplePath  string
	ProjectName string
	// Var names the kind's object in its builders (goVar); Children are
	// the builders of its owned kinds.
	Var       string
	Children  []goChild
	Workloads bool
	// Conv are its conventional fields; DataText the ConfigMap's and
	// Secret's data, EnvText the workloads' SPEC_ variables; ContainerPort
	// and Replicas the conventions' int32 values, Resources the container's
	// requests and limits.
	Conv          api.ConventionsOf[goLeaf]
	DataText      goMapLines
	EnvText       goMapLines
	ContainerPort goInt32
	Replicas      goInt32
	Resources     []goResources
	// The kind's admission webhooks (when it has Admission).
	ValidatingPath, MutatingPath string
	ValidatingName, MutatingName string
	NameTooLongDetail            string
	MaxNameLength                int
	DefaultedLabel               string
	// Hub: the kind converts between its versions (api.API.Converts)
	// and this is its current version, the one the others convert to and
	// from (controller-runtime's hub); Next, on an older version of such a
	// kind, is how it converts.
	Hub  bool
	Next *goNext
}

// goNext is how an older version of a kind converts: to the version after
// it (the user's conversion, renaming Renames), and through that one to
// the hub.
type goNext struct {
	Alias, Import, Version string
	// RenamesVar names the renames of the older version, RemovedVar the
	// fields it keeps (Removed).
	RenamesVar, RemovedVar string
	// HubAlias is the hub's package, HubVersion its version; NextIsHub:
	// the next version is it.
	HubAlias, HubVersion string
	NextIsHub            bool
	Renames              []api.Rename
	// Moved are the fields the hub calls otherwise (api.API.Moved);
	// CasesDir holds the version's conformance cases, seen from its
	// package.
	Moved    []api.Rename
	CasesDir string
	// Removed are the fields the next version lacks (api.ServedVersion),
	// whose values its objects keep in the annotation Annotation.
	Removed    []string
	Annotation string
}

// goImport is an import of a generated file.
type goImport struct{ Alias, Path string }

// typeImports is the imports of the types and of fields, each once, sorted
// by path; more are added.
func typeImports(imports []goImport, fields []goField, more ...goImport) []goImport {
	out := slices.Clone(imports)
	for _, f := range fields {
		out = append(out, f.Imports...)
	}
	out = append(out, more...)
	slices.SortFunc(out, func(x, y goImport) int { return strings.Compare(x.Path+" "+x.Alias, y.Path+" "+y.Alias) })
	return slices.Compact(out)
}

// goChildData is the template data of one child builder: its kind's and
// its own.
type goChildData struct {
	goAPI
	Child goChild
}

// goGV is one API package (a group and version) of the project.
type goGV struct {
	FullGroup string
	Version   string
	Dir       string
	Import    string
	Alias     string
	APIs      []goAPI
	// TypeImports are the packages its types name.
	TypeImports []goImport
	// WebhookDir, WebhookImport: the package of the group-version's
	// webhooks, WebhookAlias its import alias; Webhooks: it has some.
	WebhookDir, WebhookImport, WebhookAlias string
	Webhooks                                bool
	// WebhookRoot is the project directory seen from WebhookDir, as the
	// arguments of filepath.Join: "..", "..", "..".
	WebhookRoot string
	// Admits: some kind has admission webhooks. Conversions: some kind
	// converts between its versions here (a hub or an older version);
	// Spokes: some older version does, importing ConversionImports; Keeps:
	// some older version keeps the fields the next one removed.
	Admits, Conversions, Spokes, Keeps bool
	ConversionImports                  []goImport
}

type goData struct {
	Project  scaffold.Project
	Module   string
	V        pins.Versions
	APIs     []goAPI
	GVs      []goGV
	Children []api.ChildKind
	// Workloads: some kind owns a kind that runs pods; CreateOnce: some
	// kind owns a kind whose spec cannot change; KubeValues: some kind's
	// pods take spec values of Kubernetes types (the helpers they use).
	Workloads, CreateOnce, KubeValues bool
	// APIExtensions: some kind's types name apiextensionsv1.JSON (a field
	// of type any), which go.mod then requires directly.
	APIExtensions bool
	// PrerequisiteKinds are the owned kinds that are not built in.
	PrerequisiteKinds []api.ChildKind
	Watches           []goWatch
	// Lease is cmd/main.go's default leader-election lease.
	Lease scaffold.Lease
}

// goAPIDir is where the types of an API live: api/<version> for the first
// group, like kubebuilder's single-group layout, and api/<group>/<version>
// for groups added later, so adding a group never moves existing files.
func goAPIDir(p scaffold.Project, a api.API) string {
	if a.Group == p.Groups()[0] {
		return path.Join("api", a.Version)
	}
	return path.Join("api", a.Group, a.Version)
}

// goTypesFile is the file of a kind's types in its version.
func goTypesFile(p scaffold.Project, a api.API) string {
	return path.Join(goAPIDir(p, a), a.Singular()+"_types.go")
}

func newGoData(p scaffold.Project) goData {
	d := goData{Project: p, Module: p.Repo, V: p.Versions, Lease: render.DefaultLease()}
	gvIndex := map[string]int{}
	owned := map[string]bool{}
	// gv is the index of the group-version of ga, in dir, added if new.
	gv := func(dir string, ga goAPI) int {
		i, ok := gvIndex[dir]
		if !ok {
			i = len(d.GVs)
			gvIndex[dir] = i
			webhookDir := "internal/webhook/" + strings.TrimPrefix(dir, "api/")
			d.GVs = append(d.GVs, goGV{FullGroup: ga.FullGroup, Version: ga.Version, Dir: dir, Import: ga.Import, Alias: ga.Alias,
				WebhookDir: webhookDir, WebhookImport: p.Repo + "/" + webhookDir, WebhookAlias: "webhook" + ga.Alias,
				WebhookRoot: strings.TrimSuffix(strings.Repeat(`"..", `, strings.Count(webhookDir, "/")+1), ", ")})
		}
		d.GVs[i].APIs = append(d.GVs[i].APIs, ga)
		d.GVs[i].TypeImports = typeImports(d.GVs[i].TypeImports, nil, ga.TypeImports...)
		d.GVs[i].Conversions = d.GVs[i].Conversions || ga.Hub || ga.Next != nil
		return i
	}
	for _, a := range p.APIs {
		ga := newGoAPI(p, a)
		ga.setChildren()
		d.APIExtensions = d.APIExtensions || slices.ContainsFunc(ga.TypeImports, func(i goImport) bool { return strings.HasPrefix(i.Path, "k8s.io/apiextensions-apiserver/") })
		c := ga.Conv
		d.KubeValues = d.KubeValues || ga.Workloads && (c.Resources != nil || c.EnvVars != nil || c.Tolerations != nil || c.Affinity != nil)
		for _, c := range a.OwnedKinds() {
			owned[c.Kind] = true
			d.Workloads = d.Workloads || c.Workload
			d.CreateOnce = d.CreateOnce || !c.Mutable
		}
		d.APIs = append(d.APIs, ga)
		i := gv(goAPIDir(p, a), ga)
		d.GVs[i].Webhooks = d.GVs[i].Webhooks || a.Admission != nil || ga.Hub
		d.GVs[i].Admits = d.GVs[i].Admits || a.Admission != nil
		if ga.Hub {
			addSpokes(p, a, ga, gv, &d)
		}
	}
	for _, c := range api.ChildKinds() {
		if owned[c.Kind] {
			d.Children = append(d.Children, c)
			if c.Prerequisite != nil {
				d.PrerequisiteKinds = append(d.PrerequisiteKinds, c)
			}
		}
	}
	return d
}

// addSpokes adds the older versions of a kind that converts (hub, its
// current version) to their group-versions, each converting to the next.
func addSpokes(p scaffold.Project, a api.API, hub goAPI, gv func(string, goAPI) int, d *goData) {
	older := a.OlderVersions()
	for i, old := range older {
		old.Admission = nil
		spoke := newGoAPI(p, old)
		next := hub
		if i+1 < len(older) {
			next = newGoAPI(p, older[i+1])
		}
		dir := goAPIDir(p, old)
		spoke.Next = &goNext{Alias: next.Alias, Import: next.Import, Version: next.Version, RenamesVar: goVar(a.Kind) + "Renames", RemovedVar: goVar(a.Kind) + "Removed", HubAlias: hub.Alias, HubVersion: hub.Version, NextIsHub: i+1 == len(older),
			Renames: a.Served[i].Renames, Moved: a.Moved(i), Removed: a.Served[i].Removed, Annotation: a.RemovedAnnotation(p.Domain, i),
			CasesDir: path.Join(strings.Repeat("../", strings.Count(dir, "/")+1), render.ConformanceDir, a.Singular(), old.Version)}
		j := gv(dir, spoke)
		d.GVs[j].Spokes = true
		d.GVs[j].Keeps = d.GVs[j].Keeps || len(a.Served[i].Removed) > 0
		for _, imp := range []goImport{{next.Alias, next.Import}, {hub.Alias, hub.Import}} {
			if !slices.Contains(d.GVs[j].ConversionImports, imp) {
				d.GVs[j].ConversionImports = append(d.GVs[j].ConversionImports, imp)
			}
		}
		slices.SortFunc(d.GVs[j].ConversionImports, func(x, y goImport) int { return strings.Compare(x.Path, y.Path) })
	}
}

// kubeAliases are the import aliases of Kubernetes' own API packages,
// which the generated code names beside the project's.
var kubeAliases = []string{"admissionv1", "admissionregistrationv1", "apiextensionsv1", "appsv1", "autoscalingv1", "autoscalingv2",
	"batchv1", "certificatesv1", "coordinationv1", "corev1", "discoveryv1", "eventsv1", "metav1", "monitoringv1", "networkingv1",
	"nodev1", "policyv1", "rbacv1", "schedulingv1", "storagev1"}

// goAlias is the import alias of a kind's package: its group and version
// (myappv1), with the domain too where that would be the alias of one of
// Kubernetes' packages (networking.istio.io's networkingistioiov1).
func goAlias(p scaffold.Project, a api.API) string {
	clean := strings.NewReplacer(".", "", "-", "")
	if alias := clean.Replace(a.Group) + a.Version; !slices.Contains(kubeAliases, alias) {
		return alias
	}
	return clean.Replace(a.FullGroup(p.Domain)) + a.Version
}

// newGoAPI is the template data of a kind, as it is in its version.
func newGoAPI(p scaffold.Project, a api.API) goAPI {
	dir := goAPIDir(p, a)
	types := newGoTypes(a)
	status := goStatusFields(a, &types)
	conditions := newGoType("[]meta/v1.Condition")
	return goAPI{
		API:       a,
		FullGroup: a.FullGroup(p.Domain),
		Version:   a.Version,
		Import:    p.Repo + "/" + dir,
		Alias:     goAlias(p, a),
		Structs:   types.Structs,
		Named:     types.Named,
		StatusStruct: goStruct{Name: a.Kind + "Status", Fields: append([]goField{
			{Name: "ObservedGeneration"}, {Name: "Conditions", CopyCode: fieldCopy("Conditions", conditions, false)},
		}, status...)},
		StatusFields:  status,
		ScaleRequired: slices.ContainsFunc(a.Fields, func(f api.Field) bool { return f.Name == a.ScaleReplicas && f.Required }),
		Markers:       kindMarkers(a),
		RBACMarkers:   rbacMarkers(p, a),
		TypeImports:   typeImports(types.imports(), status),
		SamplePath:    render.SamplePath(p, a),
		ProjectName:   p.Name,

		ValidatingPath: a.ValidatePath(p.Domain), MutatingPath: a.MutatePath(p.Domain),
		ValidatingName: a.WebhookName(p.Domain, "v"), MutatingName: a.WebhookName(p.Domain, "m"),
		NameTooLongDetail: a.NameTooLongDetail(), MaxNameLength: api.MaxNameLength,
		DefaultedLabel: scaffold.DefaultedLabel,
		Hub:            a.Converts(),
	}
}

// goWatch is the template data of a watch's controller, the user's
// handler and its test.
type goWatch struct {
	scaffold.WatchIn
	// Type is the controller's Go type (SecretsWatch).
	Type, Reason string
	RBACMarkers  []string
	// SelectorGo is the label selector's map entries as Go.
	SelectorGo string
	// Fixture is an object the watch sees, as JSON; Message is the
	// starter's message for it.
	Fixture, Message string
}

func newGoWatch(p scaffold.Project, w scaffold.Watch) (goWatch, error) {
	var camel []string
	for _, part := range strings.Split(w.Name, "-") {
		camel = append(camel, strings.ToUpper(part[:1])+part[1:])
	}
	single := p
	single.APIs, single.Watches = nil, []scaffold.Watch{w}
	gw := goWatch{WatchIn: p.WatchIn(w), Type: strings.Join(camel, "") + "Watch",
		Reason: render.WatchHandledReason, RBACMarkers: markersOf(single)}
	gw.SelectorGo = render.QuotedPairs(w.Selector)
	var err error
	gw.Fixture, gw.Message, err = render.WatchStarterCase(w, "\t")
	return gw, err
}

// rbacMarkers are the kubebuilder RBAC markers of a controller; they say
// the same as config/rbac/role.yaml.
func rbacMarkers(p scaffold.Project, a api.API) []string {
	single := p
	single.APIs, single.Watches = []api.API{a}, nil
	return markersOf(single)
}

// markersOf are the kubebuilder RBAC markers of the project's rules.
func markersOf(single scaffold.Project) []string {
	var out []string
	for _, scope := range render.ManagerRules(single, Style().Access) {
		namespace := ""
		if scope.Namespace != "" {
			namespace = ",namespace=" + scope.Namespace
		}
		for _, r := range scope.Rules {
			group := r.APIGroups[0]
			if group == "" {
				group = `""`
			}
			out = append(out, fmt.Sprintf("+kubebuilder:rbac:groups=%s%s,resources=%s,verbs=%s",
				group, namespace, strings.Join(r.Resources, ";"), strings.Join(r.Verbs, ";")))
		}
	}
	return out
}

// The project's files, by the data they are rendered with: the project's,
// each group-version's, each watch's, and once it has kinds, the
// controllers' and each kind's.
var (
	projectFiles = []machinery.Template{
		machinery.UserFile("go.mod", "go.mod.tmpl"),
		machinery.UserFile("Makefile", "Makefile.tmpl"),
		machinery.UserFile("Dockerfile", "Dockerfile.tmpl"),
		machinery.UserFile(".dockerignore", "dockerignore.tmpl"),
		machinery.UserFile(".gitignore", "gitignore.tmpl"),
		machinery.UserFile(".golangci.yml", "golangci.yml.tmpl"),
		machinery.UserFile("README.md", "README.md.tmpl"),
		machinery.UserFile("cmd/main.go", "cmd/main.go.tmpl"),
		machinery.GeneratedFile("cmd/apis.go", "cmd/apis.go.tmpl"),
	}
	gvFiles = []machinery.Template{
		machinery.GeneratedFile("{{.Dir}}/groupversion_info.go", "api/groupversion_info.go.tmpl"),
		// The deep copies follow the types, which are the team's: opctl
		// writes them for the project to build at once, and make generate
		// (controller-gen) from then on.
		machinery.UserFile("{{.Dir}}/zz_generated.deepcopy.go", "api/zz_generated.deepcopy.go.tmpl"),
	}
	watchFiles = []machinery.Template{
		machinery.GeneratedFile("internal/controller/watch_{{.Ident}}.go", "controller/watch.go.tmpl"),
		machinery.UserFile("internal/controller/watch_{{.Ident}}_handler.go", "controller/watch_handler.go.tmpl"),
		machinery.UserFile("internal/controller/watch_{{.Ident}}_test.go", "controller/watch_test.go.tmpl"),
	}
	controllerFiles = []machinery.Template{
		machinery.UserFile("internal/controller/doc.go", "controller/doc.go.tmpl"),
		machinery.GeneratedFile("internal/controller/zz_generated.children.go", "controller/children.go.tmpl"),
		machinery.GeneratedFile("internal/controller/zz_generated.compare.go", "controller/compare.go.tmpl"),
		machinery.GeneratedFile("internal/controller/suite_test.go", "controller/suite_test.go.tmpl"),
		machinery.GeneratedFile("internal/controller/conformance_test.go", "controller/conformance_test.go.tmpl"),
	}
	kindFiles = []machinery.Template{
		machinery.GeneratedFile("internal/controller/zz_generated.{{.Singular}}.go", "controller/wiring.go.tmpl"),
		machinery.UserFile("internal/controller/{{.Singular}}_controller.go", "controller/controller.go.tmpl"),
		machinery.UserFile("internal/controller/{{.Singular}}_controller_test.go", "controller/controller_test.go.tmpl"),
	}
)

func goFiles(p scaffold.Project, t *machinery.Tree) error {
	d := newGoData(p)
	for _, w := range p.Watches {
		gw, err := newGoWatch(p, w)
		if err != nil {
			return err
		}
		d.Watches = append(d.Watches, gw)
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"), machinery.TemplateDir(files, "templates/partials"))
	r.Copy("go.sum", "go.sum", machinery.UserOwned)
	r.Files(d, projectFiles...)
	addEnvtestTools(r, d)
	// The types are the team's once it changes them; the code opctl writes
	// from the model that reads them (deep copies, the builders of its
	// children and pods, its status) is then kept as it is: the model's
	// Go types would no longer be theirs.
	for _, gv := range d.GVs {
		r.Files(gv, gvFiles...)
		var types []string
		for _, a := range gv.APIs {
			path := goTypesFile(p, a.API)
			r.Files(a, machinery.MergedFile(path, "api/types.go.tmpl"))
			types = append(types, path)
		}
		r.KeepWith(gv.Dir+"/zz_generated.deepcopy.go", types...)
		addConversions(r, gv)
	}
	const ctl = "internal/controller/"
	for _, gw := range d.Watches {
		r.Files(gw, watchFiles...)
	}
	if len(d.APIs) == 0 {
		return r.Err()
	}
	r.Files(d, controllerFiles...)
	if p.Converts() {
		r.Files(d, machinery.GeneratedFile(ctl+"conversion_test.go", "controller/conversion_test.go.tmpl"))
	}
	for _, a := range d.APIs {
		r.Files(a, kindFiles...)
		if a.Workloads {
			r.Files(a, machinery.UserFile(ctl+"{{.Singular}}_pods.go", "controller/pods.go.tmpl"))
			r.KeepWith(ctl+a.Singular()+"_pods.go", goTypesFile(p, a.API))
		}
		if len(a.Status) > 0 {
			r.Files(a, machinery.UserFile(ctl+"{{.Singular}}_status.go", "controller/status.go.tmpl"))
			r.KeepWith(ctl+a.Singular()+"_status.go", goTypesFile(p, a.API))
		}
		for _, c := range a.Children {
			r.File(ctl+c.File, "controller/child_"+c.Shape()+".go.tmpl", machinery.UserOwned, goChildData{a, c})
			r.KeepWith(ctl+c.File, goTypesFile(p, a.API))
		}
	}
	addWebhooks(r, d)
	return r.Err()
}

// addConversions adds the conversions of a group-version's kinds that
// convert between their versions: generated, the hub's mark and each older
// version's way to the hub, through the version after it, with a test of
// the conformance cases of the older version; the conversion of each older
// version to the next is the user's.
func addConversions(r *machinery.Renderer, gv goGV) {
	if !gv.Conversions {
		return
	}
	r.File(gv.Dir+"/zz_generated.conversion.go", "api/zz_generated.conversion.go.tmpl", machinery.Generated, gv)
	if !gv.Spokes {
		return
	}
	r.File(gv.Dir+"/zz_generated.conversion_test.go", "api/zz_generated.conversion_test.go.tmpl", machinery.Generated, gv)
	for _, a := range gv.APIs {
		if a.Next != nil {
			r.File(gv.Dir+"/"+a.Singular()+"_conversion.go", "api/conversion.go.tmpl", machinery.UserOwned, a)
		}
	}
}

// addWebhooks adds each group-version's webhook registrations (generated,
// so they always match config/webhook/manifests.yaml) and, per kind, the
// validator and defaulter with their tests, which are the user's.
func addWebhooks(r *machinery.Renderer, d goData) {
	for _, gv := range d.GVs {
		if !gv.Webhooks {
			continue
		}
		r.File(gv.WebhookDir+"/webhooks.go", "webhook/webhooks.go.tmpl", machinery.Generated, gv)
		r.File(gv.WebhookDir+"/doc.go", "webhook/doc.go.tmpl", machinery.UserOwned, gv)
		if gv.Admits {
			r.File(gv.WebhookDir+"/suite_test.go", "webhook/suite_test.go.tmpl", machinery.Generated, gv)
		}
		for _, a := range gv.APIs {
			if a.Admission == nil {
				continue
			}
			for _, op := range []struct {
				on   bool
				name string
			}{{a.Admission.Validate, "validator"}, {a.Admission.Default, "defaulter"}} {
				if op.on {
					r.File(gv.WebhookDir+"/"+a.Singular()+"_"+op.name+".go", "webhook/"+op.name+".go.tmpl", machinery.UserOwned, a)
					r.File(gv.WebhookDir+"/"+a.Singular()+"_"+op.name+"_test.go", "webhook/"+op.name+"_test.go.tmpl", machinery.UserOwned, a)
				}
			}
		}
	}
}

// addEnvtestTools adds the modules that build kube-apiserver and etcd from
// the Go module proxy, so the API-server tests need no other host. opctl's
// own e2e tests build their binaries from these same files.
func addEnvtestTools(r *machinery.Renderer, d goData) {
	r.Copy("hack/envtest/kube-apiserver/go.sum", "hack/envtest/kube-apiserver.sum", machinery.Generated)
	r.Copy("hack/envtest/etcd/go.sum", "hack/envtest/etcd.sum", machinery.Generated)
	r.Files(d,
		machinery.GeneratedFile("hack/envtest/kube-apiserver/go.mod", "hack/envtest/kube-apiserver.mod.tmpl"),
		machinery.GeneratedFile("hack/envtest/kube-apiserver/tools.go", "hack/envtest/kube-apiserver-tools.go.tmpl"),
		machinery.GeneratedFile("hack/envtest/etcd/go.mod", "hack/envtest/etcd.mod.tmpl"),
		machinery.GeneratedFile("hack/envtest/etcd/main.go", "hack/envtest/etcd-main.go.tmpl"),
		machinery.GeneratedFile("hack/envtest/build.sh", "hack/envtest/build.sh.tmpl").Executable(),
	)
}
