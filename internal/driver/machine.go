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
	machineState(lr, power, l.machineFrom, end)
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

// machineState sets lr's GPU, swap, memory pressure and temperatures:
// from macmon's figures where there are some (a Mac), else swap and
// pressure from the snapshots at the timed part's edges (Linux /proc).
// What was not measured stays nil.
func machineState(lr *summary.LeafRun, power *telemetry.Figures, from, end *machine.Snapshot) {
	if power != nil {
		lr.GPUMHzMean = ptr(power.GPUMHzMean)
		lr.GPUActiveMHzMean, lr.GPUActiveRatioMean = power.GPUActiveMHzMean, power.GPUActiveRatioMean
		lr.SwapUsedBytesStart, lr.SwapUsedBytesEnd = ptr(power.SwapUsedBytesStart), ptr(power.SwapUsedBytesEnd)
		lr.SwapGrowthBytes = ptr(power.SwapGrowthBytes)
		if power.RAMTotalBytes > 0 {
			lr.RAMUsedShareMax = ptr(float64(power.RAMUsedBytesMax) / float64(power.RAMTotalBytes))
		}
		lr.CPUTempCMax, lr.GPUTempCMax = power.CPUTempCMax, power.GPUTempCMax
	}
	if from == nil || end == nil {
		return
	}
	vm, ok := machine.VMBetween(*from, *end)
	if !ok {
		return
	}
	if power == nil {
		lr.SwapUsedBytesStart, lr.SwapUsedBytesEnd, lr.SwapGrowthBytes = ptr(vm.SwapStart), ptr(vm.SwapEnd), ptr(vm.Growth)
	}
	lr.SwapOutBytes, lr.MemoryStallShare = vm.SwapOut, vm.StallShare
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

// sayMarked says at the end of the run which rows had leaf runs marked
// throttled or swapping (summary.LeafRun.Mark): compare leaves their
// leaves out of its verdicts.
func (d *Driver) sayMarked() {
	var lines []string
	total := 0
	for _, row := range d.Run.Rows() {
		n, why := row.Marked()
		if n == 0 {
			continue
		}
		total += n
		lines = append(lines, fmt.Sprintf("%s prompt=%s/conc=%d: %d of %d, %s", row.Runtime, row.Prompt, row.Concurrency, n, len(row.LeafRuns), why))
	}
	if total == 0 {
		return
	}
	d.logf("%d leaf runs ran on a throttled or swapping machine (mark in leaf_runs of %s; not clean samples, left out of compare's verdicts): %s",
		total, d.files.json, strings.Join(lines, "; "))
}
