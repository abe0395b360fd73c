//go:build e2e

package ansible_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ownerInjectingProxy stands between the role and the API server as the
// Ansible Operator's proxy does (internal/ansible/proxy/inject_owner.go):
// it authenticates as the ServiceAccount and appends an ownerReference to
// the object being reconciled (apiVersion, kind, name, uid; not a
// controller reference) to every object the role creates with a POST. As
// in the operator, each run's kubeconfig names its owner: the basic-auth
// user is the owner reference, JSON in base64 (internal/ansible/runner),
// so runs of several objects at once never mix them up.
type ownerInjectingProxy struct {
	url, dir string
}

func (p *ownerInjectingProxy) start(t *testing.T, cfg *rest.Config) {
	transport, err := rest.TransportFor(cfg)
	require.NoError(t, err)
	target, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _, hasOwner := r.BasicAuth()
		// The proxy's own credentials replace the run's.
		r.Header.Del("Authorization")
		if r.Method == http.MethodPost && isCreate(r.URL.Path) && hasOwner {
			var owner metav1.OwnerReference
			raw, err := base64.StdEncoding.DecodeString(user)
			if err == nil {
				err = json.Unmarshal(raw, &owner)
			}
			if err != nil {
				http.Error(w, "owner reference: "+err.Error(), http.StatusBadRequest)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			obj := &unstructured.Unstructured{}
			if err := json.Unmarshal(body, &obj.Object); err == nil {
				obj.SetOwnerReferences(append(obj.GetOwnerReferences(), owner))
				body, _ = json.Marshal(obj.Object)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	p.url, p.dir = server.URL, t.TempDir()
}

// kubeconfigFor writes the kubeconfig of a run for o, through the proxy
// with o as the owner, and returns its path.
func (p *ownerInjectingProxy) kubeconfigFor(o *unstructured.Unstructured) (string, error) {
	owner, err := json.Marshal(metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID()})
	if err != nil {
		return "", err
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: p.url}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{Username: base64.StdEncoding.EncodeToString(owner), Password: "unused"}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	path := filepath.Join(p.dir, string(o.GetUID())+".kubeconfig")
	return path, clientcmd.WriteToFile(*kc, path)
}

// isCreate reports whether a POST path creates a namespaced object (not a
// subresource): /api/v1/namespaces/NS/RESOURCE or
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE.
func isCreate(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 5 && parts[0] == "api" && parts[2] == "namespaces":
		return true
	case len(parts) == 6 && parts[0] == "apis" && parts[3] == "namespaces":
		return true
	}
	return false
}
