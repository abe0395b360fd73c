package render

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/opctl/opctl/scaffold"
)

// The metrics of a runtime that serves them are opt-in, as kubebuilder
// does it, so that `kubectl apply -k config/` stays minimal:
// config/metrics adds a Service in front of the endpoint and a
// NetworkPolicy that lets only namespaces labelled metrics=enabled reach
// it; config/prometheus adds a Prometheus Operator ServiceMonitor. A
// secure endpoint's readers need the metrics-reader ClusterRole (in
// config/rbac).
const (
	metricsDir    = "config/metrics"
	prometheusDir = "config/prometheus"
)

// metricsLabels mark the metrics Service, which the ServiceMonitor selects.
func metricsLabels(p scaffold.Project) map[string]string {
	return map[string]string{"app.kubernetes.io/name": p.Name, "app.kubernetes.io/component": "metrics"}
}

// metricsService is the Service in front of the metrics endpoint; name
// and namespace are as given (config/'s overlays write them final, the
// chart adds its own).
func metricsService(p scaffold.Project, m scaffold.Metrics, prefix, ns string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "metrics-service", Namespace: ns, Labels: metricsLabels(p)},
		Spec: corev1.ServiceSpec{
			Selector: ManagerLabels(p),
			Ports: []corev1.ServicePort{{Name: m.PortName(), Port: m.Port, TargetPort: intstr.FromString("metrics"),
				Protocol: corev1.ProtocolTCP}},
		},
	}
}

// metricsNetworkPolicy admits traffic to the operator's pod only on the
// metrics port and only from namespaces labelled metrics=enabled.
func metricsNetworkPolicy(p scaffold.Project, m scaffold.Metrics, prefix, ns string) *networkingv1.NetworkPolicy {
	tcp, port := corev1.ProtocolTCP, intstr.FromInt32(m.Port)
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "allow-metrics-traffic", Namespace: ns, Labels: CommonLabels(p)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: ManagerLabels(p)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From:  []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"metrics": "enabled"}}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
			}},
		},
	}
}

// serviceMonitor has the Prometheus Operator scrape the metrics Service;
// a secure endpoint is scraped with Prometheus's ServiceAccount token,
// which its metrics-reader binding authorizes.
func serviceMonitor(p scaffold.Project, m scaffold.Metrics, prefix, ns string) map[string]any {
	endpoint := map[string]any{"port": m.PortName(), "scheme": m.PortName(), "path": "/metrics"}
	if m.Secure {
		endpoint["bearerTokenFile"] = "/var/run/secrets/kubernetes.io/serviceaccount/token"
		endpoint["tlsConfig"] = map[string]any{"insecureSkipVerify": true}
	}
	labels := map[string]any{}
	for k, v := range metricsLabels(p) {
		labels[k] = v
	}
	return map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
		"metadata": map[string]any{"name": prefix + "metrics-monitor", "namespace": ns, "labels": labels},
		"spec": map[string]any{
			"endpoints": []any{endpoint},
			"selector":  map[string]any{"matchLabels": labels},
		},
	}
}

// metricsReaderRole lets whoever it is bound to (Prometheus) read a
// secure metrics endpoint.
func metricsReaderRole(p scaffold.Project) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader", Labels: CommonLabels(p)},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
}
