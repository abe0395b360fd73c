//go:build e2e

package kopf_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/scaffold/styles/kopf"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its handlers driven by kopfImitation, then its admission handlers served
// by kopfImitation's webhook server, then a watch of Secrets in one
// namespace, its handler driven by kopfImitation too.
func TestE2E(t *testing.T) {
	styletest.E2E(t, kopf.Style(), runKopfImitation, func(t *testing.T, cluster *styletest.Cluster, _ string) {
		styletest.CheckWebhooks(t, cluster, kopf.Style(), runKopfWebhooks)
		styletest.CheckWatch(t, cluster, kopf.Style(), runKopfImitation)
	})
}

// runKopfWebhooks runs kopfImitation with the project's webhooks.py
// serving where envtest's options put it (its WEBHOOK_CERT_DIR and
// WEBHOOK_PORT, read by the generated code).
func runKopfWebhooks(t *testing.T, dir, kubeconfig string, server *envtest.WebhookInstallOptions) func() {
	cmd := kopfCommand(t, dir, kubeconfig)
	cmd.Env = append(cmd.Env, "WEBHOOK_CERT_DIR="+server.LocalServingCertDir, fmt.Sprintf("WEBHOOK_PORT=%d", server.LocalServingPort))
	return styletest.StartProcess(t, cmd, "Forbidden", "HANDLER ERROR", "Traceback")
}
