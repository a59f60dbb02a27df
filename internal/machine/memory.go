package machine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Memory is the resident memory of a server's processes at one moment:
// the sum of their RSS, and of their own peaks since each started (Linux
// VmHWM; 0 where unknown, as on macOS). A process's peak is its own, and
// the kernel raises it lazily (when memory is unmapped, or as status is
// read): a peak of the sum read earlier can exceed the sum of the peaks.
type Memory struct {
	RSS  uint64
	HWM  uint64
	Pids []int
	// InSelf is set when the server is this process (the simulator): its
	// memory is this process's, the benchmark's client with it.
	InSelf bool
}

// Memory is the servers' resident memory in s (Servers, or Self where no
// server was asked for or it is this process); an error where it could
// not be read: never a 0 for an unknown.
func (s Snapshot) Memory() (Memory, error) {
	if s.ServersErr != nil {
		return Memory{}, s.ServersErr
	}
	if s.MemErr != nil {
		return Memory{}, s.MemErr
	}
	if len(s.Servers) == 0 {
		if s.Self == nil || s.Self.RSS == 0 {
			return Memory{}, errors.New("this process's memory could not be read")
		}
		return Memory{RSS: s.Self.RSS, HWM: s.Self.HWM, Pids: []int{s.Self.PID}, InSelf: true}, nil
	}
	return sumMemory(s.Servers), nil
}

func sumMemory(procs []Proc) Memory {
	var m Memory
	for _, p := range procs {
		m.RSS += p.RSS
		m.HWM += p.HWM
		m.Pids = append(m.Pids, p.PID)
	}
	return m
}

// RSS reads the resident memory of the processes procs (a Snapshot's
// Servers) now, the cheap way: their own entries only, not every
// process's (a child started since is not in it; Take finds it). Errors
// name the process, never a panic.
func RSS(procs []Proc) (Memory, error) {
	switch runtime.GOOS {
	case "linux":
		fs := procFS{root: "/proc"}
		out := make([]Proc, len(procs))
		for i, p := range procs {
			out[i] = p
			var err error
			if out[i].RSS, out[i].HWM, err = fs.memory(p.PID); err != nil {
				return Memory{}, err
			}
		}
		return sumMemory(out), nil
	case "darwin":
		return rssDarwin(procs)
	}
	return Memory{}, fmt.Errorf("no way to read a process's memory on %s", runtime.GOOS)
}

// memory reads /proc/<pid>/status: its VmRSS and VmHWM, in bytes.
func (fs procFS) memory(pid int) (rss, hwm uint64, err error) {
	data, err := os.ReadFile(fs.path(strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, fmt.Errorf("the memory of process %d: %w", pid, err)
	}
	rss, hwm, err = parseStatus(string(data))
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", fs.path(strconv.Itoa(pid), "status"), err)
	}
	return rss, hwm, nil
}

// parseStatus reads /proc/<pid>/status's VmRSS and VmHWM ("VmRSS:  1740
// kB"), in bytes. A kernel thread has neither: an error.
func parseStatus(text string) (rss, hwm uint64, err error) {
	found := 0
	for line := range strings.SplitSeq(text, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("%s: %q, want a number of kB", name, strings.TrimSpace(value))
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", name, err)
		}
		if name == "VmRSS" {
			rss = kb * 1024
		} else {
			hwm = kb * 1024
		}
		found++
	}
	if found < 2 {
		return 0, 0, errors.New("no VmRSS and VmHWM (a kernel thread?)")
	}
	return rss, hwm, nil
}

// rssDarwin reads `ps -o rss= -p PID,…` (KiB). Not tested on a Mac here;
// macOS states no peak (HWM 0), and RSS, not the footprint Activity
// Monitor shows, which counts compressed memory too.
func rssDarwin(procs []Proc) (Memory, error) {
	if len(procs) == 0 {
		return Memory{}, nil
	}
	pids := make([]string, len(procs))
	for i, p := range procs {
		pids[i] = strconv.Itoa(p.PID)
	}
	out, err := command("ps", "-o", "pid=,rss=", "-p", strings.Join(pids, ","))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		kb, err2 := strconv.ParseUint(f[len(f)-1], 10, 64)
		if len(f) != 2 || err1 != nil || err2 != nil {
			return Memory{}, fmt.Errorf("ps: %q, want a pid and an rss", line)
		}
		m.RSS += kb * 1024
		m.Pids = append(m.Pids, pid)
	}
	if len(m.Pids) != len(procs) {
		return Memory{}, fmt.Errorf("ps: %d of the server's %d processes were found: one ended", len(m.Pids), len(procs))
	}
	return m, nil
}
