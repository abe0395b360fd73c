//go:build e2e

package styletest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

// Usage is what the operator's processes have used: every descendant of
// the test binary but the API server and etcd (the runtime, its hook
// server, the playbooks and hooks it runs), whichever way it was started.
type Usage struct {
	CPU time.Duration // user and system time, waited-for children included
	RSS int64         // bytes resident, summed over the processes
}

// procStat is what usage reads of one process.
type procStat struct {
	ppid int
	comm string
	cpu  time.Duration
	rss  int64
}

// operatorUsage reads /proc once. A process that has ended and been waited
// for by another of the operator's is in that one's children's times; one
// waited for by the test binary itself is not counted (none is during a
// measure: the test stops nothing it started until the measure ends).
func operatorUsage() (Usage, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return Usage{}, err
	}
	procs := map[int]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := readProcStat(pid); err == nil {
			procs[pid] = s
		}
	}
	self := os.Getpid()
	var u Usage
	for pid, s := range procs {
		if pid != self && operatorProcess(procs, pid, self) {
			u.CPU += s.cpu
			u.RSS += s.rss
		}
	}
	return u, nil
}

// operatorProcess: pid descends from the test binary and neither is nor
// descends from kube-apiserver or etcd.
func operatorProcess(procs map[int]procStat, pid, self int) bool {
	for seen := 0; seen < len(procs); seen++ {
		s, ok := procs[pid]
		if !ok || s.comm == "kube-apiserver" || s.comm == "etcd" {
			return false
		}
		if s.ppid == self {
			return true
		}
		pid = s.ppid
	}
	return false
}

// readProcStat parses /proc/<pid>/stat (proc(5)); the command name, in
// parentheses, may hold spaces, so fields are counted after its last ')'.
func readProcStat(pid int) (procStat, error) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	s := string(raw)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3, state
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	num := func(field int) int64 { n, _ := strconv.ParseInt(f[field-3], 10, 64); return n }
	ticks := num(14) + num(15) + num(16) + num(17) // utime stime cutime cstime
	return procStat{ppid: int(num(4)), comm: s[open+1 : end],
		cpu: time.Duration(ticks) * time.Second / clockTicks, rss: num(24) * int64(os.Getpagesize())}, nil
}

// usageMeter samples operatorUsage twice a second from its start until
// stop, for the CPU used in between and the highest resident memory seen.
type usageMeter struct {
	start Usage
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	last  Usage
	peak  int64
	err   error
}

func startUsageMeter() (*usageMeter, error) {
	first, err := operatorUsage()
	if err != nil {
		return nil, err
	}
	m := &usageMeter{start: first, last: first, peak: first.RSS, done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-tick.C:
				m.sample()
			}
		}
	}()
	return m, nil
}

func (m *usageMeter) sample() {
	u, err := operatorUsage()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.err = err
		return
	}
	m.last, m.peak = u, max(m.peak, u.RSS)
}

// stop ends the sampling: the CPU time used since the start and the peak
// resident memory.
func (m *usageMeter) stop() (Usage, error) {
	close(m.done)
	m.wg.Wait()
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	return Usage{CPU: m.last.CPU - m.start.CPU, RSS: m.peak}, m.err
}
