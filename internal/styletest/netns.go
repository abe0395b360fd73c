//go:build e2e

package styletest

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// StartInOwnNetwork is StartProcess for cmd in a network namespace of its
// own, as a pod has, where the API server's address (127.0.0.1:port) is
// forwarded to the API server: a second replica of a runtime that binds
// fixed ports (ansible-operator: its proxy on 8888, its event API on 5050)
// runs beside the first. It needs root (CAP_SYS_ADMIN), as make
// test-runtimes has.
func (c *Cluster) StartInOwnNetwork(t *testing.T, cmd *exec.Cmd) *Process {
	t.Helper()
	u, err := url.Parse(c.Config.Host)
	require.NoError(t, err)
	apiServer := u.Host
	var (
		p        *Process
		listener net.Listener
	)
	// A thread of this goroutine alone enters a new network namespace,
	// listens there and starts cmd there (a child takes its thread's
	// namespaces), then goes back: goroutines never run on it meanwhile,
	// and the runtime makes new threads from a clean one.
	func() {
		runtime.LockOSThread()
		host, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		require.NoError(t, err)
		defer host.Close()
		require.NoError(t, unix.Unshare(unix.CLONE_NEWNET), "a network namespace of its own (needs root)")
		defer func() {
			// Back to the host's network; a thread that cannot go back is
			// left locked, so that it ends with this goroutine.
			if unix.Setns(int(host.Fd()), unix.CLONE_NEWNET) == nil {
				runtime.UnlockOSThread()
			}
		}()
		require.NoError(t, loopbackUp())
		listener, err = net.Listen("tcp", apiServer)
		require.NoError(t, err)
		p = StartProcess(t, cmd)
	}()
	t.Cleanup(func() { _ = listener.Close() })
	go forward(listener, apiServer)
	return p
}

// loopbackUp brings lo up in the calling thread's network namespace, as
// `ip link set lo up` does.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	return nil
}

// forward copies each connection accepted (in the namespace) to address,
// dialled from the host's network, until the listener is closed.
func forward(listener net.Listener, address string) {
	for {
		in, err := listener.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", address)
			if err != nil {
				return
			}
			defer out.Close()
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(out, in)
				if tcp, ok := out.(*net.TCPConn); ok {
					_ = tcp.CloseWrite()
				}
				close(done)
			}()
			_, _ = io.Copy(in, out)
			<-done
		}()
	}
}
