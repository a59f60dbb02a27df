package machine

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// commandTimeout bounds ps and lsof: a snapshot must never hang a run.
const commandTimeout = 5 * time.Second

// takeDarwin is a Snapshot on macOS, from ps: every process's CPU time,
// the machine's their sum. Not tested on a Mac here: its parsing is
// (parsePS).
func takeDarwin(servers Servers, self int) Snapshot {
	s := Snapshot{At: time.Now(), Cores: runtime.NumCPU(), ServersErr: servers.err}
	out, err := command("ps", "-A", "-o", "pid=,ppid=,time=,rss=")
	var procs []Proc
	if err == nil {
		procs, err = parsePS(out)
	}
	if err != nil {
		s.BusyErr = err
		if len(servers.roots) > 0 {
			s.ServersErr = err
		}
		return s
	}
	s.all = map[key]time.Duration{}
	var busy time.Duration
	for _, p := range procs {
		busy += p.CPU
		s.all[p.key()] = p.CPU
		if p.PID == self {
			s.Self = &p
		}
	}
	if s.Self == nil {
		s.MemErr = errors.New("ps did not list this process")
	}
	s.Busy = &busy
	if servers.err == nil && len(servers.roots) > 0 {
		s.Servers, s.ServersErr = descend(procs, servers.roots, self)
	}
	return s
}

func command(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// findDarwin finds the processes lsof says listen on ports, self left
// out.
func findDarwin(ports []int, self int) Servers {
	var s Servers
	for _, port := range ports {
		out, err := command("lsof", "-nP", "-iTCP:"+strconv.Itoa(port), "-sTCP:LISTEN", "-t")
		pids, perr := parsePIDs(out)
		if err != nil || perr != nil || len(pids) == 0 {
			return Servers{err: fmt.Errorf("no process found listening on TCP port %d: %w", port, errors.Join(err, perr))}
		}
		for _, pid := range pids {
			if pid != self {
				s.roots = append(s.roots, Proc{PID: pid})
			}
		}
	}
	return s
}

// descend are the roots among procs, matched by PID and Start, and every
// process below them, self and its descendants left out; a root that is
// no longer there has ended, and what it used is unknown.
func descend(procs []Proc, roots []Proc, self int) ([]Proc, error) {
	children := map[int][]Proc{}
	now := map[int]Proc{}
	for _, p := range procs {
		children[p.PPID] = append(children[p.PPID], p)
		now[p.PID] = p
	}
	var queue []Proc
	for _, r := range roots {
		p, ok := now[r.PID]
		if !ok || p.Start != r.Start {
			return nil, fmt.Errorf("the server process %d ended", r.PID)
		}
		queue = append(queue, p)
	}
	var out []Proc
	seen := map[int]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p.PID] || p.PID == self {
			continue
		}
		seen[p.PID] = true
		out = append(out, p)
		queue = append(queue, children[p.PID]...)
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return out, nil
}

// parsePS reads `ps -A -o pid=,ppid=,time=,rss=`: a process a line, its
// CPU time as [[dd-]hh:]mm:ss[.cc], its resident memory in KiB (macOS
// states no peak: HWM stays 0).
func parsePS(out string) ([]Proc, error) {
	var procs []Proc
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("ps: a line of %d fields, want pid, ppid, time and rss: %q", len(f), line)
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		cpu, err3 := parseCPUTime(f[2])
		kb, err4 := strconv.ParseUint(f[3], 10, 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("ps: %q: %w", line, err)
		}
		procs = append(procs, Proc{PID: pid, PPID: ppid, CPU: cpu, RSS: kb * 1024})
	}
	if len(procs) == 0 {
		return nil, errors.New("ps listed no process")
	}
	return procs, nil
}

// parseCPUTime reads ps's time, [[dd-]hh:]mm:ss[.cc].
func parseCPUTime(s string) (time.Duration, error) {
	var days time.Duration
	if d, rest, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.Atoi(d)
		if err != nil {
			return 0, fmt.Errorf("a CPU time %q: its days: %w", s, err)
		}
		days, s = time.Duration(n)*24*time.Hour, rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("a CPU time %q, want [[dd-]hh:]mm:ss", s)
	}
	secs, err := strconv.ParseFloat(parts[len(parts)-1], 64)
	if err != nil || secs < 0 {
		return 0, fmt.Errorf("a CPU time %q: its seconds", s)
	}
	d := days + time.Duration(secs*float64(time.Second))
	unit := time.Minute
	for i := len(parts) - 2; i >= 0; i-- {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("a CPU time %q: %q is not a number", s, parts[i])
		}
		d += time.Duration(n) * unit
		unit = time.Hour
	}
	return d, nil
}

// parsePIDs reads lsof -t: a PID a line.
func parsePIDs(out string) ([]int, error) {
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("lsof: %q is not a PID", f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}
