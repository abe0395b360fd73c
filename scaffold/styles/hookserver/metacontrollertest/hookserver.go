//go:build e2e

// Package metacontrollertest is Metacontroller for the tests of both
// Metacontroller styles: an imitation of it for make test-e2e, the real
// one for make test-runtimes, and the generated hook server both call.
package metacontrollertest

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/python"
)

// StartHookServer runs the generated Python hook server of the project in
// dir on a free loopback port and returns its base URL.
func StartHookServer(t *testing.T, dir string) (base string, stop func()) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	port := styletest.FreePort(t)
	var logs bytes.Buffer
	server := exec.Command(tools.Python(t), "-m", python.Package(p)+".server")
	server.Dir = dir
	server.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	server.Stdout, server.Stderr = &logs, &logs
	require.NoError(t, server.Start())
	base = fmt.Sprintf("http://127.0.0.1:%d", port)
	styletest.WaitFor(t, "the hook server", func() (bool, error) {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	return base, func() {
		_ = server.Process.Kill()
		_ = server.Wait()
		if t.Failed() {
			t.Logf("hook server output:\n%s", logs.String())
		}
	}
}
