package scaffold

import (
	"fmt"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"slices"
	"strings"
)

// Runtime is how a style's operator process runs in the cluster; the
// hardened Deployment around it is the same for every style.
type Runtime struct {
	Command []string
	Args    []string
	Env     []corev1.EnvVar
	Ports   []corev1.ContainerPort
	// HealthPort serves LivenessPath and ReadinessPath over HTTP.
	HealthPort    int32
	LivenessPath  string
	ReadinessPath string
	// WritableDirs are emptyDir mounts; the root filesystem is read-only.
	WritableDirs []string
	// Metrics is the runtime's Prometheus endpoint, if it serves one.
	Metrics *Metrics
	// LeaderElectionArgs turn leader election on, so that several replicas
	// can run with one active (and a rollout's new replica waits for the
	// old one): the Deployment has them, and the chart while
	// leaderElection.enabled, its default.
	LeaderElectionArgs []string
	// Stateless: the process holds no state and acts on nothing alone (a
	// hook server Metacontroller calls), so any number of replicas serve
	// it side by side.
	Stateless bool
	// Webhook is how the runtime serves the project's admission webhooks
	// (a style with Webhooks sets it when a kind asks for admission).
	Webhook *WebhookServer
	// Conversion is how it serves the conversion between the versions of
	// kinds that convert (API.Converts); nil when none does.
	Conversion *ConversionServer
}

// ConversionServer is how a runtime serves the conversion webhook of the
// kinds that convert.
type ConversionServer struct {
	// Own is the server's port and certificate directory when it is not
	// the admission webhook server (Webhook): it has a Service of its own
	// (ConversionServiceName), and with Registers the runtime points the
	// CRDs at it itself (it may read and update them).
	Own *WebhookServer
	// Path is the URL path of the conversion of a kind, by its CRD's name.
	Path func(crdName string) string
}

// Replicable reports whether more than one replica may run at a time: with
// one active through leader election, or all alike when stateless. Such a
// runtime rolls out with RollingUpdate (the new pod up before the old one
// goes); any other with Recreate, and the chart refuses replicaCount above
// 1.
func (rt Runtime) Replicable() bool { return len(rt.LeaderElectionArgs) > 0 || rt.Stateless }

// Lease is how a runtime that elects a leader holds its lease: a stand-by
// takes over once the leader has not renewed it for DurationSeconds, and the
// leader gives up leading (every runtime here then exits, for the kubelet
// to restart it) once it has failed to renew it for RenewDeadlineSeconds.
type Lease struct {
	DurationSeconds, RenewDeadlineSeconds int
}

// DefaultLease is cert-manager's: its leader keeps leading through an API
// server away for up to 40 seconds (a restart, a control-plane upgrade),
// where client-go's 15s/10s make it exit after 10; what it costs is a
// successor waiting up to a minute for a leader that died (not for one
// that stops and releases its lease).
func DefaultLease() Lease { return Lease{DurationSeconds: 60, RenewDeadlineSeconds: 40} }

// Args are the flags that set the lease, as Kubernetes' own components and
// ansible-operator name them.
func (l Lease) Args() []string {
	return []string{fmt.Sprintf("--leader-elect-lease-duration=%ds", l.DurationSeconds),
		fmt.Sprintf("--leader-elect-renew-deadline=%ds", l.RenewDeadlineSeconds)}
}

// Metrics is a runtime's Prometheus endpoint on Port, at /metrics. A
// Secure one is HTTPS and lets in only clients the API server
// authenticates and authorizes (get on the /metrics URL).
type Metrics struct {
	Port   int32
	Secure bool
}

// WatchNamespaceEnv names the variable that holds the namespace a
// namespace-scoped operator sees (operator-sdk's convention, which
// ansible-operator reads itself); the Deployment sets it to its own.
const WatchNamespaceEnv = "WATCH_NAMESPACE"

// managerEnv is the runtime's environment, and in a namespace-scoped
// project the namespace to watch.
func managerEnv(p Project, rt Runtime) []corev1.EnvVar {
	if !p.NamespaceScoped() {
		return rt.Env
	}
	return append(slices.Clone(rt.Env), corev1.EnvVar{Name: WatchNamespaceEnv,
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}})
}

// nonRootUID is the user of distroless "nonroot" and of opctl's images.
const nonRootUID = 65532

// Namespace is where the operator runs.
func (p Project) Namespace() string { return p.Name + "-system" }

// Image is the operator image reference used by the Deployment and Makefile.
func (p Project) Image() string { return p.Name + ":" + imageTag(p) }

// AppVersion is the project's version (opctl.yaml's version): the image's
// tag (with a v) and the chart's version.
func (p Project) AppVersion() string {
	if p.Version == "" {
		return DefaultVersion
	}
	return p.Version
}

// DefaultVersion is the version of a new project.
const DefaultVersion = "0.1.0"

// managerDeploymentName names the operator's Deployment.
const managerDeploymentName = "controller-manager"

func CommonLabels(p Project) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       p.Name,
		"app.kubernetes.io/managed-by": "opctl",
	}
}

func ManagerLabels(p Project) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      p.Name,
		"app.kubernetes.io/component": "controller-manager",
	}
}

func namespaceObject(p Project) *corev1.Namespace {
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
func serviceAccount(p Project, callsAPI bool) *corev1.ServiceAccount {
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
func kubeScoreIgnored(rt Runtime) []string {
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
func managerNetworkPolicy(p Project, rt Runtime) *networkingv1.NetworkPolicy {
	port := func(n int32) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(n))}
	}
	ports := []networkingv1.NetworkPolicyPort{port(rt.HealthPort)}
	for _, ws := range []*WebhookServer{rt.Webhook, rt.ownConversion()} {
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
func managerDeployment(p Project, rt Runtime) *appsv1.Deployment {
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
	if own := rt.ownConversion(); own != nil {
		withWebhookServer(&pod.Containers[0], pod, "conversion", *own)
	}
	return d
}
