package machine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// tick is Linux's USER_HZ, the unit of /proc's CPU times: 100 a second on
// every architecture Go runs on.
const tick = time.Second / 100

// procFS reads a Linux /proc at root, as process self.
type procFS struct {
	root string
	self int
	// readlink reads a /proc/<pid>/fd entry: os.Readlink when nil (the
	// tests' captured /proc holds files whose text is the link's, as a
	// repository keeps no dangling links).
	readlink func(string) (string, error)
}

func (fs procFS) path(parts ...string) string {
	return filepath.Join(append([]string{fs.root}, parts...)...)
}

// take is the Snapshot of fs at now.
func (fs procFS) take(servers Servers, now time.Time) Snapshot {
	s := Snapshot{At: now, ServersErr: servers.err}
	if data, err := os.ReadFile(fs.path("stat")); err != nil {
		s.BusyErr = err
	} else if busy, cores, err := parseStat(data); err != nil {
		s.BusyErr = fmt.Errorf("%s: %w", fs.path("stat"), err)
	} else {
		s.Busy, s.Cores = &busy, cores
	}
	s.VM, s.VMErr = fs.vm()
	if p, err := fs.proc(fs.self); err == nil {
		s.Self = &p
		p.RSS, p.HWM, s.MemErr = fs.memory(fs.self)
	}
	if servers.err == nil && len(servers.roots) > 0 {
		s.Servers, s.ServersErr = fs.descendants(servers.roots)
		s.MemErr = nil // the servers' memory, not this process's, is asked for
		for i := range s.Servers {
			p := &s.Servers[i]
			var err error
			if p.RSS, p.HWM, err = fs.memory(p.PID); err != nil && s.MemErr == nil {
				s.MemErr = err
			}
		}
	}
	return s
}

// parseStat reads /proc/stat: the busy CPU time of its "cpu" line (user,
// nice, system, irq, softirq, steal; guest time is within user) and the
// number of "cpuN" lines, the online cores.
func parseStat(data []byte) (busy time.Duration, cores int, err error) {
	found := false
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			cores++
			continue
		}
		if len(f) < 9 {
			return 0, 0, fmt.Errorf("its cpu line has %d fields, want at least 8 numbers: %q", len(f)-1, line)
		}
		for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system (idle iowait) irq softirq steal
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("its cpu line's field %d: %w", i, err)
			}
			busy += time.Duration(n) * tick
		}
		found = true
	}
	if !found {
		return 0, 0, errors.New(`no "cpu" line`)
	}
	return busy, cores, nil
}

