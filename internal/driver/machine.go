package driver

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// BusyMax is the most CPU, in cores, that other processes may use on
// average over a leaf run's timed part before it is marked disturbed: a
// number of cores, not a share of them, because one busy neighbour takes
// a core's worth whatever the machine's size (and on Apple silicon a part
// of the power and heat the GPU shares). docs/method.md#the-machines-state
// says on which measurements it was chosen.
const BusyMax = 0.5

// machineServer is what of rt's server the machine's state counts apart
// from other processes: the ports its processes listen on (none for a
// remote server, whose CPU is not this machine's), and whether its
// processes can be told apart at all. A remote server is said once.
func (d *Driver) machineServer(rt *runtimes.Runtime) (ports []int, ok bool) {
	if d.servers == nil {
		d.servers = map[string]machineServer{}
	}
	s, seen := d.servers[rt.Name]
	if !seen {
		srv, err := machine.ServerOf(rt.BaseURL)
		switch {
		case err != nil:
			d.logf("%s: other processes' CPU cannot be told from its server's (%v): its leaf runs' other_cpu_cores are null", rt.Name, err)
		case !srv.Local:
			d.logf("%s: its server (%s) is not on this machine: other_cpu_cores counts this machine's other processes, not the server's, and its memory is not this machine's (server_rss_bytes absent)", rt.Name, rt.BaseURL)
			s.ok = true
		default:
			s.ports, s.ok = []int{srv.Port}, true
		}
		d.servers[rt.Name] = s
	}
	return s.ports, s.ok
}

type machineServer struct {
	ports []int
	ok    bool
}

// findServers finds the processes of the leaf's server (machine.Find),
// before its warm-ups: reading the listening sockets can take tens of
// milliseconds, which the edges of the timed part must not wait for.
func (l *Leaf) findServers() {
	if l.control {
		return
	}
	ports, ok := l.d.machineServer(l.rt)
	if !ok {
		return
	}
	find := machine.Find
	if l.d.find != nil {
		find = l.d.find
	}
	s := find(ports)
	l.servers, l.remote = &s, len(ports) == 0
}

// takeMachine reads the machine (machine.Take, or the tests' stand-in),
// at an edge of the leaf run's timed part; nil where it is not measured.
func (l *Leaf) takeMachine() *machine.Snapshot {
	if l.servers == nil {
		return nil
	}
	take := machine.Take
	if l.d.snapshot != nil {
		take = l.d.snapshot
	}
	s := take(*l.servers)
	return &s
}

// machineRun is the machine's state over the leaf run's timed part, to
// end (nil: not measured), with the GPU's frequency from its power
// figures (nil: none).
func (l *Leaf) machineRun(end *machine.Snapshot, power *telemetry.Figures) *summary.LeafRun {
	if l.control {
		return nil
	}
	lr := &summary.LeafRun{}
	if power != nil {
		lr.GPUMHzMean = ptr(power.GPUMHzMean)
	}
	if l.machineFrom == nil || end == nil {
		lr.Cores = runtime.NumCPU()
		return lr
	}
	u := machine.Between(*l.machineFrom, *end)
	lr.Cores = u.Cores
	if lr.Cores == 0 {
		lr.Cores = runtime.NumCPU()
	}
	l.d.cores = lr.Cores
	other, ok := u.Other()
	if !ok {
		if !l.d.machineSaid[l.key.Runtime] {
			if l.d.machineSaid == nil {
				l.d.machineSaid = map[string]bool{}
			}
			l.d.machineSaid[l.key.Runtime] = true
			l.d.logf("%s: other processes' CPU use is not measured (other_cpu_cores null): %v", l.key.Runtime, u.Err)
		}
		return lr
	}
	lr.OtherCPUCores = ptr(other)
	if other > BusyMax {
		lr.Disturbed = true
		lr.Why = fmt.Sprintf("other processes used %.2f of %d cores", other, lr.Cores)
		l.d.disturbed = append(l.d.disturbed, fmt.Sprintf("%s #%d (%.2f)", l.key.Levels(), l.count, other))
	}
	l.d.measuredRuns++
	return lr
}

// sayDisturbed says at the end of the run which leaf runs ran while other
// processes used more than BusyMax cores.
func (d *Driver) sayDisturbed() {
	if len(d.disturbed) == 0 {
		return
	}
	d.logf("%d of %d leaf runs ran while other processes used more than %g of the machine's %d cores (busy_max; other_cpu_cores in leaf_runs of %s): %s",
		len(d.disturbed), d.measuredRuns, BusyMax, d.cores, d.files.json, strings.Join(d.disturbed, ", "))
}
