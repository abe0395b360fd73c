//go:build e2e

package golang_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// with the manager it builds, then runs the project's own envtest suite,
// then the manager's admission webhooks and the project's own webhook
// suite, then a watch of Secrets in one namespace run by the manager, then
// the fault checks with the manager run as its Deployment runs it.
func TestE2E(t *testing.T) {
	styletest.E2E(t, golang.Style(), runManager, func(t *testing.T, _ *styletest.Cluster, dir string) {
		t.Run("generated project's own envtest suite", func(t *testing.T) {
			out := tools.ExecIn(t, dir, "go", "test", "-v", "-count=1", "./internal/controller/")
			assert.Contains(t, out, "--- PASS: TestAgainstAPIServer")
		})
	}, func(t *testing.T, cluster *styletest.Cluster, _ string) {
		styletest.CheckWebhooks(t, cluster, golang.Style(), runWebhooks)
		styletest.CheckWatch(t, cluster, golang.Style(), runManager)
		styletest.CheckPrepare(t, cluster, golang.Style(), func(t *testing.T, dir, kubeconfig, _ string) *styletest.Process {
			// The failing step is the point: its Reconciler errors are expected.
			return styletest.StartProcess(t, managerCommand(t, dir, kubeconfig, "0"), "forbidden")
		}, fakeFeatureStoreCall)
		t.Run("generated project's own webhook suite", func(t *testing.T) {
			dir := styletest.Seed(t, golang.Style())
			styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate", "--default")
			out := tools.ExecIn(t, dir, "go", "test", "-v", "-count=1", "./internal/webhook/...")
			assert.Contains(t, out, "--- PASS: TestWebhooksAgainstAPIServer")
		})
		t.Run("generated project's conversion webhook", func(t *testing.T) {
			// v2 renames engine and removes version: the API server calls
			// the project's conversion webhook for every v1 object, the
			// conformance cases of v1 among them, which read back unchanged
			// as v1 (version from the annotation v2 keeps it in) and renamed
			// as v2.
			dir := styletest.Seed(t, golang.Style())
			styletest.MustRun(t, dir, "edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=flavor", "--remove-field", "version")
			out := tools.ExecIn(t, dir, "go", "test", "-v", "-count=1", "-run", "TestAgainstAPIServer", "./internal/controller/")
			assert.Contains(t, out, "--- PASS: TestAgainstAPIServer/conversion/database/v1/sample.yaml")
			assert.Contains(t, out, "--- PASS: TestAgainstAPIServer/conformance/database/v1/sample.yaml")
		})
	}, styletest.E2EFaults(golang.Style(), startManager, true))
}

// runWebhooks runs the generated manager as a process with its webhook
// server where envtest's options put it: the certificate directory and
// port are the manager's --webhook-cert-path and --webhook-port.
func runWebhooks(t *testing.T, dir, kubeconfig string, server *envtest.WebhookInstallOptions) *styletest.Process {
	cmd := managerCommand(t, dir, kubeconfig, "0")
	cmd.Args = append(cmd.Args, "--webhook-cert-path="+server.LocalServingCertDir, fmt.Sprintf("--webhook-port=%d", server.LocalServingPort))
	return styletest.StartProcess(t, cmd, "forbidden", "Reconciler error")
}

// runManager runs the generated manager as a process. Conflicts on status
// writes would show as "Reconciler error".
func runManager(t *testing.T, dir, kubeconfig, _ string) *styletest.Process {
	return styletest.StartProcess(t, managerCommand(t, dir, kubeconfig, "0"), "forbidden", "Reconciler error")
}

// fakeFeatureStoreCall writes the TrainingJob's prepare step as a team
// would: a call to the feature store with net/http, a failed call wrapped
// in prepareError.
func fakeFeatureStoreCall(t *testing.T, dir, url string) {
	path := filepath.Join(dir, "internal/controller/trainingjob_controller.go")
	styletest.EditFile(t, path, "import (\n", "import (\n\t\"fmt\"\n\t\"net/http\"\n\t\"net/url\"\n")
	styletest.EditFile(t, path, `		return r.Prepare(ctx, trainingJob)
	}
	return nil
}`, `		return r.Prepare(ctx, trainingJob)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "`+url+`?dataset="+url.QueryEscape(trainingJob.Spec.Dataset), nil)
	if err != nil {
		return prepareError{err}
	}
	answer, err := http.DefaultClient.Do(req)
	if err != nil {
		return prepareError{err}
	}
	defer answer.Body.Close()
	if answer.StatusCode != http.StatusOK {
		return prepareError{fmt.Errorf("feature store: %s", answer.Status)}
	}
	return nil
}`)
}
