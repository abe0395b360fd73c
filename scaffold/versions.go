package scaffold

import (
	"reflect"
	"strings"
)

// Versions pins every framework, library, tool and image a generated project
// uses. It is the only place versions live; the project file records the
// set a project was generated with.
type Versions struct {
	Go                string `json:"go"`
	ControllerRuntime string `json:"controllerRuntime"`
	Kubernetes        string `json:"kubernetes"`
	ControllerTools   string `json:"controllerTools"`
	SigsYAML          string `json:"sigsYAML"`
	// KubeAPIServer and Etcd are built from source for API-server tests.
	KubeAPIServer   string `json:"kubeAPIServer"`
	Etcd            string `json:"etcd"`
	GoBuilderImage  string `json:"goBuilderImage"`
	DistrolessImage string `json:"distrolessImage"`
	// Kopf and KubernetesPython are pip requirement specifiers.
	Kopf             string `json:"kopf"`
	KubernetesPython string `json:"kubernetesPython"`
	PythonImage      string `json:"pythonImage"`
	// Metacontroller is the release users install before deploying hooks.
	Metacontroller string `json:"metacontroller"`
	// The Ansible Operator base image and the collections its roles use.
	AnsibleOperatorImage      string `json:"ansibleOperatorImage"`
	KubernetesCoreCollection  string `json:"kubernetesCoreCollection"`
	OperatorSDKUtilCollection string `json:"operatorSDKUtilCollection"`
	// ShellOperatorImage is the base image of shell-operator projects.
	ShellOperatorImage string `json:"shellOperatorImage"`
	// ChildImage runs workload children: the starter commands need sleep and env.
	ChildImage string `json:"childImage"`
	// The project's CI workflow: the GitHub Actions it uses, the Python it
	// tests on, the pip specifiers of the Ansible tools, the helm CLI.
	ActionsCheckout    string `json:"actionsCheckout"`
	ActionsSetupGo     string `json:"actionsSetupGo"`
	ActionsSetupPython string `json:"actionsSetupPython"`
	ActionsCache       string `json:"actionsCache"`
	ActionsSetupHelm   string `json:"actionsSetupHelm"`
	Python             string `json:"python"`
	AnsiblePip         string `json:"ansiblePip"`
	AnsibleLintPip     string `json:"ansibleLintPip"`
	Helm               string `json:"helm"`
	// The dev containers' base images (.devcontainer), per toolchain.
	DevContainerGo     string `json:"devContainerGo"`
	DevContainerPython string `json:"devContainerPython"`
	DevContainerBase   string `json:"devContainerBase"`
	// GolangciLint lints go projects (make lint, and CI through its action).
	GolangciLint        string `json:"golangciLint"`
	ActionsGolangciLint string `json:"actionsGolangciLint"`
}

// DefaultVersions is the pinned set used by new projects.
func DefaultVersions() Versions {
	return Versions{
		Go:                        "1.26.0",
		ControllerRuntime:         "v0.25.2",
		Kubernetes:                "v0.37.2",
		ControllerTools:           "v0.23.0",
		SigsYAML:                  "v1.6.0",
		KubeAPIServer:             "v1.37.2",
		Etcd:                      "v3.6.8",
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
		ActionsCheckout:           "actions/checkout@v4.2.2",
		ActionsSetupGo:            "actions/setup-go@v5.5.0",
		ActionsSetupPython:        "actions/setup-python@v5.6.0",
		ActionsCache:              "actions/cache@v4.2.3",
		ActionsSetupHelm:          "azure/setup-helm@v4.3.0",
		Python:                    "3.13",
		AnsiblePip:                ">=11,<13",
		AnsibleLintPip:            ">=25,<26",
		Helm:                      "v4.3.1",
		DevContainerGo:            "mcr.microsoft.com/devcontainers/go:1.26-bookworm",
		DevContainerPython:        "mcr.microsoft.com/devcontainers/python:3.13-bookworm",
		DevContainerBase:          "mcr.microsoft.com/devcontainers/base:bookworm",
		GolangciLint:              "v2.15.0",
		ActionsGolangciLint:       "golangci/golangci-lint-action@v8.0.0",
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
