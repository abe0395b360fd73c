// Package pins is the one table of every version opctl pins (frameworks,
// images, tools, actions), where each is checked and what a project must do
// when it moves; a project records the pins of its own style.
package pins

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Versions pins every framework, library, tool and image a generated project
// uses. It is the only place versions live; the project file records the
// pins its style uses (Style.RecordedPins) as the project was
// generated with them.
type Versions struct {
	Go                string `json:"go,omitempty"`
	ControllerRuntime string `json:"controllerRuntime,omitempty"`
	Kubernetes        string `json:"kubernetes,omitempty"`
	ControllerTools   string `json:"controllerTools,omitempty"`
	SigsYAML          string `json:"sigsYAML,omitempty"`
	// KubeAPIServer and Etcd are built from source for API-server tests.
	KubeAPIServer   string `json:"kubeAPIServer,omitempty"`
	Etcd            string `json:"etcd,omitempty"`
	GoBuilderImage  string `json:"goBuilderImage,omitempty"`
	DistrolessImage string `json:"distrolessImage,omitempty"`
	// Kopf and KubernetesPython are pip requirement specifiers.
	Kopf             string `json:"kopf,omitempty"`
	KubernetesPython string `json:"kubernetesPython,omitempty"`
	PythonImage      string `json:"pythonImage,omitempty"`
	// Metacontroller is the release users install before deploying hooks.
	Metacontroller string `json:"metacontroller,omitempty"`
	// The Ansible Operator base image and the collections its roles use.
	AnsibleOperatorImage      string `json:"ansibleOperatorImage,omitempty"`
	KubernetesCoreCollection  string `json:"kubernetesCoreCollection,omitempty"`
	OperatorSDKUtilCollection string `json:"operatorSDKUtilCollection,omitempty"`
	// ShellOperatorImage is the base image of shell-operator projects.
	ShellOperatorImage string `json:"shellOperatorImage,omitempty"`
	// What the CI's kind job installs in the cluster before the operator
	// when the project needs it (test/e2e/prerequisites.sh): cert-manager
	// for a runtime serving HTTPS, the Prometheus Operator's CRD for
	// ServiceMonitor children.
	CertManager        string `json:"certManager,omitempty"`
	PrometheusOperator string `json:"prometheusOperator,omitempty"`
	// ChildImage runs workload children: the starter commands need sleep and env.
	ChildImage string `json:"childImage,omitempty"`
	// The project's CI workflow: the GitHub Actions it uses (each pinned by
	// commit, its release in a comment: "owner/repo@<sha> # vX.Y.Z"; all on
	// Node 24, which GitHub's runners require since Node 20 left them), the
	// Python it tests on, the pip specifiers of the Ansible tools, the helm
	// CLI.
	ActionsCheckout    string `json:"actionsCheckout,omitempty"`
	ActionsSetupGo     string `json:"actionsSetupGo,omitempty"`
	ActionsSetupPython string `json:"actionsSetupPython,omitempty"`
	ActionsCache       string `json:"actionsCache,omitempty"`
	ActionsSetupHelm   string `json:"actionsSetupHelm,omitempty"`
	ActionsKind        string `json:"actionsKind,omitempty"`
	Python             string `json:"python,omitempty"`
	AnsiblePip         string `json:"ansiblePip,omitempty"`
	AnsibleLintPip     string `json:"ansibleLintPip,omitempty"`
	Helm               string `json:"helm,omitempty"`
	// The dev containers' base images (.devcontainer), per toolchain.
	DevContainerGo     string `json:"devContainerGo,omitempty"`
	DevContainerPython string `json:"devContainerPython,omitempty"`
	DevContainerBase   string `json:"devContainerBase,omitempty"`
	// GolangciLint lints go projects (make lint, and CI through its action).
	GolangciLint        string `json:"golangciLint,omitempty"`
	ActionsGolangciLint string `json:"actionsGolangciLint,omitempty"`
	// KubeScore is the outside checker opctl's own tests score every
	// style's config/ with; no project file uses it.
	KubeScore string `json:"kubeScore,omitempty"`
}

