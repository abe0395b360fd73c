package scaffold

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/opctl/opctl/checklist"
)

func goStyle() Style {
	return Style{
		Name:    "go",
		Summary: "Go with controller-runtime in the kubebuilder go/v4 layout: typed, fast, for large long-lived operators",
		Checklist: checklist.Profile{
			Comparison: checklist.Comparison{Language: "Go", LearningCurve: "steep: controller-runtime, informers, typed clients",
				Expressiveness: "anything", Performance: "best: one static binary, shared caches",
				Idempotency: "you: reconcile must be idempotent (CreateOrUpdate helps)",
				Maturity:    "highest: kubebuilder, operator-sdk, most production operators",
				BestFit:     "large, long-lived, performance-sensitive operators"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -1, "scale=small": 1, "scale=large": 3,
				"language=go": 4, "logic=declarative": -1, "logic=imperative": 2},
			MaintainerPoints: map[string]int{"go": 4},
		},
		ModulePath: true,
		Access: Access{
			Parent: []string{"get", "list", "watch"},
			// Status is merge-patched, so that a concurrent change is no conflict.
			Status:     []string{"patch"},
			Finalizers: []string{"update"},
			Child: func(c ChildKind) []string {
				if c.Mutable {
					return []string{"create", "get", "list", "update", "watch"}
				}
				return []string{"create", "get", "list", "watch"}
			},
			Extra: []rbacv1.PolicyRule{{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}},
		},
		LeaderElection: true,
		Runtime: func(Project) Runtime {
			return Runtime{
				Command:       []string{"/manager"},
				Args:          []string{"--health-probe-bind-address=:8081", "--metrics-bind-address=:8080"},
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				HealthPort:    8081,
				LivenessPath:  "/healthz",
				ReadinessPath: "/readyz",
			}
		},
		Files: goFiles,
	}
}

// goAPI is the template data of one kind in the go style.
type goAPI struct {
	API
	FullGroup    string
	Version      string
	Import       string // Go import path of the API package
	Alias        string // import alias: <group><version>, dots and dashes removed
	Structs      []goStruct
	StatusStruct goStruct
	Markers      []string
	RBACMarkers  []string
	Owned        []goChild
	ChildImports []string
	UsesQuantity bool
	SamplePath   string
}

// goChild is an owned kind as the controller template uses it.
type goChild struct {
	ChildKind
	Var string // local variable name
}

// goGV is one API package (a group and version) of the project.
type goGV struct {
	FullGroup    string
	Version      string
	Dir          string
	Import       string
	Alias        string
	APIs         []goAPI
	UsesQuantity bool
}

type goData struct {
	Project  Project
	Module   string
	V        Versions
	APIs     []goAPI
	GVs      []goGV
	Children []ChildKind
}

// goAPIDir is where the types of an API live: api/<version> for the first
// group, like kubebuilder's single-group layout, and api/<group>/<version>
// for groups added later, so adding a group never moves existing files.
func goAPIDir(p Project, a API) string {
	if a.Group == p.Groups()[0] {
		return path.Join("api", a.Version)
	}
	return path.Join("api", a.Group, a.Version)
}

func newGoData(p Project) goData {
	d := goData{Project: p, Module: p.Repo, V: p.Versions}
	gvIndex := map[string]int{}
	owned := map[string]bool{}
	for _, a := range p.APIs {
		dir := goAPIDir(p, a)
		ga := goAPI{
			API:       a,
			FullGroup: a.FullGroup(p.Domain),
			Version:   a.Version,
			Import:    p.Repo + "/" + dir,
			Alias:     strings.NewReplacer(".", "", "-", "").Replace(a.Group) + a.Version,
			Structs:   goStructs(a),
			StatusStruct: goStruct{Name: a.Kind + "Status", Fields: []goField{
				{Name: "ObservedGeneration"}, {Name: "Conditions", Copy: "conditions"},
			}},
			Markers:      kindMarkers(a),
			RBACMarkers:  rbacMarkers(p, a),
			UsesQuantity: usesType(a, TypeQuantity),
			SamplePath:   samplePath(p, a),
		}
		imports := map[string]bool{}
		for _, c := range a.OwnedKinds() {
			ga.Owned = append(ga.Owned, goChild{ChildKind: c, Var: strings.ToLower(c.Kind[:1]) + c.Kind[1:]})
			imports[fmt.Sprintf("%s %q", c.GoPkg, c.GoImport)] = true
			owned[c.Kind] = true
		}
		ga.ChildImports = sortedKeys(imports)
		d.APIs = append(d.APIs, ga)
		i, ok := gvIndex[dir]
		if !ok {
			i = len(d.GVs)
			gvIndex[dir] = i
			d.GVs = append(d.GVs, goGV{FullGroup: ga.FullGroup, Version: a.Version, Dir: dir, Import: ga.Import, Alias: ga.Alias})
		}
		d.GVs[i].APIs = append(d.GVs[i].APIs, ga)
		d.GVs[i].UsesQuantity = d.GVs[i].UsesQuantity || ga.UsesQuantity
	}
	for _, c := range childKinds {
		if owned[c.Kind] {
			d.Children = append(d.Children, c)
		}
	}
	return d
}

