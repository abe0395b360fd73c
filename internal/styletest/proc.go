package styletest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

// procStat is what the tests read of one process (proc(5)).
type procStat struct {
	ppid  int
	comm  string
	state byte // R, S, Z...
	cpu   time.Duration
	rss   int64
}

// readProcs reads /proc once: every process but those that end meanwhile.
func readProcs() (map[int]procStat, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
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
	return procs, nil
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
	return procStat{ppid: int(num(4)), comm: s[open+1 : end], state: f[0][0],
		cpu: time.Duration(ticks) * time.Second / clockTicks, rss: num(24) * int64(os.Getpagesize())}, nil
}
