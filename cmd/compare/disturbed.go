package main

import (
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// A leaf whose runs on either side ran while other processes loaded the
// machine (the summary's leaf_runs, marked disturbed above its busy_max:
// docs/method.md, "The machine's state"), or on a throttled or swapping
// machine (leaf_runs' mark: docs/power.md), is left out of the verdict:
// its figures measured the machine as much as the runtime.

// side is one side of a comparison at a leaf: a run's summary and the
// runtime whose row it is.
type side struct {
	role    string // OLD, NEW, or the runtime's name in one run
	file    *summary.File
	runtime string
}

// blockDisturbed sets g.leafBlocked for each leaf of g at which a side
// ran disturbed.
func blockDisturbed(g *verdictGroup, sides []side) {
	for _, c := range g.changes {
		if !c.parsed || g.leafBlocked[c.leaf] != "" {
			continue
		}
		var why []string
		for _, s := range sides {
			if w := disturbedAt(s, c.key); w != "" {
				why = append(why, w)
			}
		}
		if len(why) == 0 {
			continue
		}
		if g.leafBlocked == nil {
			g.leafBlocked = map[string]string{}
		}
		g.leafBlocked[c.leaf] = strings.Join(why, "; ") + ": the machine, not only the runtime, is in its figures"
	}
}

// disturbedAt says how the side's leaf runs at leaf k were not clean
// samples (summary.Row.Unclean): "during 5 of 6 NEW leaf runs other
// processes used up to 0.93 of 2 cores", "1 of 6 NEW leaf runs marked
// throttled (…)"; "" where all were (or none was measured).
func disturbedAt(s side, k bench.Key) string {
	if s.file == nil {
		return ""
	}
	row := rowOf(s.file, s.runtime, k)
	if row == nil {
		return ""
	}
	return row.Unclean(s.role)
}

// rowOf is f's row of runtime at leaf k's prompt and load, nil if none.
func rowOf(f *summary.File, runtime string, k bench.Key) *summary.Row {
	for i := range f.Summary {
		r := &f.Summary[i]
		rate := 0.0
		if r.RateRPS != nil {
			rate = *r.RateRPS
		}
		if r.Runtime == runtime && r.Prompt == k.Prompt && rate == k.Rate && (k.Rate > 0 || r.Concurrency == k.Concurrency) {
			return r
		}
	}
	return nil
}
