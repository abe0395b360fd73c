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
	"syscall"
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
	inOwnGroup(cmd)
	require.NoError(t, cmd.Start())
	return func() {
		_ = killGroup(cmd)
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

// Process is a real runtime started by StartLogged.
type Process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	once sync.Once
}

// StartLogged starts cmd, a real runtime, with its output in a buffer;
// it is killed at cleanup.
func StartLogged(t *testing.T, cmd *exec.Cmd) *Process {
	p := &Process{cmd: cmd}
	w := writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.out.Write(b)
	})
	cmd.Stdout, cmd.Stderr = w, w
	inOwnGroup(cmd)
	require.NoError(t, cmd.Start(), "start %s", cmd.Path)
	t.Cleanup(p.Kill)
	return p
}

// Logs is the process's output so far.
func (p *Process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Kill kills the process and what it forked with SIGKILL, as a node's
// crash would (it releases nothing, its lease included), and waits for it;
// later calls do nothing.
func (p *Process) Kill() {
	p.once.Do(func() {
		_ = killGroup(p.cmd)
		_ = p.cmd.Wait()
	})
}

// GroupCommand is exec.CommandContext whose process leads a process group
// of its own, killed whole when ctx ends (see inOwnGroup).
func GroupCommand(ctx context.Context, name string, arg ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, arg...)
	inOwnGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	return cmd
}

// inOwnGroup makes cmd, before it starts, the leader of a process group of
// its own, for killGroup to kill whole as a container's processes end with
// it: a runtime's or ansible-playbook's forked workers would otherwise live
// on, go on writing to the cluster, and hold its output pipe open, so that
// Wait never returned. WaitDelay bounds Wait should anything have left the
// group.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 10 * time.Second
}

// killGroup sends SIGKILL to the process group cmd leads (inOwnGroup).
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
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
