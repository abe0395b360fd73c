//go:build unix

package styletest

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

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

// killGroup sends SIGKILL to the process group cmd leads (inOwnGroup) and
// to every process below it that left the group: ansible-runner starts
// ansible-playbook in a session of its own (pexpect's setsid), which a
// group's kill does not reach. The tree is first stopped, so that nothing
// in it forks past the walk, then killed.
func killGroup(cmd *exec.Cmd) error {
	leader := cmd.Process.Pid
	_ = syscall.Kill(-leader, syscall.SIGSTOP)
	stopped := map[int]bool{}
	for grew := true; grew; {
		grew = false
		for _, pid := range descendants(leader) {
			if !stopped[pid] {
				stopped[pid], grew = true, true
				_ = syscall.Kill(pid, syscall.SIGSTOP)
			}
		}
	}
	for pid := range stopped {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return syscall.Kill(-leader, syscall.SIGKILL)
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	procs, _ := readProcs()
	children := map[int][]int{}
	for child, s := range procs {
		children[s.ppid] = append(children[s.ppid], child)
	}
	var below []int
	for queue := append([]int(nil), children[pid]...); len(queue) > 0; queue = queue[1:] {
		below = append(below, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return below
}
