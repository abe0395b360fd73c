package scaffold

import (
	"slices"
	"strings"
)

// decoratorAttachments are the kinds a decorator can attach: a Service that
// exposes the target's pods.
var decoratorAttachments = []string{"Service"}

var (
	labelKey   = lazyRegexp(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValue = lazyRegexp(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// ParseTarget parses --target GROUP/VERSION/KIND or VERSION/KIND (core).
func ParseTarget(s string, plural func(kind string) string) (Target, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return Target{}, invalid(FlagSource, "target", s, "want GROUP/VERSION/KIND, or VERSION/KIND for the core group (e.g. apps/v1/Deployment)")
	}
	kind := parts[len(parts)-1]
	version := parts[len(parts)-2]
	if err := CheckKind(kind); err != nil {
		return Target{}, invalid(FlagSource, "target", s, "kind %q %v", kind, err)
	}
	if err := CheckVersion(version); err != nil {
		return Target{}, invalid(FlagSource, "target", s, "version %q %v", version, err)
	}
	if len(parts) == 3 && !dnsSubdomain().MatchString(parts[0]) {
		return Target{}, invalid(FlagSource, "target", s, "group %q must be a DNS-1123 subdomain", parts[0])
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
			return nil, invalid(FlagSource, "selector", s, "want KEY=VALUE[,KEY=VALUE...] with valid label keys and values (e.g. app-type=web)")
		}
		out[k] = v
	}
	return out, nil
}

// AddDecorator returns the project with a new decorator, whose inputs src
// names in errors.
func (p Project) AddDecorator(src Source, d Decorator) (Project, error) {
	if len(d.Name) > 63 || !dnsLabel().MatchString(d.Name) {
		return p, invalid(src, "name", d.Name, "must be a DNS-1123 label")
	}
	if err := validateTarget(src, d.Target); err != nil {
		return p, err
	}
	if len(d.Owns) == 0 {
		return p, inputErrorf("%s is required: the kinds to attach (%s)", src("owns"), strings.Join(decoratorAttachments, ", "))
	}
	for _, o := range d.Owns {
		if !slices.Contains(decoratorAttachments, o) {
			return p, invalid(src, "owns", o, "a decorator attaches %s", strings.Join(decoratorAttachments, ", "))
		}
	}
	for k, v := range d.Selector {
		if !labelKey().MatchString(k) || !labelValue().MatchString(v) {
			return p, invalid(src, "selector", k+"="+v, "want valid label keys and values (e.g. app-type=web)")
		}
	}
	for _, old := range p.Decorators {
		if old.Name == d.Name {
			return p, invalid(src, "name", d.Name, "the project already has this decorator; choose another --name")
		}
	}
	p.Decorators = append(append([]Decorator(nil), p.Decorators...), d)
	return p, nil
}

// validateTarget checks a decorator's target as ParseTarget builds it: the
// kind, the version and group of its apiVersion, and its resource.
func validateTarget(src Source, t Target) error {
	group, version, grouped := strings.Cut(t.APIVersion, "/")
	if !grouped {
		group, version = "", t.APIVersion
	}
	switch {
	case CheckKind(t.Kind) != nil:
		return invalid(src, "target", t.APIVersion+"/"+t.Kind, "kind %q %v", t.Kind, CheckKind(t.Kind))
	case CheckVersion(version) != nil:
		return invalid(src, "target", t.APIVersion+"/"+t.Kind, "version %q %v", version, CheckVersion(version))
	case grouped && !dnsSubdomain().MatchString(group):
		return invalid(src, "target", t.APIVersion+"/"+t.Kind, "group %q must be a DNS-1123 subdomain", group)
	case checkPlural(t.Resource) != nil:
		return invalid(src, "target", t.Resource, "resource %q %v", t.Resource, checkPlural(t.Resource))
	case slices.Contains(clusterScopedBuiltins, t.APIVersion+"/"+t.Kind):
		// Attachments are namespaced and live beside their target.
		return invalid(src, "target", t.APIVersion+"/"+t.Kind, "a cluster-scoped kind: the attachments (%s) are namespaced and would have no namespace to live in", strings.Join(decoratorAttachments, ", "))
	}
	return nil
}

// clusterScopedBuiltins are the built-in cluster-scoped kinds, by
// apiVersion/kind, that a decorator cannot attach namespaced objects to.
var clusterScopedBuiltins = []string{
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
