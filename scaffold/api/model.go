package api

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/opctl/opctl/scaffold/objpath"
	"github.com/opctl/opctl/scaffold/pins"
)

// Field is one spec field. Name is a dotted path: "backup.schedule" is the
// field schedule of the object backup.
type Field struct {
	Name        string    `json:"name"`
	Type        FieldType `json:"type"`
	Description string    `json:"description,omitempty"`
	Required    bool      `json:"required,omitempty"`
	Default     *string   `json:"default,omitempty"`
	Enum        []string  `json:"enum,omitempty"`
	Min         *int64    `json:"min,omitempty"`
	Max         *int64    `json:"max,omitempty"`
	MinLength   *int64    `json:"minLength,omitempty"`
	MaxLength   *int64    `json:"maxLength,omitempty"`
	Pattern     string    `json:"pattern,omitempty"`
	Column      bool      `json:"column,omitempty"`
	// Key makes the field a key of the list of objects it is in
	// (x-kubernetes-list-map-keys): server-side apply merges the list's
	// objects by their keys.
	Key bool `json:"key,omitempty"`
	// Immutable: the field cannot change (nor, when optional, be set or
	// unset) once the resource exists.
	Immutable bool `json:"immutable,omitempty"`
	// Rules are CEL rules on the field (self is the field's value).
	Rules []Rule `json:"rules,omitempty"`
	// Format is a string's format (email, uri...), which the API server
	// checks.
	Format string `json:"format,omitempty"`
	// MinItems and MaxItems bound a list's length; ListType is how
	// server-side apply merges it (atomic, set, map), MapKeys the keys of
	// a list of objects merged as a map.
	MinItems *int64   `json:"minItems,omitempty"`
	MaxItems *int64   `json:"maxItems,omitempty"`
	ListType string   `json:"listType,omitempty"`
	MapKeys  []string `json:"mapKeys,omitempty"`
	// MinProperties and MaxProperties bound the keys of a map or an object.
	MinProperties *int64 `json:"minProperties,omitempty"`
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// ItemRules are CEL rules on each item of a list or value of a map
	// (self is the item).
	ItemRules []Rule `json:"itemRules,omitempty"`
	// ItemDescription describes each item of a list or value of a map, as
	// Go tools write a struct's doc there.
	ItemDescription string `json:"itemDescription,omitempty"`
	// Schema is the whole schema of a field of type schema: taken from a
	// CRD (create api --from-crd) where the field language cannot write
	// it (oneOf, a list of objects without a list type, a map of objects).
	Schema *apiextensionsv1.JSONSchemaProps `json:"schema,omitempty"`
}

// Rule is a CEL validation rule the API server enforces
// (x-kubernetes-validations): Rule must be true, else it refuses the object
// with Message.
type Rule struct {
	Rule    string `json:"rule"`
	Message string `json:"message,omitempty"`
}

// ParseRule parses EXPR[#MESSAGE], as --rule and the rule= modifier take
// it: the message follows the last # outside CEL's string literals.
func ParseRule(spec string) Rule {
	quote, cut := byte(0), -1
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == '#':
			cut = i
		}
	}
	if cut < 0 {
		return Rule{Rule: strings.TrimSpace(spec)}
	}
	return Rule{Rule: strings.TrimSpace(spec[:cut]), Message: strings.TrimSpace(spec[cut+1:])}
}

// Path returns the segments of the dotted field name.
func (f Field) Path() []string { return strings.Split(f.Name, ".") }

// InList reports whether the field is in the objects of a list.
func (f Field) InList() bool { return strings.Contains(f.Name, objpath.ListSuffix) }