// DefaultVersions is the pinned set used by new projects.
func DefaultVersions() Versions {
	return Versions{
		Go:                        "1.26.0",
		ControllerRuntime:         "v0.25.3",
		Kubernetes:                "v0.37.2",
		ControllerTools:           "v0.23.0",
		SigsYAML:                  "v1.6.0",
		KubeAPIServer:             "v1.37.2",
		Etcd:                      "v3.7.3",
		GoBuilderImage:            "golang:1.26.8-trixie",
		DistrolessImage:           "gcr.io/distroless/static-debian13:nonroot",
		Kopf:                      ">=1.44,<2",
		KubernetesPython:          ">=31,<38",
		PythonImage:               "python:3.13-slim-trixie",
		Metacontroller:            "v4.17.2",
		ShellOperatorImage:        "ghcr.io/flant/shell-operator:v1.20.3",
		AnsibleOperatorImage:      "quay.io/operator-framework/ansible-operator:v1.42.3",
		KubernetesCoreCollection:  "6.5.0",
		OperatorSDKUtilCollection: "0.5.0",
		ChildImage:                "busybox:1.37.0",
		ActionsCheckout:           "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
		ActionsSetupGo:            "actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0",
		ActionsSetupPython:        "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97 # v7.0.0",
		ActionsCache:              "actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5",
		ActionsSetupHelm:          "azure/setup-helm@9bc31f4ebc9c6b171d7bfbaa5d006ae7abdb4310 # v5.0.1",
		ActionsKind:               "helm/kind-action@ef37e7f390d99f746eb8b610417061a60e82a6cc # v1.14.0",
		CertManager:               "v1.21.2",
		PrometheusOperator:        "v0.85.0",
		Python:                    "3.13",
		AnsiblePip:                ">=13,<14",
		AnsibleLintPip:            ">=26,<27",
		Helm:                      "v4.3.2",
		DevContainerGo:            "mcr.microsoft.com/devcontainers/go:1.26-trixie",
		DevContainerPython:        "mcr.microsoft.com/devcontainers/python:3.13-trixie",
		DevContainerBase:          "mcr.microsoft.com/devcontainers/base:trixie",
		GolangciLint:              "v2.15.0",
		ActionsGolangciLint:       "golangci/golangci-lint-action@ba0d7d2ec06a0ea1cb5fa41b2e4a3ab91d21278a # v9.3.0",
		KubeScore:                 "v1.20.0",
	}
}

// WithDefaults fills the versions a project file does not record (it was
// written before opctl pinned them) from DefaultVersions.
func (v Versions) WithDefaults() Versions {
	out, defaults := reflect.ValueOf(&v).Elem(), reflect.ValueOf(DefaultVersions())
	for i := 0; i < out.NumField(); i++ {
		if out.Field(i).String() == "" {
			out.Field(i).SetString(defaults.Field(i).String())
		}
	}
	return v
}

// enginePins are the versions every style's project uses: the files the
// engine writes for all (the CI workflow's checkout, Helm and kind, the
// chart, the children's image).
func Engine() []string {
	return []string{"actionsCheckout", "actionsKind", "actionsSetupHelm", "childImage", "helm"}
}

// only is v with only the pins named (their keys in the project file).
func (v Versions) Only(keys []string) Versions {
	var out Versions
	in, kept := reflect.ValueOf(v), reflect.ValueOf(&out).Elem()
	for i, key := range Keys() {
		if slices.Contains(keys, key) {
			kept.Field(i).Set(in.Field(i))
		}
	}
	return out
}

// KubeMajor is the major version of KubeAPIServer ("1" for v1.37.2).
func (v Versions) KubeMajor() string { return versionPart(v.KubeAPIServer, 0) }

// KubeMinor is the minor version of KubeAPIServer ("37" for v1.37.2).
func (v Versions) KubeMinor() string { return versionPart(v.KubeAPIServer, 1) }

func versionPart(version string, i int) string {
	parts := strings.Split(strings.TrimPrefix(version, "v"), ".")
	if i < len(parts) {
		return parts[i]
	}
	return ""
}

// EnvtestDir names the cache directory of the API-server binaries.
func (v Versions) EnvtestDir() string {
	return "envtest-" + v.KubeAPIServer + "-etcd-" + v.Etcd
}

