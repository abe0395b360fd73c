package render

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/pins"
)

// Names of the admission objects; kustomize prefixes them.
const (
	webhookServiceName = "webhook-service"
	servingCertName    = "serving-cert"
	issuerName         = "selfsigned-issuer"
	// WebhookCertSecret holds the serving certificate cert-manager issues.
	WebhookCertSecret = "webhook-server-cert"
	// ValidatingConfigurationName and MutatingConfigurationName name the
	// webhook configurations in config/webhook/manifests.yaml.
	ValidatingConfigurationName = "validating-webhook-configuration"
	MutatingConfigurationName   = "mutating-webhook-configuration"
	// WebhookManifestsPath holds the webhook configurations.
	WebhookManifestsPath = webhookDir + "manifests.yaml"
)

// Where config/ keeps what serves webhooks: the Services and
// configurations, and cert-manager's certificate.
const (
	webhookDir     = "config/webhook/"
	certManagerDir = "config/certmanager/"
)

// certManager is what webhook projects need in the cluster: cert-manager
// issues the serving certificate and injects its CA.
func certManager() api.Prerequisite {
	return api.Prerequisite{CRD: "certificates.cert-manager.io",
		Install: "install cert-manager first (https://cert-manager.io/docs/installation/): it issues the webhook's certificate",
		// The install its documentation gives, then its webhook serving:
		// the chart's Certificate and Issuer go through it.
		Setup: func(v pins.Versions) string {
			return `"$KUBECTL" apply -f https://github.com/cert-manager/cert-manager/releases/download/` + v.CertManager + `/cert-manager.yaml
"$KUBECTL" -n cert-manager wait --for=condition=Available deployment --all --timeout="$TIMEOUT"`
		}}
}

// Prerequisites is what the cluster needs before the project deploys.
func Prerequisites(p scaffold.Project, style scaffold.Style) []api.Prerequisite {
	var out []api.Prerequisite
	if style.Prerequisite != nil {
		out = append(out, *style.Prerequisite)
	}
	if style.Runtime(p).ServesHTTPS() {
		out = append(out, certManager())
	}
	return append(out, p.ChildPrerequisites()...)
}

// admissionManifests are the files admission adds under config/: the
// webhook Service, configurations and certificate for a runtime that
// serves webhooks, else a ValidatingAdmissionPolicy per kind.
func admissionManifests(p scaffold.Project, rt scaffold.Runtime) map[string][]any {
	files := map[string][]any{}
	var hosts []string
	if ws := rt.Webhook; ws != nil {
		files[webhookDir+"service.yaml"] = []any{webhookService(p, webhookServiceName, *ws)}
		hosts = append(hosts, serviceHost(p, WebhookServiceName(p)))
		if !ws.Registers && p.Admits() {
			files[WebhookManifestsPath] = webhookConfigurations(p)
		}
	}
	if own := rt.OwnConversion(); own != nil {
		files[webhookDir+"conversion_service.yaml"] = []any{webhookService(p, conversionServiceName, *own)}
		hosts = append(hosts, serviceHost(p, ConversionServiceName(p)))
	}
	if len(hosts) > 0 {
		files[certManagerDir+"certificate.yaml"] = certificate(p, hosts)
	}
	if rt.Webhook != nil {
		return files
	}
	for _, a := range p.APIs {
		if a.Admission != nil {
			files[PolicyPath(a)] = admissionPolicy(p, a)
		}
	}
	return files
}

// webhookAccess is the RBAC a runtime that registers its own webhook
// configurations needs (shell-operator lists, creates and updates them).
func webhookAccess(p scaffold.Project) []rbacv1.PolicyRule {
	resources := []string{"validatingwebhookconfigurations"}
	for _, a := range p.APIs {
		if a.Admission != nil && a.Admission.Default {
			resources = append(resources, "mutatingwebhookconfigurations")
			break
		}
	}
	return []rbacv1.PolicyRule{{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: resources, Verbs: []string{"create", "list", "update"}}}
}