// Values are the spec's values as the children hold them: its fields, but
// each list of objects as one value of type []object (its declaration, or
// one made up), its objects whole, and no object that has fields below it
// (those fields are values).
func (a API) Values() []Field {
	var out []Field
	seen := map[string]bool{}
	for _, f := range a.Fields {
		list, _, inList := strings.Cut(f.Name, objpath.ListSuffix)
		switch {
		case inList || f.Type == TypeObjectList && HasBelow(a.Fields, f.Name):
			if !inList {
				list = f.Name
			}
			if seen[list] {
				continue
			}
			seen[list] = true
			decl := Field{Name: list, Type: TypeObjectList}
			if i := slices.IndexFunc(a.Fields, func(d Field) bool { return d.Name == list }); i >= 0 {
				decl = a.Fields[i]
			}
			out = append(out, decl)
		case f.Type == TypeObject && HasBelow(a.Fields, f.Name):
		default:
			out = append(out, f)
		}
	}
	return out
}

// HasBelow reports whether fields has a field below the object or list of
// objects named name.
func HasBelow(fields []Field, name string) bool {
	return slices.ContainsFunc(fields, func(f Field) bool {
		return strings.HasPrefix(f.Name, name+".") || strings.HasPrefix(f.Name, name+objpath.ListSuffix+".")
	})
}

// InData reports whether the starter's data children (a ConfigMap, a
// Secret) and its workloads' SPEC_ variables hold the value: every value
// but those of Kubernetes types, which go to the children that take them
// (Conventions), since their JSON differs between Go's typed encoding and
// the API server's (a quantity in canonical form, empty fields written).
func (f Field) InData() bool {
	_, kube := f.Type.Kube()
	return !kube && f.Type != TypeSchema
}

// Leaf returns the last segment of the field name.
func (f Field) Leaf() string {
	p := f.Path()
	return p[len(p)-1]
}