// parsePIDStat reads /proc/<pid>/stat: the process's parent, start and
// CPU time (utime + stime). Its name, in parentheses, may hold spaces and
// parentheses: the fields are after its last ')'.
func parsePIDStat(data []byte) (Proc, error) {
	s := string(bytes.TrimSpace(data))
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open {
		return Proc{}, fmt.Errorf("no (name) in %q", s)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return Proc{}, fmt.Errorf("its pid: %w", err)
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3, state
	if len(f) < 20 {
		return Proc{}, fmt.Errorf("%d fields after the name, want at least 20", len(f))
	}
	var n [4]uint64
	for i, field := range []int{4, 14, 15, 22} { // ppid utime stime starttime
		if n[i], err = strconv.ParseUint(f[field-3], 10, 64); err != nil {
			return Proc{}, fmt.Errorf("its field %d: %w", field, err)
		}
	}
	return Proc{PID: pid, PPID: int(n[0]), Start: n[3], CPU: time.Duration(n[1]+n[2]) * tick}, nil
}

func (fs procFS) proc(pid int) (Proc, error) {
	data, err := os.ReadFile(fs.path(strconv.Itoa(pid), "stat"))
	if err != nil {
		return Proc{}, err
	}
	return parsePIDStat(data)
}

// parseListening reads /proc/net/tcp or tcp6: the inodes of the sockets
// listening (state 0A) on one of ports, by port.
func parseListening(r io.Reader, ports []int, into map[int][]uint64) error {
	sc := bufio.NewScanner(r)
	header := true
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if header || len(f) == 0 {
			header = false
			continue
		}
		if len(f) < 10 {
			return fmt.Errorf("a line of %d fields, want at least 10: %q", len(f), sc.Text())
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if !ok || err != nil {
			return fmt.Errorf("a local address %q, want ADDR:PORT in hex", f[1])
		}
		if f[3] != "0A" || !slices.Contains(ports, int(port)) {
			continue
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return fmt.Errorf("an inode %q: %w", f[9], err)
		}
		into[int(port)] = append(into[int(port)], inode)
	}
	return sc.Err()
}

// find finds the processes that hold the sockets listening on ports,
// this process left out.
func (fs procFS) find(ports []int) Servers {
	inodes := map[int][]uint64{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fs.path("net", name))
		if errors.Is(err, os.ErrNotExist) && name == "tcp6" {
			continue // no IPv6
		}
		if err != nil {
			return Servers{err: err}
		}
		err = parseListening(f, ports, inodes)
		f.Close()
		if err != nil {
			return Servers{err: fmt.Errorf("%s: %w", fs.path("net", name), err)}
		}
	}
	wanted := map[uint64]int{} // inode → port
	for _, port := range ports {
		if len(inodes[port]) == 0 {
			return Servers{err: fmt.Errorf("no process on this machine listens on TCP port %d", port)}
		}
		for _, ino := range inodes[port] {
			wanted[ino] = port
		}
	}
	holders, unreadable := fs.holders(wanted)
	for ino, port := range wanted {
		if _, ok := holders[ino]; !ok {
			return Servers{err: fmt.Errorf("the process listening on TCP port %d could not be found: %d processes' open files are not readable (another user's?)", port, unreadable)}
		}
	}
	var s Servers
	for _, pids := range holders {
		for _, pid := range pids {
			if pid == fs.self || slices.ContainsFunc(s.roots, func(p Proc) bool { return p.PID == pid }) {
				continue
			}
			p, err := fs.proc(pid)
			if err != nil {
				return Servers{err: fmt.Errorf("the server process %d: %w", pid, err)}
			}
			s.roots = append(s.roots, p)
		}
	}
	slices.SortFunc(s.roots, func(a, b Proc) int { return a.PID - b.PID })
	return s
}

// holders are the processes whose open files include the sockets wanted,
// by inode (this process's first: a server in it needs no other), and the
// number of processes whose open files could not be read.
func (fs procFS) holders(wanted map[uint64]int) (map[uint64][]int, int) {
	holders := map[uint64][]int{}
	fs.scanFDs(fs.self, wanted, holders)
	if len(holders) == len(wanted) {
		return holders, 0
	}
	unreadable := 0
	for _, pid := range fs.pids() {
		if pid != fs.self && !fs.scanFDs(pid, wanted, holders) {
			unreadable++
		}
	}
	return holders, unreadable
}

// scanFDs adds pid to holders for each socket of wanted it holds, and
// reports whether its open files could be read.
func (fs procFS) scanFDs(pid int, wanted map[uint64]int, holders map[uint64][]int) bool {
	dir := fs.path(strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	readlink := fs.readlink
	if readlink == nil {
		readlink = os.Readlink
	}
	for _, fd := range fds {
		target, err := readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		num, ok := strings.CutPrefix(target, "socket:[")
		if !ok {
			continue
		}
		ino, err := strconv.ParseUint(strings.TrimSuffix(num, "]"), 10, 64)
		if _, want := wanted[ino]; err == nil && want && !slices.Contains(holders[ino], pid) {
			holders[ino] = append(holders[ino], pid)
		}
	}
	return true
}

// pids are the processes of fs, in order.
func (fs procFS) pids() []int {
	entries, _ := os.ReadDir(fs.root)
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// descendants are the processes roots, as they are now, and every
// process below them.
func (fs procFS) descendants(roots []Proc) ([]Proc, error) {
	var procs []Proc
	for _, pid := range fs.pids() {
		if p, err := fs.proc(pid); err == nil {
			procs = append(procs, p) // else it ended meanwhile
		}
	}
	return descend(procs, roots, fs.self)
}
