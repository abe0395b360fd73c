//go:build e2e

package kopf_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/kopf"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its handlers driven by kopfImitation, then its admission handlers served
// by kopfImitation's webhook server, then a watch of Secrets in one
// namespace, its handler driven by kopfImitation too, and a TrainingJob
// whose prepare step calls a fake feature store, then the fault checks
// with kopfImitation.
func TestE2E(t *testing.T) {
	styletest.E2E(t, kopf.Style(), runKopfImitation, func(t *testing.T, cluster *styletest.Cluster, _ string) {
		styletest.CheckWebhooks(t, cluster, kopf.Style(), runKopfWebhooks)
		styletest.CheckWatch(t, cluster, kopf.Style(), runKopfImitation)
		styletest.CheckPrepare(t, cluster, kopf.Style(), runKopfImitation, fakeFeatureStoreCall)
	}, styletest.E2EFaults(kopf.Style(), styletest.Imitation(runKopfImitation), false))
}

// fakeFeatureStoreCall writes the TrainingJob's prepare step as a team
// would: a call to the feature store with urllib, a failed call raised as
// PrepareError.
func fakeFeatureStoreCall(t *testing.T, dir, url string) {
	handlers, err := filepath.Glob(filepath.Join(dir, "*", "handlers_trainingjob.py"))
	require.NoError(t, err)
	require.Len(t, handlers, 1, "the TrainingJob's handlers")
	styletest.EditFile(t, handlers[0],
		`    logger.debug("prepare %s: no steps yet", body["metadata"]["name"])`,
		`    import urllib.error
    import urllib.request

    from .status import PrepareError
    try:
        with urllib.request.urlopen("`+url+`?dataset=" + body["spec"]["dataset"], timeout=5) as answer:
            logger.info("features: %s", answer.read())
    except urllib.error.URLError as e:
        raise PrepareError("feature store: %s" % e) from e`)
}

// runKopfWebhooks runs kopfImitation with the project's webhooks.py
// serving where envtest's options put it (its WEBHOOK_CERT_DIR and
// WEBHOOK_PORT, read by the generated code).
func runKopfWebhooks(t *testing.T, dir, kubeconfig string, server *envtest.WebhookInstallOptions) *styletest.Process {
	cmd := kopfCommand(t, dir, kubeconfig)
	cmd.Env = append(cmd.Env, "WEBHOOK_CERT_DIR="+server.LocalServingCertDir, fmt.Sprintf("WEBHOOK_PORT=%d", server.LocalServingPort))
	return styletest.StartProcess(t, cmd, "Forbidden", "HANDLER ERROR", "Traceback", "API request failed")
}
