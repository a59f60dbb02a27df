package driver

import (
	"context"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// memEvery is how often the server's resident memory is read during a
// leaf run's timed part, between the full readings at its edges
// (machine.Take): its processes' own entries only (machine.RSS), which
// takes well under a millisecond.
const memEvery = 200 * time.Millisecond

// costs is what the driver keeps of what a runtime costs beside its
// figures: its server's memory (here) and the cooldowns (cooldown.go).
type costs struct {
	// rss stands in for machine.RSS in tests; nil: it. memorySaid are
	// the runtimes whose memory figures were explained; memRun is the
	// sampler running, if any, which Close stops.
	rss        func([]machine.Proc) (machine.Memory, error)
	memorySaid map[string]bool
	memRun     *memSampler
	// cool is what the cooldowns between leaves took (BENCH_COOLDOWN),
	// and idleTempC the CPU's temperature in the idle baseline, the most
	// it read (nil: none), which an idle cooldown waits to return near.
	cool      cooling
	idleTempC *float64
}

// closeMemory stops a sampler still running: a leaf run that never
// ended (an interrupt, a failed benchmark).
func (d *Driver) closeMemory() {
	if d.memRun != nil {
		d.memRun.stop()
		d.memRun = nil
	}
}

// memSampler reads the server's memory during one leaf run's timed part
// and keeps the most it held.
type memSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	peak   uint64
}

func (s *memSampler) saw(rss uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak = max(s.peak, rss)
}

// stop ends the sampling and returns the most it read (0: none).
func (s *memSampler) stop() uint64 {
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// startMemory starts reading the memory of the server's processes as
// the timed part begins (l.machineFrom found them), where it can be read:
// a server on another machine has none here.
func (l *Leaf) startMemory() {
	if l.machineFrom == nil || l.remote {
		return
	}
	m, err := l.machineFrom.Memory()
	if err != nil {
		return // End says why
	}
	procs := make([]machine.Proc, len(m.Pids))
	for i, pid := range m.Pids {
		procs[i] = machine.Proc{PID: pid}
	}
	read := machine.RSS
	if l.d.rss != nil {
		read = l.d.rss
	}
	ctx, cancel := context.WithCancel(l.ctx)
	s := &memSampler{cancel: cancel, done: make(chan struct{}), peak: m.RSS}
	l.mem, l.d.memRun = s, s
	go tick(ctx, memEvery, s.done, func() {
		if now, err := read(procs); err == nil {
			s.saw(now.RSS) // a process that ended: the edges count
		}
	})
}

// stopMemory stops the sampling at the timed part's end; the most it
// read, 0 when it did not run.
func (l *Leaf) stopMemory() uint64 {
	if l.mem == nil {
		return 0
	}
	peak := l.mem.stop()
	l.mem, l.d.memRun = nil, nil
	return peak
}

// memoryRun sets lr's memory figures from the snapshot at the timed
// part's end and the most read during it (peak), and whose memory they
// are (summary.MemorySelf for a server in this process); a server on
// another machine is said to have none here, and a failure is said once
// per runtime.
func (l *Leaf) memoryRun(lr *summary.LeafRun, end *machine.Snapshot, peak uint64) {
	name := l.key.Runtime
	if l.remote {
		lr.ServerMemory = summary.MemoryRemote
		return
	}
	if end == nil {
		return
	}
	m, err := end.Memory()
	if err != nil {
		l.d.sayMemory(name, "%s: its server's memory is not measured (server_rss_bytes absent): %v", name, err)
		return
	}
	lr.ServerMemory = summary.MemoryServer
	if m.InSelf {
		lr.ServerMemory = summary.MemorySelf // said there, and in the report
	}
	peak = max(peak, m.RSS)
	lr.ServerRSSBytes, lr.ServerRSSPeakBytes = &m.RSS, &peak
	if m.HWM > 0 {
		lr.ServerRSSHWMBytes = &m.HWM
	}
}

// sayMemory logs once per runtime what its memory figures are or why it
// has none.
func (d *Driver) sayMemory(runtime, format string, args ...any) {
	if d.memorySaid[runtime] {
		return
	}
	if d.memorySaid == nil {
		d.memorySaid = map[string]bool{}
	}
	d.memorySaid[runtime] = true
	d.logf(format, args...)
}
