//go:build e2e

package ansible_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
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
// controller reference) to every object the role creates with a POST.
type ownerInjectingProxy struct {
	mu    sync.Mutex
	owner *metav1.OwnerReference
}

func (p *ownerInjectingProxy) setOwner(o *unstructured.Unstructured) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.owner = &metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID()}
}

func (p *ownerInjectingProxy) start(t *testing.T, cfg *rest.Config) (kubeconfig string) {
	transport, err := rest.TransportFor(cfg)
	require.NoError(t, err)
	target, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && isCreate(r.URL.Path) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			obj := &unstructured.Unstructured{}
			if err := json.Unmarshal(body, &obj.Object); err == nil {
				p.mu.Lock()
				if p.owner != nil {
					obj.SetOwnerReferences(append(obj.GetOwnerReferences(), *p.owner))
				}
				p.mu.Unlock()
				body, _ = json.Marshal(obj.Object)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server.URL}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	path := filepath.Join(t.TempDir(), "proxy-kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
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