// Source is where a pin's releases are published, for make check-pins,
// when the pin was last compared with them, and what a project must do
// when opctl upgrade moves the pin past a release.
type Source struct {
	// Module is the Go module the pin follows: its releases on the module
	// proxy are the pin's, tagged as the pin is written. Empty for a pin
	// published elsewhere (images but the runtimes', pip specifiers,
	// actions, Go itself, Metacontroller, whose module path is not
	// fetchable).
	Module string
	// Checked is the day the pin was last compared with its releases.
	Checked string
	// Notes are the upgrade notes of the pin, oldest first.
	Notes []Note
}

// Note is what a project must do when its pin moves past a release.
type Note struct {
	// Reaches is the release the note is for: a version ("6.0.0", "v26")
	// the pin moves from below to at or above, a word the pin comes to
	// contain (an image's Debian release, "trixie"), or "" for any move.
	Reaches string
	Text    string
}

// Applies reports whether the note is for a pin moving from one value to
// another.
func (n Note) Applies(from, to string) bool {
	switch {
	case from == to:
		return false
	case n.Reaches == "":
		return true
	case releaseNumbers(n.Reaches) == nil:
		return strings.Contains(to, n.Reaches) && !strings.Contains(from, n.Reaches)
	}
	mark := releaseNumbers(n.Reaches)
	return slices.Compare(releaseNumbers(Release(from)), mark) < 0 && slices.Compare(releaseNumbers(Release(to)), mark) >= 0
}

// releaseNumbers are the numbers of a release's first version ("v1.26.8",
// "1.26.8-trixie", ">=26,<27"), nil when it has none.
func releaseNumbers(release string) []int {
	start := strings.IndexAny(release, "0123456789")
	if start < 0 || (start > 0 && !strings.ContainsAny(release[start-1:start], "v:=-@ ")) {
		return nil
	}
	var out []int
	for _, part := range strings.Split(release[start:], ".") {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		if end == 0 {
			break
		}
		n, _ := strconv.Atoi(part[:end])
		out = append(out, n)
		if end < len(part) {
			break
		}
	}
	return out
}

// The texts of notes several pins share.
const (
	debian13            = "the image moves to Debian 13 (trixie): a package your Dockerfile installs may have another name or version there; build the image (make docker-build) and run make test-e2e"
	devContainerRebuild = "the dev container moves to Debian 13 (trixie): rebuild it (Dev Containers: Rebuild Container)"
	envtestMoves        = "make test builds the API server's binaries for it once per machine (about 10 minutes) into a new directory of ~/.cache/opctl: the directory of the version before can go"
)