// API is one kind: the single source of truth every file is derived from.
type API struct {
	Group string `json:"group"`
	// Domain is the kind's own domain where its group is not under the
	// project's (a kind taken from another operator's CRD: cert-manager.io).
	Domain     string `json:"domain,omitempty"`
	Version    string `json:"version"`
	Kind       string `json:"kind"`
	Plural     string `json:"plural"`
	Namespaced bool   `json:"namespaced"`
	// ShortNames are kubectl's abbreviations of the resource (db for
	// databases); Categories are the groups of resources kubectl get
	// CATEGORY lists it in (all).
	ShortNames []string `json:"shortNames,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Fields     []Field  `json:"fields,omitempty"`
	// Status are the kind's own status fields (an endpoint, a phase),
	// beside the observedGeneration and conditions every kind has: the
	// user's code sets them through each style's status seam.
	Status []Field `json:"status,omitempty"`
	// ScaleReplicas names the spec field (an int32 at the top level) the
	// scale subresource scales, so that kubectl scale and a
	// HorizontalPodAutoscaler can target the kind; "" for none.
	ScaleReplicas string `json:"scaleReplicas,omitempty"`
	// Rules are CEL rules on the spec (self is the spec): rules across
	// fields.
	Rules []Rule   `json:"rules,omitempty"`
	Owns  []string `json:"owns,omitempty"`
	// RBAC is access the kind's code needs beyond its owned kinds, each an
	// AccessRule as --rbac writes it: the operator's role grants it.
	RBAC []string `json:"rbac,omitempty"`
	// Admission is the kind's admission webhook or policy, if any.
	Admission *Admission `json:"admission,omitempty"`
	// Options are the kind's settings its style adds to the model
	// (Style.KindOptions: ansible's playbook), by name. Each is a key of
	// the kind's entry in the project file (MarshalJSON).
	Options map[string]string `json:"-"`
	// Served are the kind's older versions, oldest first, still served
	// beside Version, which is the storage version and the one the
	// operator's code reads.
	Served []ServedVersion `json:"served,omitempty"`
	// SpecOptional: objects may leave out spec, as in CRDs that do not
	// require it (taken with --from-crd).
	SpecOptional bool `json:"specOptional,omitempty"`
	// SpecSchema and StatusSchema are what the spec's and the status's
	// schemas have beyond their fields and rules (a default,
	// x-kubernetes-preserve-unknown-fields), taken from a CRD.
	SpecSchema   *apiextensionsv1.JSONSchemaProps `json:"specSchema,omitempty"`
	StatusSchema *apiextensionsv1.JSONSchemaProps `json:"statusSchema,omitempty"`
}

// ServedVersion is an older version of a kind, still served: its schema
// as it was when the next version came. Without renames, the API server
// converts its objects to and from the storage version by changing their
// apiVersion only (None conversion), so the two schemas differ only by
// fields with defaults (apicompat.NoneBreaks); with them, the operator's
// conversion webhook converts (API.Converts).
type ServedVersion struct {
	Name          string  `json:"name"`
	Fields        []Field `json:"fields,omitempty"`
	Status        []Field `json:"status,omitempty"`
	Rules         []Rule  `json:"rules,omitempty"`
	ScaleReplicas string  `json:"scaleReplicas,omitempty"`
	// Renames are the spec fields, objects or lists of objects this
	// version calls otherwise than the next version does.
	Renames []Rename `json:"renames,omitempty"`
	// Removed are the spec fields, objects or lists of objects of this
	// version, as it names them, that the next version lacks and that
	// have no default: the conversion webhook keeps their values in an
	// annotation of the next version's objects (RemovedAnnotation) and
	// gives them back on the way down, as Kubernetes' own conversions do.
	Removed []string `json:"removed,omitempty"`
}

// Rename is a spec field, object or list of objects whose name changes
// from one version to the next, under the same parent: From in the older
// version, To in the newer (users[].name to users[].login, backup to
// backups).
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Of is the name in the newer version of the field named name in the
// older: renamed if it is From or below it.
func (r Rename) Of(name string) string {
	switch {
	case name == r.From:
		return r.To
	case strings.HasPrefix(name, r.From+"."), strings.HasPrefix(name, r.From+objpath.ListSuffix+"."):
		return r.To + name[len(r.From):]
	}
	return name
}

// Renamed is the kind with its spec fields named as renames name them.
func (a API) Renamed(renames []Rename) API {
	a.Fields = slices.Clone(a.Fields)
	for i := range a.Fields {
		for _, r := range renames {
			a.Fields[i].Name = r.Of(a.Fields[i].Name)
		}
	}
	for _, r := range renames {
		if a.ScaleReplicas == r.From {
			a.ScaleReplicas = r.To
		}
	}
	return a
}

// Converts reports whether the kind's versions need the operator's
// conversion webhook: some older version renames a field, or removes one
// whose values the webhook keeps. Once one does, the webhook converts
// between every two versions.
func (a API) Converts() bool {
	return slices.ContainsFunc(a.Served, ServedVersion.converts)
}

func (v ServedVersion) converts() bool { return len(v.Renames)+len(v.Removed) > 0 }

// KeepsRemoved reports whether some older version's objects keep fields the
// next version removed (ServedVersion.Removed).
func (a API) KeepsRemoved() bool {
	return slices.ContainsFunc(a.Served, func(v ServedVersion) bool { return len(v.Removed) > 0 })
}

// Conversion is the first flag (rename-field or remove-field) that made
// the kind convert, and what it asked of the conversion, as a message
// says it; "" if the kind does not convert.
func (a API) Conversion() (flag, asked string) {
	i := slices.IndexFunc(a.Served, ServedVersion.converts)
	switch {
	case i < 0:
		return "", ""
	case len(a.Served[i].Renames) > 0:
		return "rename-field", fmt.Sprintf("renames fields between %s and %s", a.Served[i].Name, a.NextVersion(i))
	}
	return "remove-field", fmt.Sprintf("removes %s in %s, which has no default: its values, kept in an annotation, come back in %s",
		a.Served[i].Removed[0], a.NextVersion(i), a.Served[i].Name)
}

// NextVersion is the version after older version i (an index of Served).
func (a API) NextVersion(i int) string {
	if i+1 < len(a.Served) {
		return a.Served[i+1].Name
	}
	return a.Version
}

// RemovedAnnotation is the annotation in which the objects of the version
// after older version i keep the values of the fields it removed
// (ServedVersion.Removed): JSON in the shape of version i's spec.
func (a API) RemovedAnnotation(domain string, i int) string {
	return a.FullGroup(domain) + "/removed-in-" + a.NextVersion(i)
}

// Moved are the spec fields of older version i (an index of Served) that
// the current version calls otherwise, each as a Rename from its name in
// version i to its name now, in the order of version i's fields; a field
// a later version removed is not among them.
func (a API) Moved(i int) []Rename {
	var out []Rename
	for _, f := range a.Served[i].Fields {
		name, kept := f.Name, true
		for _, v := range a.Served[i:] {
			kept = kept && !slices.ContainsFunc(v.Removed, func(r string) bool { return Below(name, r) })
			for _, r := range v.Renames {
				name = r.Of(name)
			}
		}
		if kept && name != f.Name {
			out = append(out, Rename{From: f.Name, To: name})
		}
	}
	return out
}

// Onward is the kind as older version v hands its objects to the next
// version through the conversion webhook: v's schema without the fields it
// removed, renamed.
func (a API) Onward(v ServedVersion) API {
	a = a.At(v)
	a.Fields = slices.DeleteFunc(slices.Clone(a.Fields), func(f Field) bool {
		return slices.ContainsFunc(v.Removed, func(r string) bool { return Below(f.Name, r) })
	})
	return a.Renamed(v.Renames)
}

// Below reports whether the field named name is the field, object or list
// of objects named parent, or below it.
func Below(name, parent string) bool {
	return name == parent || strings.HasPrefix(name, parent+".") || strings.HasPrefix(name, parent+objpath.ListSuffix+".")
}

// At is the kind as it is in its older version v: v's schema, and no
// other versions.
func (a API) At(v ServedVersion) API {
	a.Version, a.Fields, a.Status, a.Rules, a.ScaleReplicas, a.Served = v.Name, v.Fields, v.Status, v.Rules, v.ScaleReplicas, nil
	return a
}

// versionOf is the kind's version as an older version keeps it.
func (a API) versionOf() ServedVersion {
	return ServedVersion{Name: a.Version, Fields: a.Fields, Status: a.Status, Rules: a.Rules, ScaleReplicas: a.ScaleReplicas}
}

// OlderVersions are the kind as it is in each older version, oldest first.
func (a API) OlderVersions() []API {
	var out []API
	for _, v := range a.Served {
		out = append(out, a.At(v))
	}
	return out
}

// FullGroup is the API group with the project domain appended.
func (a API) FullGroup(domain string) string { return a.Group + "." + cmp.Or(a.Domain, domain) }

// Singular is the lower-case kind, as Kubernetes names it.
func (a API) Singular() string { return strings.ToLower(a.Kind) }

// CRDName is the metadata.name of the CustomResourceDefinition.
func (a API) CRDName(domain string) string { return a.Plural + "." + a.FullGroup(domain) }

// Scope returns "Namespaced" or "Cluster".
func (a API) Scope() string {
	if a.Namespaced {
		return "Namespaced"
	}
	return "Cluster"
}

// OwnedKinds returns the owned kinds in the canonical order of ChildKinds.
func (a API) OwnedKinds() []ChildKind {
	var out []ChildKind
	for _, c := range childKinds {
		for _, o := range a.Owns {
			if o == c.Kind {
				out = append(out, c)
			}
		}
	}
	return out
}

// ScaledKind is the workload the API's owned HorizontalPodAutoscaler
// scales: the Deployment, else the StatefulSet; "" without an autoscaler.
func (a API) ScaledKind() string {
	switch {
	case !slices.Contains(a.Owns, "HorizontalPodAutoscaler"):
		return ""
	case slices.Contains(a.Owns, "Deployment"):
		return "Deployment"
	}
	return "StatefulSet"
}

// ChildKind describes a built-in kind a custom resource may own.
type ChildKind struct {
	Kind     string // ConfigMap
	Group    string // "" for core
	Version  string
	Resource string // configmaps
	// Mutable is false for kinds whose spec cannot change after creation,
	// so reconcilers only create them.
	Mutable bool
	// Workload marks kinds that run pods from a pod template.
	Workload bool
	// Needs lists the owned kinds one of which this kind refers to (an
	// HPA scales a workload, an Ingress routes to the Service).
	Needs []string
	// Prerequisite is what the cluster needs before the kind can be
	// created (its CRD), if anything.
	Prerequisite *Prerequisite
}

// Suffix is appended to the custom resource name to name the child.
func (c ChildKind) Suffix() string { return strings.ToLower(c.Kind) }

// Shape names the starter a style writes for the kind's builder: kinds built
// alike share one (data: ConfigMap and Secret; workload: Deployment and
// StatefulSet; job: Job and CronJob), the others have their own.
func (c ChildKind) Shape() string {
	switch c.Kind {
	case "ConfigMap", "Secret":
		return "data"
	case "Deployment", "StatefulSet":
		return "workload"
	case "Job", "CronJob":
		return "job"
	}
	return c.Suffix()
}

// APIVersion is the child's apiVersion field.
func (c ChildKind) APIVersion() string {
	if c.Group == "" {
		return c.Version
	}
	return c.Group + "/" + c.Version
}

var childKinds = []ChildKind{
	{Kind: "ConfigMap", Version: "v1", Resource: "configmaps", Mutable: true},
	{Kind: "Secret", Version: "v1", Resource: "secrets", Mutable: true},
	{Kind: "Service", Version: "v1", Resource: "services", Mutable: true},
	{Kind: "Deployment", Group: "apps", Version: "v1", Resource: "deployments", Mutable: true, Workload: true},
	{Kind: "StatefulSet", Group: "apps", Version: "v1", Resource: "statefulsets", Mutable: true, Workload: true},
	{Kind: "Job", Group: "batch", Version: "v1", Resource: "jobs", Mutable: false, Workload: true},
	{Kind: "PodDisruptionBudget", Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Mutable: true},
	{Kind: "NetworkPolicy", Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Mutable: true},
	{Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Mutable: true,
		Needs: []string{"Deployment", "StatefulSet"}},
	{Kind: "Ingress", Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Mutable: true,
		Needs: []string{"Service"}},
	{Kind: "CronJob", Group: "batch", Version: "v1", Resource: "cronjobs", Mutable: true, Workload: true},
	// The Prometheus Operator's kind: no Go package in client-go, so Go
	// projects handle it as an unstructured object.
	{Kind: "ServiceMonitor", Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors", Mutable: true,
		Needs: []string{"Service"}, Prerequisite: &Prerequisite{CRD: "servicemonitors.monitoring.coreos.com",
			Install: "install the Prometheus Operator first (https://prometheus-operator.dev/docs/getting-started/installation/): ServiceMonitor children need its CRD",
			// The CRD alone: the children are made whether or not a
			// Prometheus scrapes them.
			Setup: func(v pins.Versions) string {
				return `"$KUBECTL" apply --server-side -f https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/` + v.PrometheusOperator + `/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml`
			}}},
}

// ChildKinds lists the kinds a custom resource may own, in a fixed order.
func ChildKinds() []ChildKind { return append([]ChildKind(nil), childKinds...) }

// LookupChildKind finds an ownable kind by name.
func LookupChildKind(kind string) (ChildKind, bool) {
	for _, c := range childKinds {
		if c.Kind == kind {
			return c, true
		}
	}
	return ChildKind{}, false
}

// ChildKindNames lists the kinds a custom resource may own.
func ChildKindNames() []string {
	var out []string
	for _, c := range childKinds {
		out = append(out, c.Kind)
	}
	return out
}
