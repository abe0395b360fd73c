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

// Process is a running reconciler: a real runtime, a generated manager, or
// an imitation of a runtime. Kill ends it at once, as a node's crash would;
// Stop ends it and checks what it did (what it logged, a last pass). Both
// happen once, whichever comes first; the test's cleanup kills it.
type Process struct {
	kill, stop func()
	logs       func() string
	once       sync.Once
}

// NewProcess is a reconciler ended by kill, at once, or by stop, which
// ends it (calling kill or not) and checks what it did. logs, if not nil,
// is its output so far. It is killed at cleanup.
func NewProcess(t *testing.T, kill, stop func(), logs func() string) *Process {
	if logs == nil {
		logs = func() string { return "" }
	}
	p := &Process{kill: kill, stop: stop, logs: logs}
	t.Cleanup(p.Kill)
	return p
}

// Logs is the process's output so far.
func (p *Process) Logs() string { return p.logs() }

// Kill ends the process at once, checking nothing: a process and what it
// forked get SIGKILL and release nothing, their lease included.
func (p *Process) Kill() { p.once.Do(p.kill) }

// Stop ends the process and checks what it did.
func (p *Process) Stop() { p.once.Do(p.stop) }

// StartProcess runs a style's reconciler; at Stop its output must contain
// none of forbidden (how the runtime reports a missing permission or an
// error), except in lines about the child the refused-child check has
// refused on purpose.
func StartProcess(t *testing.T, cmd *exec.Cmd, forbidden ...string) *Process {
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(b)
	})
	logs := func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	cmd.Stdout, cmd.Stderr = w, w
	inOwnGroup(cmd)
	require.NoError(t, cmd.Start(), "start %s", cmd.Path)
	kill := func() {
		_ = killGroup(cmd)
		_ = cmd.Wait()
	}
	return NewProcess(t, kill, func() {
		kill()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), logs())
		}
		var unexpected []string
		for _, line := range strings.Split(logs(), "\n") {
			if !Refused(line) {
				unexpected = append(unexpected, line)
			}
		}
		for _, f := range forbidden {
			assert.NotContains(t, strings.Join(unexpected, "\n"), f, "the reconciler's log")
		}
	}, logs)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Repeat runs pass every half second until the process it returns ends.
// A pass that fails is retried, as a runtime retries, so that the loop
// lives through an API server's restart; the first failure fails the test
// at Stop.
func Repeat(t *testing.T, pass func(context.Context) error) *Process {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var mu sync.Mutex
	var failure error
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := pass(ctx); err != nil && ctx.Err() == nil {
				mu.Lock()
				if failure == nil {
					failure = err
				}
				mu.Unlock()
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	kill := func() {
		cancel()
		<-done
	}
	return NewProcess(t, kill, func() {
		kill()
		assert.NoError(t, failure)
	}, func() string {
		mu.Lock()
		defer mu.Unlock()
		if failure != nil {
			return "first failed pass: " + failure.Error()
		}
		return ""
	})
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
