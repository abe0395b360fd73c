package scaffold

import (
	"maps"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
)

// decoratorAttachments are the kinds a decorator can attach: a Service that
// exposes the target's pods.
var decoratorAttachments = []string{"Service"}

var (
	labelKey   = naming.LazyRegexp(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValue = naming.LazyRegexp(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// ParseTarget parses --target GROUP/VERSION/KIND or VERSION/KIND (core).
func ParseTarget(s string, plural func(kind string) string) (Target, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return Target{}, input.Invalid(input.FlagSource, "target", s, "want GROUP/VERSION/KIND, or VERSION/KIND for the core group (e.g. apps/v1/Deployment)")
	}
	kind := parts[len(parts)-1]
	version := parts[len(parts)-2]
	if err := naming.CheckKind(kind); err != nil {
		return Target{}, input.Invalid(input.FlagSource, "target", s, "kind %q %v", kind, err)
	}
	if err := naming.CheckVersion(version); err != nil {
		return Target{}, input.Invalid(input.FlagSource, "target", s, "version %q %v", version, err)
	}
	if len(parts) == 3 && !naming.DNSSubdomain().MatchString(parts[0]) {
		return Target{}, input.Invalid(input.FlagSource, "target", s, "group %q must be a DNS-1123 subdomain", parts[0])
	}
	return Target{APIVersion: strings.Join(parts[:len(parts)-1], "/"), Kind: kind, Resource: plural(kind)}, nil
}

// ParseSelector parses --selector k=v[,k=v...].
func ParseSelector(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || !labelKey().MatchString(k) || !labelValue().MatchString(v) {
			return nil, input.Invalid(input.FlagSource, "selector", s, "want KEY=VALUE[,KEY=VALUE...] with valid label keys and values (e.g. app-type=web)")
		}
		out[k] = v
	}
	return out, nil
}

// AddDecorator returns the project with a new decorator, whose inputs src
// names in errors.
func (p Project) AddDecorator(src input.Source, d Decorator) (Project, error) {
	if len(d.Name) > 63 || !naming.DNSLabel().MatchString(d.Name) {
		return p, input.Invalid(src, "name", d.Name, "must be a DNS-1123 label")
	}
	if err := validateTarget(src, d.Target); err != nil {
		return p, err
	}
	if len(d.Owns) == 0 {
		return p, input.Errorf("%s is required: the kinds to attach (%s)", src("owns"), strings.Join(decoratorAttachments, ", "))
	}
	for _, o := range d.Owns {
		if !slices.Contains(decoratorAttachments, o) {
			return p, input.Invalid(src, "owns", o, "a decorator attaches %s", strings.Join(decoratorAttachments, ", "))
		}
	}
	if d.Target.ClusterScoped() {
		// Attachments are namespaced and live beside their target.
		return p, input.Invalid(src, "target", d.Target.APIVersion+"/"+d.Target.Kind, "a cluster-scoped kind: the attachments (%s) are namespaced and would have no namespace to live in", strings.Join(decoratorAttachments, ", "))
	}
	if err := checkSelector(src, d.Selector); err != nil {
		return p, err
	}
	for _, old := range p.Decorators {
		if old.Name == d.Name {
			return p, input.Invalid(src, "name", d.Name, "the project already has this decorator; choose another --name")
		}
	}
	p.Decorators = append(append([]Decorator(nil), p.Decorators...), d)
	return p, nil
}

// validateTarget checks a decorator's target as ParseTarget builds it: the
// kind, the version and group of its apiVersion, and its resource.
func validateTarget(src input.Source, t Target) error {
	group, version, grouped := strings.Cut(t.APIVersion, "/")
	if !grouped {
		group, version = "", t.APIVersion
	}
	switch {
	case naming.CheckKind(t.Kind) != nil:
		return input.Invalid(src, "target", t.APIVersion+"/"+t.Kind, "kind %q %v", t.Kind, naming.CheckKind(t.Kind))
	case naming.CheckVersion(version) != nil:
		return input.Invalid(src, "target", t.APIVersion+"/"+t.Kind, "version %q %v", version, naming.CheckVersion(version))
	case grouped && !naming.DNSSubdomain().MatchString(group):
		return input.Invalid(src, "target", t.APIVersion+"/"+t.Kind, "group %q must be a DNS-1123 subdomain", group)
	case naming.CheckPlural(t.Resource) != nil:
		return input.Invalid(src, "target", t.Resource, "resource %q %v", t.Resource, naming.CheckPlural(t.Resource))
	}
	return nil
}

// checkSelector checks label selector keys and values.
func checkSelector(src input.Source, selector map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		if !labelKey().MatchString(k) || !labelValue().MatchString(selector[k]) {
			return input.Invalid(src, "selector", k+"="+selector[k], "want valid label keys and values (e.g. app-type=web)")
		}
	}
	return nil
}

