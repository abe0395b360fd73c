package render

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/opctl/opctl/scaffold"
)

// DefaultLease is cert-manager's: its leader keeps leading through an API
// server away for up to 40 seconds (a restart, a control-plane upgrade),
// where client-go's 15s/10s make it exit after 10; what it costs is a
// successor waiting up to a minute for a leader that died (not for one
// that stops and releases its lease).
func DefaultLease() scaffold.Lease {
	return scaffold.Lease{DurationSeconds: 60, RenewDeadlineSeconds: 40}
}

// managerEnv is the runtime's environment, and in a namespace-scoped
// project the namespace to watch.
func managerEnv(p scaffold.Project, rt scaffold.Runtime) []corev1.EnvVar {
	if !p.NamespaceScoped() {
		return rt.Env
	}
	return append(slices.Clone(rt.Env), corev1.EnvVar{Name: scaffold.WatchNamespaceEnv,
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}})
}

// nonRootUID is the user of distroless "nonroot" and of opctl's images.
const nonRootUID = 65532

// managerDeploymentName names the operator's Deployment.
const managerDeploymentName = "controller-manager"

func CommonLabels(p scaffold.Project) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       p.Name,
		"app.kubernetes.io/managed-by": "opctl",
	}
}

func ManagerLabels(p scaffold.Project) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      p.Name,
		"app.kubernetes.io/component": "controller-manager",
	}
}

func namespaceObject(p scaffold.Project) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Namespace(), Labels: map[string]string{
			"app.kubernetes.io/name":             p.Name,
			"pod-security.kubernetes.io/enforce": "restricted",
		}},
	}
}

// serviceAccount runs the operator; a runtime that never calls the API
// server gets no token mounted.
func serviceAccount(p scaffold.Project, callsAPI bool) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: serviceAccountName, Labels: CommonLabels(p)},
	}
	if !callsAPI {
		sa.AutomountServiceAccountToken = ptr.To(false)
	}
	return sa
}

// KubeScoreIgnore is the annotation kube-score reads for the checks it
// skips on an object; the project's README says why for each.
const KubeScoreIgnore = "kube-score/ignore"

// kubeScoreIgnored are the checks of kube-score whose advice the
// operator's Deployment does not take (the README's table says why):
// IfNotPresent, because a release's tag is pinned and an image loaded into
// kind is never pulled; and, for a runtime serving one health endpoint,
// the same endpoint for liveness and readiness.
func kubeScoreIgnored(rt scaffold.Runtime) []string {
	checks := []string{"container-image-pull-policy"}
	if rt.LivenessPath == rt.ReadinessPath {
		checks = append(checks, "pod-probes-identical")
	}
	return checks
}

// managerNetworkPolicy lets into the operator's pod only what it serves
// to the cluster: the kubelet's probes and the API server's webhook calls
// (the metrics port through config/with-metrics' policy), and lets out
// everything: the API server, whose address the cluster decides, and what
// the code of the user calls.
func managerNetworkPolicy(p scaffold.Project, rt scaffold.Runtime) *networkingv1.NetworkPolicy {
	port := func(n int32) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(n))}
	}
	ports := []networkingv1.NetworkPolicyPort{port(rt.HealthPort)}
	for _, ws := range []*scaffold.WebhookServer{rt.Webhook, rt.OwnConversion()} {
		if ws != nil {
			ports = append(ports, port(ws.Port))
		}
	}
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: managerDeploymentName, Labels: CommonLabels(p)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: ManagerLabels(p)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: ports}},
			Egress:      []networkingv1.NetworkPolicyEgressRule{{}},
		},
	}
}

// managerDeployment runs one replica of the operator under the restricted
// Pod Security Standard.
func managerDeployment(p scaffold.Project, rt scaffold.Runtime) *appsv1.Deployment {
	selector := ManagerLabels(p)
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: path, Port: intstr.FromInt32(rt.HealthPort),
			}},
			InitialDelaySeconds: delay,
			PeriodSeconds:       10,
		}
	}
	var mounts []corev1.VolumeMount
	var volumes []corev1.Volume
	for i, dir := range rt.WritableDirs {
		name := "scratch-" + string(rune('a'+i))
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: dir})
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	strategy := appsv1.RecreateDeploymentStrategyType
	if rt.Replicable() {
		strategy = appsv1.RollingUpdateDeploymentStrategyType
	}
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: managerDeploymentName, Labels: selector,
			Annotations: map[string]string{KubeScoreIgnore: strings.Join(kubeScoreIgnored(rt), ",")}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Strategy: appsv1.DeploymentStrategy{Type: strategy},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec: corev1.PodSpec{
					ServiceAccountName:            serviceAccountName,
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true),
						RunAsUser:    ptr.To[int64](nonRootUID),
						// A group no host account has (kube-score: above 10000).
						RunAsGroup:     ptr.To[int64](nonRootUID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            "manager",
						Image:           p.Image(),
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         rt.Command,
						Args:            append(slices.Clone(rt.Args), rt.LeaderElectionArgs...),
						Env:             managerEnv(p, rt),
						Ports:           rt.Ports,
						LivenessProbe:   probe(rt.LivenessPath, 15),
						ReadinessProbe:  probe(rt.ReadinessPath, 5),
						Resources: corev1.ResourceRequirements{
							// Ephemeral storage holds the logs and the scratch
							// directories (an ansible-operator run's artifacts).
							Requests: corev1.ResourceList{
								corev1.ResourceCPU:              resource.MustParse("10m"),
								corev1.ResourceMemory:           resource.MustParse("64Mi"),
								corev1.ResourceEphemeralStorage: resource.MustParse("64Mi"),
							},
							Limits: corev1.ResourceList{
								corev1.ResourceCPU:              resource.MustParse("500m"),
								corev1.ResourceMemory:           resource.MustParse("256Mi"),
								corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
							},
						},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
	pod := &d.Spec.Template.Spec
	if rt.Webhook != nil {
		withWebhookServer(&pod.Containers[0], pod, "webhook-server", *rt.Webhook)
	}
	if own := rt.OwnConversion(); own != nil {
		withWebhookServer(&pod.Containers[0], pod, "conversion", *own)
	}
	return d
}