// Sources are the sources of the pins, keyed as the project file keys
// them: every pin has one. A pin that follows a module was last checked
// by make check-pins; the others, by hand against their registries (an
// action's tags and its action.yml), when they were set.
func Sources() map[string]Source {
	return map[string]Source{
		"go": {Checked: "2026-11-30"},
		"controllerRuntime": {Module: "sigs.k8s.io/controller-runtime", Checked: "2026-12-06", Notes: []Note{{
			Text: "go.mod requires it now: run go mod tidy, then make test; its release notes (github.com/kubernetes-sigs/controller-runtime/releases) say what a controller of yours may have to change",
		}}},
		"kubernetes":           {Module: "k8s.io/api", Checked: "2026-12-06"},
		"controllerTools":      {Module: "sigs.k8s.io/controller-tools", Checked: "2026-12-06"},
		"sigsYAML":             {Module: "sigs.k8s.io/yaml", Checked: "2026-12-06"},
		"kubeAPIServer":        {Module: "k8s.io/kubernetes", Checked: "2026-12-06", Notes: []Note{{Text: envtestMoves}}},
		"etcd":                 {Module: "go.etcd.io/etcd/server/v3", Checked: "2026-12-06", Notes: []Note{{Text: envtestMoves}}},
		"goBuilderImage":       {Checked: "2026-12-06", Notes: []Note{{Reaches: "trixie", Text: debian13}}},
		"distrolessImage":      {Checked: "2026-12-06", Notes: []Note{{Reaches: "debian13", Text: debian13}}},
		"kopf":                 {Checked: "2026-11-30"},
		"kubernetesPython":     {Checked: "2026-11-30"},
		"pythonImage":          {Checked: "2026-12-06", Notes: []Note{{Reaches: "trixie", Text: debian13}}},
		"metacontroller":       {Checked: "2026-11-30"},
		"ansibleOperatorImage": {Module: "github.com/operator-framework/ansible-operator-plugins", Checked: "2026-11-30"},
		"kubernetesCoreCollection": {Checked: "2026-12-06", Notes: []Note{{
			Reaches: "6.0.0",
			Text:    "kubernetes.core 6 needs ansible-core 2.16 or later (the ansible-operator image has 2.18) and no longer has the deprecated k8s inventory plugin: run ansible-galaxy collection install -r requirements.yml where you run playbooks, then make test",
		}}},
		"operatorSDKUtilCollection": {Checked: "2026-11-30"},
		"shellOperatorImage":        {Module: "github.com/flant/shell-operator", Checked: "2026-11-30"},
		"certManager":               {Module: "github.com/cert-manager/cert-manager", Checked: "2026-12-06"},
		"prometheusOperator":        {Module: "github.com/prometheus-operator/prometheus-operator", Checked: "2026-12-06"},
		"childImage":                {Checked: "2026-11-30"},
		"actionsCheckout": {Checked: "2026-12-06", Notes: []Note{{
			Reaches: "5",
			Text:    "the workflow's actions move to their Node 24 majors, each pinned by commit: an action your workflow adds itself, still on a Node 20 major (checkout@v4, setup-go@v5, setup-python@v5, cache@v4), fails on GitHub's runners; move it likewise",
		}}},
		"actionsSetupGo":     {Checked: "2026-12-06"},
		"actionsSetupPython": {Checked: "2026-12-06"},
		"actionsCache":       {Checked: "2026-12-06"},
		"actionsSetupHelm":   {Checked: "2026-12-06"},
		"actionsKind":        {Checked: "2026-12-06"},
		"python":             {Checked: "2026-12-01"},
		"ansiblePip": {Checked: "2026-12-06", Notes: []Note{{
			Reaches: "13",
			Text:    "Ansible 13 (ansible-core 2.20) needs Python 3.12 or later where make lint runs (the workflow's is " + DefaultVersions().Python + ")",
		}}},
		"ansibleLintPip": {Checked: "2026-12-06", Notes: []Note{{
			Reaches: "26",
			Text:    "ansible-lint 26 may report what 25 did not: run make lint, then fix what it finds or skip a rule in .ansible-lint",
		}}},
		"helm":                {Module: "helm.sh/helm/v4", Checked: "2026-12-06"},
		"devContainerGo":      {Checked: "2026-12-06", Notes: []Note{{Reaches: "trixie", Text: devContainerRebuild}}},
		"devContainerPython":  {Checked: "2026-12-06", Notes: []Note{{Reaches: "trixie", Text: devContainerRebuild}}},
		"devContainerBase":    {Checked: "2026-12-06", Notes: []Note{{Reaches: "trixie", Text: devContainerRebuild}}},
		"golangciLint":        {Module: "github.com/golangci/golangci-lint/v2", Checked: "2026-12-06"},
		"actionsGolangciLint": {Checked: "2026-12-06"},
		"kubeScore":           {Module: "github.com/zegl/kube-score", Checked: "2026-12-06"},
	}
}

// Keys are the keys of every pin, in the table's order.
func Keys() []string {
	t := reflect.TypeOf(Versions{})
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return keys
}

// Pin is the value of the pin key in v, "" when v has no such pin.
func (v Versions) Pin(key string) string {
	in := reflect.ValueOf(v)
	for i, k := range Keys() {
		if k == key {
			return in.Field(i).String()
		}
	}
	return ""
}

// Release is the release a pin names: an image's tag, an action's
// release (after "# "), or the pin itself.
func Release(pin string) string {
	if _, release, ok := strings.Cut(pin, " # "); ok {
		return release
	}
	if i := strings.LastIndexAny(pin, ":@"); i >= 0 {
		return pin[i+1:]
	}
	return pin
}