// AddWatch returns the project with a new watch of an existing kind, whose
// inputs src names in errors.
func (p Project) AddWatch(src input.Source, w Watch) (Project, error) {
	if len(w.Name) > 63 || !naming.DNSLabel().MatchString(w.Name) {
		return p, input.Invalid(src, "name", w.Name, "must be a DNS-1123 label")
	}
	if err := validateTarget(src, w.Target); err != nil {
		return p, err
	}
	if p.NamespaceScoped() && w.Target.ClusterScoped() {
		return p, input.Invalid(src, "target", w.Target.APIVersion+"/"+w.Target.Kind, "is cluster-scoped, and the project is namespace-scoped (scope: namespace in %s): its operator sees one namespace, and a cluster-scoped object is in none", ProjectFileName)
	}
	if w.Namespace != "" && p.NamespaceScoped() {
		return p, input.Invalid(src, "namespace", w.Namespace, "the project is namespace-scoped (scope: namespace in %s): its watches see the namespace the operator runs in, and no other; leave --namespace out", ProjectFileName)
	}
	if w.Namespace != "" {
		if len(w.Namespace) > 63 || !naming.DNSLabel().MatchString(w.Namespace) {
			return p, input.Invalid(src, "namespace", w.Namespace, "must be a DNS-1123 label")
		}
		if w.Target.ClusterScoped() {
			return p, input.Invalid(src, "namespace", w.Namespace, "%s is cluster-scoped: its objects are in no namespace", w.Target.Kind)
		}
	}
	if err := checkSelector(src, w.Selector); err != nil {
		return p, err
	}
	if err := api.ValidateAccessRules(src, "the watch "+w.Name, w.RBAC); err != nil {
		return p, err
	}
	for _, a := range p.APIs {
		if a.Plural == w.Name {
			return p, input.Invalid(src, "name", w.Name, "the project's kind %s has this resource name; choose another --name", a.Kind)
		}
	}
	for _, old := range p.Watches {
		if old.Name == w.Name {
			return p, input.Invalid(src, "name", w.Name, "the project already has this watch; choose another --name")
		}
	}
	p.Watches = append(append([]Watch(nil), p.Watches...), w)
	return p, nil
}

// ClusterScopedBuiltins are the built-in cluster-scoped kinds, by
// apiVersion/kind: a decorator cannot attach namespaced objects to them,
// a watch of them has no namespace.
var ClusterScopedBuiltins = []string{
	"v1/Namespace", "v1/Node", "v1/PersistentVolume", "v1/ComponentStatus",
	"rbac.authorization.k8s.io/v1/ClusterRole", "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
	"storage.k8s.io/v1/StorageClass", "storage.k8s.io/v1/CSIDriver", "storage.k8s.io/v1/CSINode", "storage.k8s.io/v1/VolumeAttachment",
	"apiextensions.k8s.io/v1/CustomResourceDefinition", "scheduling.k8s.io/v1/PriorityClass",
	"networking.k8s.io/v1/IngressClass", "node.k8s.io/v1/RuntimeClass",
	"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
	"admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding",
	"certificates.k8s.io/v1/CertificateSigningRequest", "apiregistration.k8s.io/v1/APIService",
	"flowcontrol.apiserver.k8s.io/v1/FlowSchema", "flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration",
}
