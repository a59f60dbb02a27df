package summary

import (
	"fmt"
	"strings"
)

// A leaf run is marked, beside Disturbed (other processes' CPU), when the
// machine itself was not in its usual state: its GPU ran well below the
// run's clock (throttled), or it swapped. Such a run is not a clean
// sample: compare and history leave its leaf out of their verdicts as
// they do a disturbed one. docs/power.md says on what data the thresholds
// were chosen, and how to check them on a Mac.
const (
	// MarkThrottled: the GPU's frequency while active fell below
	// ThrottledBelow of the run's busy norm.
	MarkThrottled = "throttled"
	// MarkSwapping: swap grew by SwapGrowthMin or more during the timed
	// part (or, on Linux, as much was written to swap).
	MarkSwapping = "swapping"

	// ThrottledBelow is the share of the run's busy norm (the highest
	// GPU frequency while active of its busy leaf runs) below which a
	// busy leaf run is throttled.
	ThrottledBelow = 0.85
	// GPUBusyRatio is the least mean GPU residency of a busy leaf run:
	// below it the GPU idles much of the time and its clock follows the
	// load, not the heat. A leaf run whose macmon prints no residency
	// counts as busy.
	GPUBusyRatio = 0.5
	// SwapGrowthMin is the swap growth, bytes, that marks a leaf run
	// swapping.
	SwapGrowthMin = 64 << 20
)

// Clean reports whether the leaf run is a clean sample: neither disturbed
// by other processes nor marked (throttled, swapping). A leaf run whose
// state was not measured counts as clean: not measured is not disturbed,
// but nothing says it was not.
func (lr LeafRun) Clean() bool { return !lr.Disturbed && lr.Mark == "" }

// busyGPU reports whether lr's GPU was active enough for its clock to be
// judged, and at what frequency while active.
func (lr LeafRun) busyGPU() (mhz float64, ok bool) {
	if lr.GPUActiveMHzMean == nil || *lr.GPUActiveMHzMean <= 0 {
		return 0, false
	}
	if lr.GPUActiveRatioMean != nil && *lr.GPUActiveRatioMean < GPUBusyRatio {
		return 0, false
	}
	return *lr.GPUActiveMHzMean, true
}

// GPUNorm is the run's busy norm: the highest GPU frequency while active
// of the busy leaf runs among runs, 0 where none was.
func GPUNorm(runs []*LeafRun) float64 {
	norm := 0.0
	for _, lr := range runs {
		if mhz, ok := lr.busyGPU(); ok {
			norm = max(norm, mhz)
		}
	}
	return norm
}

// markMachine marks lr throttled (against the run's busy norm, 0 for
// none) or swapping, from its figures; the marks of an earlier call are
// replaced.
func (lr *LeafRun) markMachine(norm float64) {
	lr.Mark, lr.MarkWhy = "", ""
	var marks, why []string
	if mhz, ok := lr.busyGPU(); ok && norm > 0 && mhz < ThrottledBelow*norm {
		marks = append(marks, MarkThrottled)
		why = append(why, fmt.Sprintf("the GPU ran at %.0f MHz while active, %.0f%% of the run's %.0f MHz", mhz, 100*mhz/norm, norm))
	}
	if w := lr.swapWhy(); w != "" {
		marks = append(marks, MarkSwapping)
		why = append(why, w)
	}
	lr.Mark, lr.MarkWhy = strings.Join(marks, ","), strings.Join(why, "; ")
}

// swapWhy says how lr swapped, "" where it did not (or was not measured).
func (lr LeafRun) swapWhy() string {
	switch {
	case lr.SwapGrowthBytes != nil && *lr.SwapGrowthBytes >= SwapGrowthMin:
		return fmt.Sprintf("swap grew by %s", mib(uint64(*lr.SwapGrowthBytes)))
	case lr.SwapOutBytes != nil && *lr.SwapOutBytes >= SwapGrowthMin:
		return fmt.Sprintf("%s written to swap", mib(*lr.SwapOutBytes))
	}
	return ""
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// Marked says how many of the row's leaf runs were marked (throttled,
// swapping) and how: "throttled: the GPU ran at …"; the first reason of
// each mark is given. n is 0 where none was.
func (r *Row) Marked() (n int, why string) {
	seen := map[string]string{}
	var order []string
	for _, lr := range r.LeafRuns {
		if lr.Mark == "" {
			continue
		}
		n++
		whys := strings.Split(lr.MarkWhy, "; ")
		for i, m := range strings.Split(lr.Mark, ",") {
			if _, ok := seen[m]; ok {
				continue
			}
			seen[m] = ""
			if i < len(whys) {
				seen[m] = whys[i]
			}
			order = append(order, m)
		}
	}
	var parts []string
	for _, m := range order {
		parts = append(parts, fmt.Sprintf("%s (%s)", m, seen[m]))
	}
	return n, strings.Join(parts, ", ")
}

// Unclean is how the row's leaf runs were not clean samples, for a
// verdict that leaves them out: "during 2 of 6 NEW leaf runs other
// processes used up to 0.93 of 2 cores; 1 of 6 NEW leaf runs was marked
// throttled (…)"; "" where all were clean (or none was measured). role
// names the side ("NEW"), or is empty.
func (r *Row) Unclean(role string) string {
	if role != "" {
		role += " "
	}
	var out []string
	if n, most, cores := r.Disturbance(); n > 0 {
		out = append(out, fmt.Sprintf("during %d of %d %sleaf runs other processes used up to %.2f of %d cores",
			n, len(r.LeafRuns), role, most, cores))
	}
	if n, why := r.Marked(); n > 0 {
		out = append(out, fmt.Sprintf("%d of %d %sleaf runs marked %s", n, len(r.LeafRuns), role, why))
	}
	return strings.Join(out, "; ")
}
