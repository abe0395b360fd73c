//go:build e2e

package styletest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AdminKubeconfig writes a kubeconfig of a cluster admin (what
// Metacontroller runs as) and returns its path.
func (c *Cluster) AdminKubeconfig(t *testing.T) string {
	raw, err := c.admin.KubeConfig()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "admin-kubeconfig")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// ServiceAccountKubeconfig writes a kubeconfig that authenticates as the
// ServiceAccount with a token from the TokenRequest API, so the operator
// runs with exactly the RBAC the project grants it.
func (c *Cluster) ServiceAccountKubeconfig(t *testing.T, ns, sa string) string {
	clientset, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	token := c.serviceAccountToken(t, clientset, ns, sa)
	raw, err := c.admin.KubeConfig()
	require.NoError(t, err)
	kc, err := clientcmd.Load(raw)
	require.NoError(t, err)
	for name := range kc.AuthInfos {
		kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// serviceAccountToken is a token of the ServiceAccount from the
// TokenRequest API.
func (c *Cluster) serviceAccountToken(t *testing.T, clientset kubernetes.Interface, ns, sa string) string {
	expiry := int64(3600)
	tok, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return tok.Status.Token
}
