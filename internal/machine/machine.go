package machine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
)

// Proc is one process at a snapshot.
type Proc struct {
	PID, PPID int
	// Start tells a process from a later one with its PID: on Linux the
	// clock ticks after boot when it started; 0 where unknown.
	Start uint64
	// CPU is its user and system CPU time since it started.
	CPU time.Duration
	// RSS is its resident memory and HWM the most it has had since it
	// started (Linux VmHWM), in bytes; read for the servers' processes
	// and this one only, 0 where not read (Snapshot.MemErr says why).
	RSS, HWM uint64
}

// key is a process across snapshots: its PID and start.
type key struct {
	pid   int
	start uint64
}

func (p Proc) key() key { return key{p.PID, p.Start} }

// Snapshot is the machine's CPU time at one moment.
type Snapshot struct {
	At time.Time
	// Cores are the machine's CPUs; 0 where unknown.
	Cores int
	// Busy is the machine's busy CPU time over all its cores (Linux: user,
	// nice, system, irq, softirq and steal, not idle or iowait); nil where
	// unknown. BusyErr says why.
	Busy    *time.Duration
	BusyErr error
	// Self is this process; nil where unknown.
	Self *Proc
	// Servers are the processes Find found listening on the ports asked
	// for, and their descendants, this process left out (it is Self: a
	// server in it, the simulator, is counted there). ServersErr says why
	// some could not be found or read: then what they used is unknown.
	Servers    []Proc
	ServersErr error
	// MemErr says why the servers' or this process's memory (Proc.RSS)
	// could not be read; see Memory.
	MemErr error
	// VM is the kernel's memory state (Linux /proc: swap, pressure); nil
	// elsewhere or where /proc/meminfo could not be read (VMErr says why).
	VM    *VM
	VMErr error

	// all is every process, where the machine's busy time is their sum
	// (macOS), so that one that ends between snapshots does not take its
	// whole time off the machine's.
	all map[key]time.Duration
}

// Servers are the processes serving some TCP ports on this machine, as
// Find found them: the roots of the process trees whose CPU time Take
// counts apart. The zero Servers is none: no port asked for (a server on
// another machine), or a server in this process.
type Servers struct {
	roots []Proc // their PID and Start; this process left out
	err   error
}

// Err is why the servers could not be found; nil when they were.
func (s Servers) Err() error { return s.err }

// Find finds the processes listening on ports (TCP, on this machine),
// this process left out. On Linux it reads /proc/net/tcp, which takes
// milliseconds, tens of them on a machine with many connections: call it
// before a timed part, not at its edges.
func Find(ports []int) Servers {
	if len(ports) == 0 {
		return Servers{}
	}
	switch runtime.GOOS {
	case "linux":
		return procFS{root: "/proc", self: os.Getpid()}.find(ports)
	case "darwin":
		return findDarwin(ports, os.Getpid())
	}
	return Servers{err: fmt.Errorf("no way to find the processes listening on TCP ports on %s", runtime.GOOS)}
}

// Take reads the machine now: its busy CPU time, this process's, and that
// of the servers' processes and their descendants. Errors are in the
// Snapshot, never a panic.
func Take(servers Servers) Snapshot {
	switch runtime.GOOS {
	case "linux":
		return procFS{root: "/proc", self: os.Getpid()}.take(servers, time.Now())
	case "darwin":
		return takeDarwin(servers, os.Getpid())
	}
	err := fmt.Errorf("no way to read CPU time on %s", runtime.GOOS)
	return Snapshot{At: time.Now(), Cores: runtime.NumCPU(), BusyErr: err, ServersErr: servers.err}
}

// Use is the CPU time spent between two snapshots, over all cores. A nil
// figure is unknown; Err says why.
type Use struct {
	Wall    time.Duration
	Cores   int
	Busy    *time.Duration
	Self    *time.Duration
	Servers *time.Duration
	Err     error
}

// Between is the CPU time spent from a to b. A server process in both
// counts its difference; one only in b (started between them) its whole
// time; one only in a (ended between them) is lost, and what it used
// counts as other processes'.
func Between(a, b Snapshot) Use {
	u := Use{Wall: b.At.Sub(a.At), Cores: b.Cores}
	var errs []error
	switch {
	case a.Busy == nil || b.Busy == nil:
		errs = append(errs, cmpErr(a.BusyErr, b.BusyErr, "the machine's CPU time"))
	case a.all != nil && b.all != nil:
		u.Busy = ptr(spent(a.all, b.all))
	default:
		u.Busy = ptr(*b.Busy - *a.Busy)
	}
	if a.Self != nil && b.Self != nil {
		u.Self = ptr(b.Self.CPU - a.Self.CPU)
	} else {
		errs = append(errs, errors.New("this process's CPU time could not be read"))
	}
	if a.ServersErr != nil || b.ServersErr != nil {
		errs = append(errs, cmpErr(a.ServersErr, b.ServersErr, "the servers' CPU time"))
	} else {
		before, after := map[key]time.Duration{}, map[key]time.Duration{}
		for _, p := range a.Servers {
			before[p.key()] = p.CPU
		}
		for _, p := range b.Servers {
			after[p.key()] = p.CPU
		}
		u.Servers = ptr(spent(before, after))
	}
	u.Err = errors.Join(errs...)
	return u
}

// spent is the CPU time the processes of after used since before: the
// difference for those in both, the whole for new ones.
func spent(before, after map[key]time.Duration) time.Duration {
	var d time.Duration
	for k, cpu := range after {
		d += cpu - before[k] // a new process's before is 0
	}
	return d
}

func cmpErr(a, b error, what string) error {
	if a != nil {
		return fmt.Errorf("%s: %w", what, a)
	}
	if b != nil {
		return fmt.Errorf("%s: %w", what, b)
	}
	return fmt.Errorf("%s could not be read", what)
}

// Other is what the machine's other processes used, in cores: its busy
// CPU time less this process's and the servers', over the wall time. It
// is at least 0 (the counters tick in hundredths of a second, so a quiet
// machine can come out a little below). ok is false where it is unknown.
func (u Use) Other() (cores float64, ok bool) {
	if u.Busy == nil || u.Self == nil || u.Servers == nil || u.Wall <= 0 {
		return 0, false
	}
	other := *u.Busy - *u.Self - *u.Servers
	return max(0, other.Seconds()/u.Wall.Seconds()), true
}

func ptr(d time.Duration) *time.Duration { return &d }
