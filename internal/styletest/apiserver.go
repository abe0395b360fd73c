//go:build e2e

package styletest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster is a kube-apiserver and etcd started for one test: their
// config, a client of a cluster admin, and that admin.
type Cluster struct {
	Config *rest.Config
	Client client.Client
	admin  *envtest.AuthenticatedUser
	// apiServer restarts over the same etcd (RestartAPIServer).
	apiServer *envtest.APIServer
	// MetricsURL is where a real runtime serves its metrics, set by its
	// start when the style's runtime serves them.
	MetricsURL string
	// ConversionCerts, when set (CheckConversion), is a directory holding
	// tls.crt, tls.key and ca.crt: a real runtime's start serves the
	// conversion webhook with them on 127.0.0.1:443.
	ConversionCerts string
}

// StartAPIServer starts kube-apiserver and etcd from KUBEBUILDER_ASSETS
// for the test; target is the make target that sets it, named when it is
// not set.
func StartAPIServer(t *testing.T, target string) *Cluster {
	return startAPIServer(t, target, func(*envtest.APIServer) {})
}

// startAPIServer is StartAPIServer with kube-apiserver's flags added to
// by configure.
func startAPIServer(t *testing.T, target string, configure func(*envtest.APIServer)) *Cluster {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatalf("KUBEBUILDER_ASSETS is not set: run `%s`, which builds kube-apiserver and etcd from the Go module proxy", target)
	}
	var (
		env *envtest.Environment
		cfg *rest.Config
		err error
	)
	// envtest gives the default namespace 5 seconds to appear, which a
	// start on two busy cores can miss: a whole new start is tried then.
	for range 3 {
		// Certificates in a directory of the test's own, which a restart
		// keeps: every client's credentials stay valid (RestartAPIServer).
		apiServer := &envtest.APIServer{CertDir: t.TempDir()}
		configure(apiServer)
		env = &envtest.Environment{ControlPlaneStartTimeout: 2 * time.Minute, ControlPlane: envtest.ControlPlane{APIServer: apiServer}}
		if cfg, err = env.Start(); err == nil {
			break
		}
		t.Logf("kube-apiserver and etcd did not start, tried again: %v", err)
		_ = env.Stop()
	}
	require.NoError(t, err, "start kube-apiserver and etcd")
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	// Not envtest's own "admin", which the test's client is: the API
	// server's audit log tells a runtime's requests from the test's.
	admin, err := env.AddUser(envtest.User{Name: "runtime-admin", Groups: []string{"system:masters"}}, nil)
	require.NoError(t, err)
	version, err := exec.Command(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver"), "--version").Output()
	require.NoError(t, err)
	t.Logf("API server: %s", strings.TrimSpace(string(version)))
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	return &Cluster{Config: cfg, Client: c, admin: admin, apiServer: env.ControlPlane.APIServer}
}

// RestartAPIServer stops kube-apiserver (SIGTERM, then SIGKILL if it has
// not stopped within envtest's timeout, as a crash would) and starts it
// again on the same port, certificates and etcd; it returns once the API
// server answers.
func (c *Cluster) RestartAPIServer(t *testing.T) {
	t.Helper()
	if err := c.apiServer.Stop(); err != nil {
		t.Logf("kube-apiserver did not stop within envtest's timeout and was killed: %v", err)
	}
	address := c.apiServer.SecureServing.ListenAddr.HostPort()
	WaitFor(t, "kube-apiserver's port to be free", func() (bool, error) {
		l, err := net.Listen("tcp", address)
		if err != nil {
			return false, nil
		}
		return true, l.Close()
	})
	require.NoError(t, c.apiServer.Start(), "start kube-apiserver again")
	WaitFor(t, "the API server to answer again", func() (bool, error) {
		return c.Client.List(context.Background(), &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "NamespaceList"}}) == nil, nil
	})
}

// CreateNamespace creates a namespace; a restricted one enforces and
// warns at the restricted Pod Security level.
func (c *Cluster) CreateNamespace(t *testing.T, name string, restricted bool) {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if restricted {
		ns.SetLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted"})
	}
	require.NoError(t, c.Client.Create(context.Background(), ns))
}

// WaitFor polls cond for up to 2 minutes and fails the test, naming what it
// waited for, if cond never holds or returns an error.
func WaitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	require.NoError(t, waitUntil(cond), "waiting for %s", what)
}

// WaitWithin is WaitFor for up to d: for what takes long by design, such
// as whole passes of a runtime that runs a process per object.
func WaitWithin(t *testing.T, d time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	require.NoError(t, pollFor(d, cond), "waiting %s for %s", d, what)
}

// waitUntil polls cond for up to 2 minutes: on two busy cores a runtime
// that runs a process per object (ansible-playbook) can take over a
// minute to reach an object queued behind others.
func waitUntil(cond func() (bool, error)) error { return pollFor(2*time.Minute, cond) }

func pollFor(d time.Duration, cond func() (bool, error)) error {
	return wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, d, true, func(context.Context) (bool, error) {
		return cond()
	})
}