// rbacMarkers are the kubebuilder RBAC markers of a controller; they say
// the same as config/rbac/role.yaml.
func rbacMarkers(p Project, a API) []string {
	single := p
	single.APIs = []API{a}
	var out []string
	for _, r := range policyRules(single, goStyle().Access) {
		group := r.APIGroups[0]
		if group == "" {
			group = `""`
		}
		out = append(out, fmt.Sprintf("+kubebuilder:rbac:groups=%s,resources=%s,verbs=%s",
			group, strings.Join(r.Resources, ";"), strings.Join(r.Verbs, ";")))
	}
	return out
}

func goFiles(p Project, t *Tree) error {
	if p.Repo == "" {
		return inputErrorf("--repo: the go style needs the Go module path (e.g. example.com/%s)", p.Name)
	}
	d := newGoData(p)
	r := renderer{style: "go", tree: t}
	r.file("go.mod", "go.mod.tmpl", UserOwned, d)
	r.copy("go.sum", "go.sum", UserOwned)
	r.file("Makefile", "Makefile.tmpl", UserOwned, d)
	r.file("Dockerfile", "Dockerfile.tmpl", UserOwned, d)
	r.file(".dockerignore", "dockerignore.tmpl", UserOwned, d)
	r.file(".gitignore", "gitignore.tmpl", UserOwned, d)
	r.file("README.md", "README.md.tmpl", UserOwned, d)
	r.file("cmd/main.go", "cmd/main.go.tmpl", UserOwned, d)
	r.file("cmd/apis.go", "cmd/apis.go.tmpl", Generated, d)
	addEnvtestTools(&r, d)
	for _, gv := range d.GVs {
		r.file(gv.Dir+"/groupversion_info.go", "api/groupversion_info.go.tmpl", Generated, gv)
		r.file(gv.Dir+"/zz_generated.deepcopy.go", "api/zz_generated.deepcopy.go.tmpl", Generated, gv)
		for _, a := range gv.APIs {
			r.file(gv.Dir+"/"+a.Singular()+"_types.go", "api/types.go.tmpl", Generated, a)
		}
	}
	if len(d.APIs) == 0 {
		return r.err
	}
	ctl := "internal/controller/"
	r.file(ctl+"children.go", "controller/children.go.tmpl", UserOwned, d)
	r.file(ctl+"suite_test.go", "controller/suite_test.go.tmpl", Generated, d)
	workload := false
	for _, c := range d.Children {
		r.file(ctl+"child_"+c.Suffix()+".go", "controller/child_"+c.Suffix()+".go.tmpl", UserOwned, d)
		workload = workload || c.Group != ""
	}
	if workload {
		r.file(ctl+"workload.go", "controller/workload.go.tmpl", UserOwned, d)
	}
	for _, a := range d.APIs {
		r.file(ctl+a.Singular()+"_controller.go", "controller/controller.go.tmpl", UserOwned, a)
		r.file(ctl+a.Singular()+"_controller_test.go", "controller/controller_test.go.tmpl", UserOwned, a)
	}
	return r.err
}

// addEnvtestTools adds the modules that build kube-apiserver and etcd from
// the Go module proxy, so the API-server tests need no other host. opctl's
// own e2e tests build their binaries from these same files.
func addEnvtestTools(r *renderer, d goData) {
	const dir = "hack/envtest/"
	r.file(dir+"kube-apiserver/go.mod", "hack/envtest/kube-apiserver.mod.tmpl", Generated, d)
	r.copy(dir+"kube-apiserver/go.sum", "hack/envtest/kube-apiserver.sum", Generated)
	r.file(dir+"kube-apiserver/tools.go", "hack/envtest/kube-apiserver-tools.go.tmpl", Generated, d)
	r.file(dir+"etcd/go.mod", "hack/envtest/etcd.mod.tmpl", Generated, d)
	r.copy(dir+"etcd/go.sum", "hack/envtest/etcd.sum", Generated)
	r.file(dir+"etcd/main.go", "hack/envtest/etcd-main.go.tmpl", Generated, d)
	r.file(dir+"build.sh", "hack/envtest/build.sh.tmpl", Generated, d)
	r.chmod(dir+"build.sh", 0o755)
}
