//go:build e2e

package styletest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// StartProcess runs a style's reconciler; at stop its output must contain
// none of forbidden (how the runtime reports a missing permission or an
// error), except in lines about the child the refused-child check has
// refused on purpose.
func StartProcess(t *testing.T, cmd *exec.Cmd, forbidden ...string) (stop func()) {
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), logs.String())
		}
		var unexpected []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if !Refused(line) {
				unexpected = append(unexpected, line)
			}
		}
		for _, f := range forbidden {
			assert.NotContains(t, strings.Join(unexpected, "\n"), f, "the reconciler's log")
		}
	}
}

// StartLogged starts cmd, a real runtime, with its output in a buffer;
// it is stopped at cleanup. It returns the output so far.
func StartLogged(t *testing.T, cmd *exec.Cmd) (logs func() string) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start(), "start %s", cmd.Path)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Repeat runs pass every half second until the returned stop is called;
// the first error ends the loop and fails the test at stop.
func Repeat(t *testing.T, pass func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var failure error
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := pass(ctx); err != nil && ctx.Err() == nil {
				failure = err
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	return func() {
		cancel()
		<-done
		assert.NoError(t, failure)
	}
}

// FreePort returns a loopback port free at the time of the call.
func FreePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// ExpandContainerVars replaces each $(VAR) in arg with the variable's value
// in this process's environment, as the kubelet does with the container's
// (a reference to a variable that is not set stays as written).
func ExpandContainerVars(arg string) string {
	ref := regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)`)
	return ref.ReplaceAllStringFunc(arg, func(ref string) string {
		if v, ok := os.LookupEnv(ref[2 : len(ref)-1]); ok {
			return v
		}
		return ref
	})
}