// conversionAccess is the RBAC a runtime that points the CRDs of the kinds
// that convert at its conversion server needs: to read and update those
// CRDs alone (shell-operator gets and updates each).
func conversionAccess(p scaffold.Project) rbacv1.PolicyRule {
	var names []string
	for _, a := range p.APIs {
		if a.Converts() {
			names = append(names, a.CRDName(p.Domain))
		}
	}
	return rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"},
		ResourceNames: names, Verbs: []string{"get", "update"}}
}

// webhookService is the Service, named name, in front of a webhook server.
func webhookService(p scaffold.Project, name string, ws scaffold.WebhookServer) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: CommonLabels(p)},
		Spec: corev1.ServiceSpec{
			Selector: ManagerLabels(p),
			Ports:    []corev1.ServicePort{{Name: "webhook", Port: 443, TargetPort: intstr.FromInt32(ws.Port), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// WebhookServiceName is the webhook Service's name as kustomize names it
// (kustomize does not rewrite names inside strings).
func WebhookServiceName(p scaffold.Project) string { return p.Name + "-" + webhookServiceName }

// serviceHost is the DNS name of the Service named service (as kustomize
// names it).
func serviceHost(p scaffold.Project, service string) string {
	return service + "." + p.Namespace() + ".svc"
}

// certificate is a self-signed Issuer and the serving Certificate for the
// hosts of the webhook Services, as kubebuilder's config/certmanager has
// them.
func certificate(p scaffold.Project, hosts []string) []any {
	meta := func(kind, name string) map[string]any {
		return map[string]any{"apiVersion": "cert-manager.io/v1", "kind": kind,
			"metadata": map[string]any{"name": name, "labels": CommonLabels(p)}}
	}
	issuer := meta("Issuer", issuerName)
	issuer["spec"] = map[string]any{"selfSigned": map[string]any{}}
	var dnsNames []string
	for _, host := range hosts {
		dnsNames = append(dnsNames, host, host+".cluster.local")
	}
	cert := meta("Certificate", servingCertName)
	cert["spec"] = map[string]any{
		"dnsNames":   dnsNames,
		"issuerRef":  map[string]any{"kind": "Issuer", "name": p.Name + "-" + issuerName},
		"secretName": WebhookCertSecret,
	}
	return []any{issuer, cert}
}

// webhookConfigurations are the Validating- and MutatingWebhookConfiguration
// of every kind with admission, pointing at the webhook Service; cert-manager
// injects the CA.
func webhookConfigurations(p scaffold.Project) []any {
	meta := metav1.ObjectMeta{Labels: CommonLabels(p),
		Annotations: map[string]string{"cert-manager.io/inject-ca-from": injectCAFrom(p)}}
	validating := &admissionv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: meta,
	}
	validating.Name = ValidatingConfigurationName
	mutating := &admissionv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: *meta.DeepCopy(),
	}
	mutating.Name = MutatingConfigurationName
	for _, a := range p.APIs {
		if a.Admission == nil {
			continue
		}
		client := func(path string) admissionv1.WebhookClientConfig {
			return admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Name: webhookServiceName, Namespace: p.Namespace(), Path: ptr.To(path)}}
		}
		rules := []admissionv1.RuleWithOperations{{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
			Rule:       admissionv1.Rule{APIGroups: []string{a.FullGroup(p.Domain)}, APIVersions: []string{a.Version}, Resources: []string{a.Plural}},
		}}
		if a.Admission.Validate {
			validating.Webhooks = append(validating.Webhooks, admissionv1.ValidatingWebhook{
				Name: a.WebhookName(p.Domain, "v"), ClientConfig: client(a.ValidatePath(p.Domain)), Rules: rules,
				FailurePolicy: ptr.To(admissionv1.Fail), SideEffects: ptr.To(admissionv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			})
		}
		if a.Admission.Default {
			mutating.Webhooks = append(mutating.Webhooks, admissionv1.MutatingWebhook{
				Name: a.WebhookName(p.Domain, "m"), ClientConfig: client(a.MutatePath(p.Domain)), Rules: rules,
				FailurePolicy: ptr.To(admissionv1.Fail), SideEffects: ptr.To(admissionv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			})
		}
	}
	var out []any
	if len(mutating.Webhooks) > 0 {
		out = append(out, mutating)
	}
	if len(validating.Webhooks) > 0 {
		out = append(out, validating)
	}
	return out
}

// PolicyPath is where a kind's ValidatingAdmissionPolicy lives.
func PolicyPath(a api.API) string { return "config/admission/" + a.Singular() + "_policy.yaml" }

// PolicyName is the name of a kind's ValidatingAdmissionPolicy, before
// kustomize prefixes it.
func PolicyName(a api.API) string { return a.Singular() + "-policy" }

// admissionPolicy is the kind's ValidatingAdmissionPolicy and its binding:
// the starter check, then the kind's admission rules.
func admissionPolicy(p scaffold.Project, a api.API) []any {
	validations := []admissionv1.Validation{{
		Expression: fmt.Sprintf("object.metadata.name.size() <= %d", api.MaxNameLength),
		Message:    a.NameTooLong(),
	}}
	for _, r := range a.Admission.Rules {
		validations = append(validations, admissionv1.Validation{Expression: r.Rule, Message: r.Message})
	}
	policy := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: PolicyName(a), Labels: CommonLabels(p)},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{a.FullGroup(p.Domain)}, APIVersions: []string{a.Version}, Resources: []string{a.Plural}},
				},
			}}},
			Validations: validations,
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: PolicyName(a), Labels: CommonLabels(p)},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			// kustomize does not rewrite policyName: it is written as
			// kustomize names the policy.
			PolicyName:        p.Name + "-" + PolicyName(a),
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	return []any{policy, binding}
}

