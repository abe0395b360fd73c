//go:build linux

package styletest

import (
	"bufio"
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A process that left the group in a session of its own (as ansible-runner
// starts ansible-playbook) ends with the group's leader.
func TestKillGroupReachesWhatLeftTheGroup(t *testing.T) {
	cmd := GroupCommand(context.Background(), "sh", "-c", `setsid sleep 300 & echo $!; exec sleep 300`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	escaped, err := strconv.Atoi(line[:len(line)-1])
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		group, _ := syscall.Getpgid(escaped)
		return group == escaped
	}, 5*time.Second, 10*time.Millisecond, "setsid took it out of the group")

	require.NoError(t, killGroup(cmd))
	_ = cmd.Wait()
	require.Eventually(t, func() bool {
		// Killed, it is a zombie until init reaps it, or gone.
		s, err := readProcStat(escaped)
		return err != nil || s.state == 'Z'
	}, 5*time.Second, 10*time.Millisecond, "the process in its own session outlived the group")
}
