//go:build e2e

package styletest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/render"
)

// WebhookServer starts the admission webhooks of the project in dir as a
// process serving HTTPS on server.LocalServingHost:LocalServingPort with
// the certificate in server.LocalServingCertDir, as the API server calls
// them; its Stop checks what the process logged.
type WebhookServer func(t *testing.T, dir, kubeconfig string, server *envtest.WebhookInstallOptions) *Process

// webhookOptions are envtest's options for the webhook configurations of
// the project in dir, config/webhook/manifests.yaml (none when the runtime
// writes them itself). envtest joins the URL and the path with a slash of
// its own, so the paths lose theirs: the server sees /validate-..., as in a
// cluster. The certificate names the address the API server calls.
func webhookOptions(t *testing.T, dir string) *envtest.WebhookInstallOptions {
	o := &envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"}
	path := filepath.Join(dir, render.WebhookManifestsPath)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return o
	}
	for _, obj := range ReadObjects(t, path) {
		webhooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		for _, w := range webhooks {
			service := w.(map[string]any)["clientConfig"].(map[string]any)["service"].(map[string]any)
			service["path"] = strings.TrimPrefix(service["path"].(string), "/")
		}
		require.NoError(t, unstructured.SetNestedSlice(obj.Object, webhooks, "webhooks"))
		switch obj.GetKind() {
		case "ValidatingWebhookConfiguration":
			var v admissionv1.ValidatingWebhookConfiguration
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &v))
			o.ValidatingWebhooks = append(o.ValidatingWebhooks, &v)
		case "MutatingWebhookConfiguration":
			var m admissionv1.MutatingWebhookConfiguration
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &m))
			o.MutatingWebhooks = append(o.MutatingWebhooks, &m)
		}
	}
	return o
}

// deleteWebhookConfigurations deletes every webhook configuration, so that
// later checks create objects without them.
func deleteWebhookConfigurations(t *testing.T, c client.Client) {
	ctx := context.Background()
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("admissionregistration.k8s.io/v1")
		obj.SetKind(kind)
		assert.NoError(t, c.DeleteAllOf(ctx, obj))
	}
}

// CheckWebhooks adds validating and defaulting admission to the seed
// example's Database (opctl create webhook), installs the project's own
// config/webhook/manifests.yaml the way envtest does (pointed at a local
// URL, with a CA it makes; a runtime that writes its configurations
// itself, serve writes them) and starts the webhooks with serve: the API
// server then refuses a Database whose name is too long, with the starter
// check's message, and stores a valid one with the defaulted label. The
// seed's CRD must be installed (E2E does); the webhook configurations are
// deleted at the end, so that later checks create Databases without them.
func CheckWebhooks(t *testing.T, cluster *Cluster, style scaffold.Style, serve WebhookServer) {
	t.Run("the project's admission webhooks refuse and default objects", func(t *testing.T) {
		ctx := context.Background()
		c := cluster.Client
		dir := Seed(t, style)
		MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate", "--default")
		server := webhookOptions(t, dir)
		require.NoError(t, server.Install(cluster.Config), "install config/webhook/manifests.yaml")
		t.Cleanup(func() { assert.NoError(t, server.Cleanup()) })
		defer deleteWebhookConfigurations(t, c)
		defer serve(t, dir, cluster.AdminKubeconfig(t), server).Stop()

		ns := "e2e-" + style.Name + "-admission"
		cluster.CreateNamespace(t, ns, false)
		sample := func(name string) client.Object {
			o := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
			o.SetNamespace(ns)
			o.SetName(name)
			o.SetLabels(nil)
			return o
		}
		// The API server loads webhook configurations a moment after they
		// are created, and the server may still be starting (the call then
		// fails with an internal error): until the webhook refuses, the
		// object is created as a dry run.
		var refused error
		err := waitUntil(func() (bool, error) {
			refused = c.Create(ctx, sample(strings.Repeat("a", api.MaxNameLength+1)), client.DryRunAll)
			return refused != nil && strings.Contains(refused.Error(), "denied the request"), nil
		})
		require.NoError(t, err, "waiting for the validating webhook to refuse a name too long; the last answer: %v", refused)
		assert.Contains(t, refused.Error(), "must be at most 63 characters", "the starter check's message")

		good := sample("admitted")
		require.NoError(t, c.Create(ctx, good))
		assert.Equal(t, "database", good.GetLabels()[scaffold.DefaultedLabel], "the defaulting webhook sets the label")
		assert.NoError(t, c.Create(ctx, sample(strings.Repeat("a", api.MaxNameLength))), "a name of 63 characters is admitted")
		if t.Failed() {
			t.Logf("last refusal: %v", refused)
		}
	})
}
