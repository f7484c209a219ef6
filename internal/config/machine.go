package config

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ThisMachine returns the memory the process may use (the cgroup v2 or
// v1 limit where one is set, else MemTotal of /proc/meminfo; 1 GiB when
// neither can be read) and the cores Go schedules on.
func ThisMachine() Machine {
	m := Machine{MemoryBytes: 1 << 30, Cores: runtime.GOMAXPROCS(0)}
	if v, ok := memTotal("/proc/meminfo"); ok {
		m.MemoryBytes = v
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && v < m.MemoryBytes {
				m.MemoryBytes = v
			}
		}
	}
	return m
}

// memTotal reads MemTotal (kB) from a meminfo file.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemTotal:")); ok {
			fields := strings.Fields(string(rest))
			if len(fields) >= 1 {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil && kb > 0 {
					return kb << 10, true
				}
			}
		}
	}
	return 0, false
}
