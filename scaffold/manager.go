package scaffold

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
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

// Namespace is where the operator runs.
func (p Project) Namespace() string { return p.Name + "-system" }

// Image is the operator image reference used by the Deployment and Makefile.
func (p Project) Image() string { return p.Name + ":" + p.ImageTag() }

// ImageTag is the tag of the operator image: v and the project's version.
func (p Project) ImageTag() string { return "v" + p.AppVersion() }

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

// PortName names the metrics port by its scheme.
func (m Metrics) PortName() string {
	if m.Secure {
		return "https"
	}
	return "http"
}
