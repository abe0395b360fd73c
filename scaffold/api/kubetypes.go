package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// KubeType is a Kubernetes type a field may have by name: its schema is
// Kubernetes' own, as controller-gen writes it for the pinned k8s.io/api
// (kubetypes.json, which hack/kubetypes derives from the Go types), the
// go style declares the field with the Go type itself, and every other
// style reads it as the JSON it is.
type KubeType struct {
	// Name is the type as a field names it: core/v1.ResourceRequirements.
	Name string
	// Package is the Go package (k8s.io/api/core/v1), GoName the type in it.
	Package, GoName string
}

// kubeType is a row of kubeTypeTable.
type kubeType = KubeType

// GoAlias is the import alias of the type's package, as kubebuilder
// projects name them (corev1, metav1, appsv1).
func (k KubeType) GoAlias() string {
	group, version, _ := strings.Cut(strings.TrimSuffix(k.Name, "."+k.GoName), "/")
	return group + version
}

// kubePackages are the packages of the Kubernetes types, by the group as
// a field names it.
var kubePackages = map[string]string{
	"core":        "k8s.io/api/core/v1",
	"apps":        "k8s.io/api/apps/v1",
	"batch":       "k8s.io/api/batch/v1",
	"autoscaling": "k8s.io/api/autoscaling/v2",
	"networking":  "k8s.io/api/networking/v1",
	"policy":      "k8s.io/api/policy/v1",
	"rbac":        "k8s.io/api/rbac/v1",
	"meta":        "k8s.io/apimachinery/pkg/apis/meta/v1",
}

// kubeTypeNames are the Kubernetes types a field may name, by package:
// those operators' APIs embed (a workload's pod template and its parts,
// selectors, references, persistent volume claims, autoscaling and
// disruption settings).
var kubeTypeNames = map[string][]string{
	"core/v1": {
		"Affinity", "Capabilities", "ConfigMapEnvSource", "ConfigMapKeySelector", "ConfigMapVolumeSource",
		"Container", "ContainerPort", "EmptyDirVolumeSource", "EnvFromSource", "EnvVar", "EnvVarSource",
		"HostAlias", "KeyToPath", "Lifecycle", "LocalObjectReference", "NodeAffinity", "NodeSelector",
		"ObjectReference", "PersistentVolumeClaim", "PersistentVolumeClaimSpec", "PersistentVolumeClaimTemplate",
		"PodAffinity", "PodAntiAffinity", "PodDNSConfig", "PodSecurityContext", "PodSpec", "PodTemplateSpec",
		"Probe", "ResourceRequirements", "SeccompProfile", "SecretEnvSource", "SecretKeySelector",
		"SecretReference", "SecretVolumeSource", "SecurityContext", "ServicePort", "ServiceSpec", "Toleration",
		"TopologySpreadConstraint", "TypedLocalObjectReference", "TypedObjectReference", "Volume", "VolumeMount",
		"VolumeSource",
	},
	"apps/v1":        {"DaemonSetUpdateStrategy", "DeploymentStrategy", "StatefulSetUpdateStrategy"},
	"batch/v1":       {"JobSpec", "JobTemplateSpec"},
	"autoscaling/v2": {"CrossVersionObjectReference", "HorizontalPodAutoscalerBehavior", "MetricSpec"},
	"networking/v1":  {"IngressBackend", "IngressRule", "IngressTLS", "NetworkPolicyPeer", "NetworkPolicyPort"},
	"policy/v1":      {"PodDisruptionBudgetSpec"},
	"rbac/v1":        {"PolicyRule", "RoleRef", "Subject"},
	"meta/v1":        {"Condition", "LabelSelector", "LabelSelectorRequirement"},
}

// KubeTypes lists every Kubernetes type a field may name, sorted.
func KubeTypes() []KubeType { return slices.Clone(kubeTypeTable) }

// kubeTypeTable is kubeTypes, built once: types are looked up for every
// field of every file.
var kubeTypeTable = kubeTypes()

func kubeTypes() []KubeType {
	var out []KubeType
	for _, gv := range slices.Sorted(mapKeys(kubeTypeNames)) {
		group, _, _ := strings.Cut(gv, "/")
		for _, name := range kubeTypeNames[gv] {
			out = append(out, KubeType{Name: gv + "." + name, Package: kubePackages[group], GoName: name})
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// lookupKubeType finds a Kubernetes type by its name (core/v1.Toleration)
// or its Go name (corev1.Toleration).
func lookupKubeType(s string) (kubeType, bool) {
	if !strings.Contains(s, ".") {
		return kubeType{}, false
	}
	for _, k := range kubeTypeTable {
		if s == k.Name || s == k.GoAlias()+"."+k.GoName {
			return k, true
		}
	}
	return kubeType{}, false
}

// exampleKubeTypes names a few Kubernetes types for help and errors.
func exampleKubeTypes() string {
	return "core/v1.ResourceRequirements (opctl types lists them)"
}

//go:embed kubetypes.json
var kubeTypesJSON []byte

// kubeSchemaFile is kubetypes.json: each type's schema, with subtrees
// several types share once in Shared, referred to by {"$ref": KEY}.
type kubeSchemaFile struct {
	// Kubernetes is the k8s.io/api version the schemas are of, and
	// ControllerTools the controller-gen that wrote them.
	Kubernetes      string                     `json:"kubernetes"`
	ControllerTools string                     `json:"controllerTools"`
	Types           map[string]json.RawMessage `json:"types"`
	Shared          map[string]json.RawMessage `json:"shared"`
}

// kubeSchemas reads kubetypes.json once: it is large, and only kinds that
// use a Kubernetes type need it.
var kubeSchemas = sync.OnceValues(func() (map[string]apiextensionsv1.JSONSchemaProps, error) {
	var file kubeSchemaFile
	if err := json.Unmarshal(kubeTypesJSON, &file); err != nil {
		return nil, fmt.Errorf("internal error: kubetypes.json: %w", err)
	}
	out := map[string]apiextensionsv1.JSONSchemaProps{}
	for name, raw := range file.Types {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("internal error: kubetypes.json: %s: %w", name, err)
		}
		b, err := json.Marshal(InflateShared(v, file.Shared))
		if err != nil {
			return nil, err
		}
		var s apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("internal error: kubetypes.json: %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})

// InflateShared replaces every {"$ref": KEY} in v by shared[KEY], itself
// inflated.
func InflateShared(v any, shared map[string]json.RawMessage) any {
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok && len(t) == 1 {
			var s any
			_ = json.Unmarshal(shared[ref], &s)
			return InflateShared(s, shared)
		}
		for k, x := range t {
			t[k] = InflateShared(x, shared)
		}
	case []any:
		for i, x := range t {
			t[i] = InflateShared(x, shared)
		}
	}
	return v
}

// KubeSchema is the schema of a Kubernetes type.
func KubeSchema(name string) (apiextensionsv1.JSONSchemaProps, error) {
	all, err := kubeSchemas()
	if err != nil {
		return apiextensionsv1.JSONSchemaProps{}, err
	}
	s, ok := all[name]
	if !ok {
		return s, fmt.Errorf("internal error: kubetypes.json has no schema of %s: run make kubetypes", name)
	}
	return *s.DeepCopy(), nil
}
