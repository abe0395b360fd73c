//go:build e2e

package styletest

import (
	"os"
	"sync"
	"time"
)

// Usage is what the operator's processes have used: every descendant of
// the test binary but the API server and etcd (the runtime, its hook
// server, the playbooks and hooks it runs), whichever way it was started.
type Usage struct {
	CPU time.Duration // user and system time, waited-for children included
	RSS int64         // bytes resident, summed over the processes
}

// operatorUsage reads /proc once. A process that has ended and been waited
// for by another of the operator's is in that one's children's times; one
// waited for by the test binary itself is not counted (none is during a
// measure: the test stops nothing it started until the measure ends).
func operatorUsage() (Usage, error) {
	procs, err := readProcs()
	if err != nil {
		return Usage{}, err
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
