//go:build e2e

package styletest

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/opctl/opctl/scaffold"
)

// checkSecureMetrics scrapes a runtime's secure metrics endpoint as
// Prometheus would: with the token of a ServiceAccount bound to the
// project's metrics-reader ClusterRole it gets the metrics; with another
// ServiceAccount's token it is forbidden (403); with none, unauthenticated
// (401). The endpoint's certificate is self-signed.
func (c *Cluster) checkSecureMetrics(t *testing.T, p scaffold.Project, ns string) {
	require.NotEmpty(t, c.MetricsURL, "the runtime's start must serve its metrics and set Cluster.MetricsURL")
	ctx := context.Background()
	clientset, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	for _, sa := range []string{"prometheus", "stranger"} {
		_, err := clientset.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = clientset.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-prometheus-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: p.Name + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: ns}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(token string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, c.MetricsURL, nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	reader := c.serviceAccountToken(t, clientset, ns, "prometheus")
	var body string
	WaitFor(t, "the metrics endpoint to serve Prometheus's ServiceAccount", func() (bool, error) {
		code, b, err := scrape(reader)
		body = b
		return err == nil && code == http.StatusOK, nil
	})
	assert.Contains(t, body, "# HELP", "Prometheus text format")
	code, _, err := scrape(c.serviceAccountToken(t, clientset, ns, "stranger"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, code, "a ServiceAccount not bound to metrics-reader")
	code, _, err = scrape("")
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, code, "no token")
	// HTTP/2 is off, for the stream-reset advisories (CVE-2023-44487): a
	// client that offers it gets HTTP/1.1.
	u, err := url.Parse(c.MetricsURL)
	require.NoError(t, err)
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}})
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, "http/1.1", conn.ConnectionState().NegotiatedProtocol, "the protocol the metrics endpoint picks from h2 and http/1.1")
}
