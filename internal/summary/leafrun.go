package summary

import "github.com/inferencebench/inferencebench/internal/figures"

// LeafRun is the machine's state during one leaf run's timed part (from
// its first timed round's start to its end, the warm-ups left out): what
// other processes used, so that a comparison can refuse a verdict on runs
// that ran disturbed. A row's LeafRuns are in the order of its result
// lines in the .txt.
type LeafRun struct {
	// OtherCPUCores is the CPU time of the machine's other processes (its
	// busy time less this process's and the benchmarked server's, with
	// the server's descendants) over the wall time, in cores; nil where it
	// could not be measured (no /proc or ps, a local server whose
	// processes could not be found).
	OtherCPUCores *float64 `json:"other_cpu_cores"`
	// Cores are the machine's CPUs; 0 where unknown.
	Cores int `json:"cores"`
	// GPUMHzMean is the GPU's mean frequency over the timed part
	// (macmon, on a Mac); nil without it.
	GPUMHzMean *float64 `json:"gpu_mhz_mean"`
	// Disturbed is set when other processes used more than the run's
	// arguments.busy_max allows; Why says so for people.
	Disturbed bool   `json:"disturbed"`
	Why       string `json:"why,omitempty"`
	// Mark says how the machine itself was not in its usual state:
	// "throttled", "swapping", or both ("throttled,swapping"); MarkWhy
	// says so for people. Empty when neither (see marks.go, Clean).
	Mark    string `json:"mark,omitempty"`
	MarkWhy string `json:"mark_why,omitempty"`

	// The GPU (macmon, on a Mac): its mean frequency while active (each
	// sample's MHz weighted by its residency) and its mean active
	// residency, 0–1 (macmon 0.8 and later).
	GPUActiveMHzMean   *float64 `json:"gpu_active_mhz_mean,omitempty"`
	GPUActiveRatioMean *float64 `json:"gpu_active_ratio_mean,omitempty"`
	// Swap in use at the timed part's start and end and its growth,
	// bytes (macmon on a Mac, /proc/meminfo on Linux); on Linux the bytes
	// written to swap during it (/proc/vmstat pswpout).
	SwapUsedBytesStart *uint64 `json:"swap_used_bytes_start,omitempty"`
	SwapUsedBytesEnd   *uint64 `json:"swap_used_bytes_end,omitempty"`
	SwapGrowthBytes    *int64  `json:"swap_growth_bytes,omitempty"`
	SwapOutBytes       *uint64 `json:"swap_out_bytes,omitempty"`
	// Memory pressure: the most RAM in use over the machine's RAM
	// (macmon), and the share of the timed part during which some task
	// waited on memory (Linux /proc/pressure/memory "some").
	RAMUsedShareMax  *float64 `json:"ram_used_share_max,omitempty"`
	MemoryStallShare *float64 `json:"memory_stall_share,omitempty"`
	// The hottest CPU and GPU over the timed part, °C (macmon).
	CPUTempCMax *float64 `json:"cpu_temp_c_max,omitempty"`
	GPUTempCMax *float64 `json:"gpu_temp_c_max,omitempty"`
	// The benchmarked server's resident memory, in bytes: its processes
	// listening on its port with their descendants (Ollama's runner) at
	// the timed part's end; the most they held together at its edges and
	// every 200 ms between; and the sum of their own peaks since each
	// started (Linux VmHWM, at the end; absent on macOS), which the kernel
	// updates lazily, so that a peak read between can exceed it. Absent
	// where not measured. ServerMemory
	// says whose memory they are (MemoryServer, MemorySelf) or why there
	// are none (MemoryRemote).
	ServerRSSBytes     *uint64 `json:"server_rss_bytes,omitempty"`
	ServerRSSPeakBytes *uint64 `json:"server_rss_peak_bytes,omitempty"`
	ServerRSSHWMBytes  *uint64 `json:"server_rss_hwm_bytes,omitempty"`
	ServerMemory       string  `json:"server_memory,omitempty"`
}

// Report reports the server's memory at its most (figures.ServerMemory)
// of a leaf run whose server's processes were measured on this machine;
// nothing for a leaf run not measured, for a server elsewhere, or for the
// simulator in the suite's own process, whose memory is the client's too.
func (lr *LeafRun) Report(r interface{ ReportMetric(float64, string) }) {
	if lr == nil || lr.ServerMemory != MemoryServer || lr.ServerRSSPeakBytes == nil {
		return
	}
	r.ReportMetric(float64(*lr.ServerRSSPeakBytes), figures.ServerMemory.Unit)
}

// The ServerMemory words.
const (
	// MemoryServer: the processes serving the runtime's port on this
	// machine, with their descendants.
	MemoryServer = "server processes"
	// MemorySelf: the server is the suite's own process (the simulator):
	// the figures are this process's, the benchmark's client with it.
	MemorySelf = "this process (the client with the server)"
	// MemoryRemote: the server is on another machine: no figure.
	MemoryRemote = "not this machine's"
)

// addMemory sets the row's memory from its leaf runs: the mean of their
// resident memory at the timed part's end, the most any held, and whose
// memory it is; nothing where no leaf run measured it.
func (row *Row) addMemory() {
	var sum, n, peak uint64
	for _, lr := range row.LeafRuns {
		if lr.ServerMemory != "" {
			row.ServerMemory = lr.ServerMemory
		}
		if lr.ServerRSSBytes != nil {
			sum += *lr.ServerRSSBytes
			n++
		}
		if lr.ServerRSSPeakBytes != nil {
			peak = max(peak, *lr.ServerRSSPeakBytes)
		}
	}
	if n > 0 {
		mean := sum / n
		row.ServerRSSBytes = &mean
	}
	if peak > 0 {
		row.ServerRSSPeakBytes = &peak
	}
}

// leafRuns are the machine's state during the leaf runs ls that have a
// result line (some successful request), in order, marked against the
// run's busy GPU norm (markMachine); nil when none was measured (a run
// made up, or whose driver measured nothing).
func leafRuns(ls []leaf, norm float64) []LeafRun {
	var out []LeafRun
	measured := false
	for _, l := range ls {
		if l.notRun != nil || l.m.Successes == 0 {
			continue // no result line (see Benchfmt)
		}
		lr := LeafRun{}
		if l.tel.Machine != nil {
			lr, measured = *l.tel.Machine, true
			lr.markMachine(norm)
		}
		out = append(out, lr)
	}
	if !measured {
		return nil
	}
	return out
}

// gpuNorm is the busy GPU norm (GPUNorm) of the leaf runs ls.
func gpuNorm(ls []leaf) float64 {
	var runs []*LeafRun
	for _, l := range ls {
		if l.tel.Machine != nil && l.notRun == nil && l.m.Successes > 0 {
			runs = append(runs, l.tel.Machine)
		}
	}
	return GPUNorm(runs)
}

// Disturbance says how the row's leaf runs ran disturbed: how many did,
// the most other processes used in them (cores) and the machine's cores;
// n is 0 where none did, or none was measured.
func (r *Row) Disturbance() (n int, most float64, cores int) {
	for _, lr := range r.LeafRuns {
		if !lr.Disturbed {
			continue
		}
		n++
		if lr.OtherCPUCores != nil {
			most = max(most, *lr.OtherCPUCores)
		}
		cores = max(cores, lr.Cores)
	}
	return n, most, cores
}
