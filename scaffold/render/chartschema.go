package render

import (
	"github.com/opctl/opctl/scaffold"
)

// jsonSchema is the part of JSON Schema (draft 7) a chart's
// values.schema.json uses; Helm checks the values against it on install,
// upgrade, template and lint.
type jsonSchema struct {
	Schema               string                 `json:"$schema,omitempty"`
	Description          string                 `json:"description,omitempty"`
	Type                 string                 `json:"type,omitempty"`
	Properties           map[string]*jsonSchema `json:"properties,omitempty"`
	AdditionalProperties any                    `json:"additionalProperties,omitempty"`
	Required             []string               `json:"required,omitempty"`
	Items                *jsonSchema            `json:"items,omitempty"`
	Enum                 []string               `json:"enum,omitempty"`
	Const                any                    `json:"const,omitempty"`
	Minimum              *int                   `json:"minimum,omitempty"`
	Maximum              *int                   `json:"maximum,omitempty"`
	MinLength            *int                   `json:"minLength,omitempty"`
	Pattern              string                 `json:"pattern,omitempty"`
	AnyOf                []*jsonSchema          `json:"anyOf,omitempty"`
	If                   *jsonSchema            `json:"if,omitempty"`
	Then                 *jsonSchema            `json:"then,omitempty"`
}

// closed is an object schema with these properties and no others: a
// misspelt value is refused rather than ignored.
func closed(description string, props map[string]*jsonSchema) *jsonSchema {
	return &jsonSchema{Type: "object", Description: description, Properties: props, AdditionalProperties: false}
}

func typed(t, description string) *jsonSchema { return &jsonSchema{Type: t, Description: description} }

// valuesSchema is the schema of the chart's values: each value's type, and
// replicaCount at most 1 where the runtime cannot run two replicas (or, with
// leader election, while it is off).
func valuesSchema(v chartValues, rt scaffold.Runtime) *jsonSchema {
	zero, one := 0, 1
	quantity := &jsonSchema{Type: "object", AdditionalProperties: &jsonSchema{AnyOf: []*jsonSchema{{Type: "string"}, {Type: "number"}}}}
	replicas := &jsonSchema{Type: "integer", Minimum: &zero, Description: "replicas of the operator"}
	if !rt.Replicable() {
		replicas.Maximum = &one
		replicas.Description += ": the runtime runs one instance, so at most 1"
	}
	props := map[string]*jsonSchema{
		// Helm gives every chart its parent's global values.
		"global": typed("object", "values shared with a parent chart"),
		"image": closed("the operator image", map[string]*jsonSchema{
			"repository": {Type: "string", MinLength: &one},
			// A tag as OCI distribution defines it: a digest has a value
			// of its own, so "@sha256:..." is refused here, not rendered
			// as "repository:@sha256:...".
			"tag": {Type: "string", Description: "default: the chart's appVersion", Pattern: `^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$`},
			"digest": {Type: "string", Description: "pins the image (sha256:...), in place of the tag",
				Pattern: `^(sha256:[a-f0-9]{64})?$`},
			"pullPolicy": {Type: "string", Enum: []string{"Always", "IfNotPresent", "Never"}},
		}),
		"nameOverride":     typed("string", "the app.kubernetes.io/name label (default: the chart's name)"),
		"fullnameOverride": typed("string", "the prefix of every object's name (default: the release's)"),
		"imagePullSecrets": {Type: "array", Description: "the Secrets the pod pulls the image with",
			Items: &jsonSchema{Type: "object", Required: []string{"name"}, Properties: map[string]*jsonSchema{"name": {Type: "string", MinLength: &one}}}},
		"podAnnotations":            {Type: "object", AdditionalProperties: typed("string", "")},
		"podLabels":                 {Type: "object", AdditionalProperties: typed("string", "")},
		"priorityClassName":         typed("string", "the pod's PriorityClass"),
		"topologySpreadConstraints": {Type: "array", Items: typed("object", "")},
		"replicaCount":              replicas,
		"resources": closed("the operator container's requests and limits", map[string]*jsonSchema{
			"limits": quantity, "requests": quantity, "claims": typed("array", ""),
		}),
		"env": {Type: "array", Description: "extra environment variables of the operator container",
			Items: &jsonSchema{Type: "object", Required: []string{"name"}, Properties: map[string]*jsonSchema{"name": {Type: "string", MinLength: &one}}}},
		"extraArgs": {Type: "array", Description: "more arguments of the operator container", Items: typed("string", "")},
		"extraVolumes": {Type: "array", Description: "more volumes of the pod",
			Items: &jsonSchema{Type: "object", Required: []string{"name"}, Properties: map[string]*jsonSchema{"name": {Type: "string", MinLength: &one}}}},
		"extraVolumeMounts": {Type: "array", Description: "more volume mounts of the operator container",
			Items: &jsonSchema{Type: "object", Required: []string{"name", "mountPath"}, Properties: map[string]*jsonSchema{
				"name": {Type: "string", MinLength: &one}, "mountPath": {Type: "string", MinLength: &one}}}},
		"podSecurityContext": typed("object", "the pod's securityContext (default: restricted Pod Security)"),
		"securityContext":    typed("object", "the operator container's securityContext (default: restricted Pod Security, read-only root)"),
		"nodeSelector":       {Type: "object", AdditionalProperties: typed("string", "")},
		"tolerations":        {Type: "array", Items: typed("object", "")},
		"affinity":           typed("object", ""),
		"namespace":          closed("", map[string]*jsonSchema{"create": typed("boolean", "create the release namespace")}),
		"rbac":               closed("", map[string]*jsonSchema{"create": typed("boolean", "create the operator's roles and bindings")}),
		"serviceAccount": closed("", map[string]*jsonSchema{"create": typed("boolean", ""), "name": typed("string", "default: <release>-controller-manager"),
			"annotations": {Type: "object", Description: "on the ServiceAccount: a cloud identity (eks.amazonaws.com/role-arn, iam.gke.io/gcp-service-account)",
				AdditionalProperties: typed("string", "")}}),
	}
	s := &jsonSchema{Schema: "http://json-schema.org/draft-07/schema#", Type: "object", Properties: props, AdditionalProperties: false}
	if v.LeaderElection != nil {
		props["leaderElection"] = closed("", map[string]*jsonSchema{"enabled": typed("boolean", "one replica leads, the others stand by")})
		s.If = &jsonSchema{Properties: map[string]*jsonSchema{"leaderElection": {Properties: map[string]*jsonSchema{"enabled": {Const: false}}}}}
		s.Then = &jsonSchema{Properties: map[string]*jsonSchema{"replicaCount": {Maximum: &one}}}
	}
	if v.CRDs != nil {
		props["crds"] = closed("", map[string]*jsonSchema{
			"install": typed("boolean", "install and upgrade the CRDs with the release"),
			"keep":    typed("boolean", "keep the CRDs, and every object of their kinds, when the release is uninstalled"),
		})
	}
	if v.Metrics != nil {
		enabled := func() *jsonSchema { return closed("", map[string]*jsonSchema{"enabled": typed("boolean", "")}) }
		props["metrics"] = closed("opt-in metrics objects", map[string]*jsonSchema{
			"service": enabled(), "networkPolicy": enabled(), "serviceMonitor": enabled(),
		})
	}
	return s
}