// withConversion is the kind's CRD, with the conversion webhook the
// operator serves if the kind converts (API.Converts): the API server
// calls it through the Service of the server that serves it (the admission
// webhook server's, or its own), and cert-manager injects the CA of the
// serving certificate into the CRD, as into the webhook configurations.
func withConversion(p scaffold.Project, rt scaffold.Runtime, a api.API, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	if !a.Converts() || rt.Conversion == nil {
		return crd
	}
	service := WebhookServiceName(p)
	if rt.OwnConversion() != nil {
		service = ConversionServiceName(p)
	}
	crd = crd.DeepCopy()
	crd.Annotations = map[string]string{"cert-manager.io/inject-ca-from": injectCAFrom(p)}
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
				// Named as kustomize names the Service: it renames no CRD's
				// reference to one.
				Namespace: p.Namespace(), Name: service, Path: ptr.To(rt.Conversion.Path(crd.Name)), Port: ptr.To[int32](443)}},
			ConversionReviewVersions: []string{"v1"},
		},
	}
	return crd
}

// injectCAFrom is the serving certificate whose CA cert-manager injects,
// as kustomize names it.
func injectCAFrom(p scaffold.Project) string {
	return p.Namespace() + "/" + p.Name + "-" + servingCertName
}

// webhookCertsVolume is the pod's volume of cert-manager's certificate.
const webhookCertsVolume = "webhook-certs"

// withWebhookServer mounts the serving certificate into the operator's
// container where the server reads it, and opens its port, named port.
func withWebhookServer(c *corev1.Container, pod *corev1.PodSpec, port string, ws scaffold.WebhookServer) {
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: port, ContainerPort: ws.Port, Protocol: corev1.ProtocolTCP})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: webhookCertsVolume, MountPath: ws.CertDir, ReadOnly: true})
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == webhookCertsVolume }) {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: webhookCertsVolume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: WebhookCertSecret}}})
	}
}

// ConversionServiceName is the Service of a conversion server of its own
// (ConversionServer.Own), as kustomize names it.
func ConversionServiceName(p scaffold.Project) string { return p.Name + "-" + conversionServiceName }

const conversionServiceName = "conversion-service"
