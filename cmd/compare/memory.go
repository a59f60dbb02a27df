package main

import (
	"fmt"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// memoryClause says how much memory the group's server held beside its
// verdict, unjudged: "the server held 153 MiB at most (base 160 MiB)",
// the largest of benchstat's centres over the group's leaves on each side
// (server-rss-B: the processes serving the runtime's port at their most
// during each leaf run). Memory is what a runtime costs, not a speed, and
// a Mac user asks it beside the verdict: does the model fit beside the
// rest. "" where the files have none (a server elsewhere, the simulator).
func memoryClause(g *verdictGroup) string {
	var old, new float64
	for _, c := range g.changes {
		if c.unit == figures.ServerMemory.Unit {
			old, new = max(old, c.old), max(new, c.new)
		}
	}
	if old == 0 || new == 0 {
		return ""
	}
	return fmt.Sprintf("the server held %s at most (base %s)", bytesSaid(new), bytesSaid(old))
}

// bytesSaid is n bytes in MiB below a GiB, else in GiB.
func bytesSaid(n float64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MiB", n/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", n/(1<<30))
}
