package scaffold

import (
	"reflect"
	"slices"
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
		GoBuilderImage:            "golang:1.26.8-bookworm",
		DistrolessImage:           "gcr.io/distroless/static-debian12:nonroot",
		Kopf:                      ">=1.44,<2",
		KubernetesPython:          ">=31,<38",
		PythonImage:               "python:3.13-slim-bookworm",
		Metacontroller:            "v4.17.2",
		ShellOperatorImage:        "ghcr.io/flant/shell-operator:v1.20.3",
		AnsibleOperatorImage:      "quay.io/operator-framework/ansible-operator:v1.42.3",
		KubernetesCoreCollection:  "3.2.0",
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
		AnsiblePip:                ">=11,<13",
		AnsibleLintPip:            ">=25,<26",
		Helm:                      "v4.3.2",
		DevContainerGo:            "mcr.microsoft.com/devcontainers/go:1.26-bookworm",
		DevContainerPython:        "mcr.microsoft.com/devcontainers/python:3.13-bookworm",
		DevContainerBase:          "mcr.microsoft.com/devcontainers/base:bookworm",
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
func enginePins() []string {
	return []string{"actionsCheckout", "actionsKind", "actionsSetupHelm", "childImage", "helm"}
}

// only is v with only the pins named (their keys in the project file).
func (v Versions) only(keys []string) Versions {
	var out Versions
	in, kept := reflect.ValueOf(v), reflect.ValueOf(&out).Elem()
	for i := 0; i < in.NumField(); i++ {
		key, _, _ := strings.Cut(in.Type().Field(i).Tag.Get("json"), ",")
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
