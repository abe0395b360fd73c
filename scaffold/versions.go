package scaffold

import "strings"

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
	}
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
