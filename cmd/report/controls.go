package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// The server state section: how each runtime's server was made fresh
// between leaves, and its control leaf.

// writeControls writes, for runs with a control leaf or a fresh start
// (BENCH_FRESH, BENCH_CONTROL), how each runtime's server was returned to
// a known state before each leaf run, and its first leaf run against the
// same leaf run again at the end: a drift says later leaves do not
// compare with earlier ones.
func writeControls(b *strings.Builder, runs []*run) {
	show := false
	for _, r := range runs {
		for _, rt := range r.Runtimes {
			show = show || rt.Control != nil || rt.Fresh != nil
		}
	}
	if !show {
		return
	}
	b.WriteString("## Server state between leaves\n\n" +
		"Before each leaf run the server is returned to a known state where it offers a way (BENCH_FRESH=leaf); " +
		"at the end each runtime's first leaf runs again (the control). A control that moved beyond its threshold " +
		"(10%, or the leaf's own spread across -count) means the server's state or the machine changed during the run.\n\n")
	writeHead(b, head{text: "run"}, head{text: "runtime"}, head{text: "fresh"}, head{text: "control leaf"},
		head{ttftP50.heading() + ", first → end", true}, head{decodeTPS.heading() + ", first → end", true}, head{text: "drift"})
	for _, r := range runs {
		for _, rt := range r.Runtimes {
			fresh := r.Fresh
			switch {
			case rt.Fresh != nil && r.Fresh != "":
				fresh += ": " + *rt.Fresh
			case fresh == "":
				fresh = missing
			}
			if rt.FreshError != nil {
				fresh += " (refused)"
			}
			c := rt.Control
			if c == nil {
				writeLine(b, 0, cell(r.Label), cell(rt.Name), cell(fresh), missing, missing, missing, missing)
				continue
			}
			drift := "no"
			if c.Drifted {
				drift = "**yes**"
			}
			// The figure at the first run and at the end, and the change.
			firstToEnd := func(f figure, change summary.Number) string {
				return f.format(controlFigures(c.First)) + " → " + f.format(controlFigures(c.End)) + " (" + pct(float64(change)) + ")"
			}
			writeLine(b, 0, cell(r.Label), cell(rt.Name), cell(fresh), cell(c.Leaf),
				firstToEnd(ttftP50, c.TTFTChange), firstToEnd(decodeTPS, c.DecodeChange), drift)
		}
	}
	b.WriteString("\n")
}

// pct is a change (0.1: +10%) for a cell, or the missing mark.
func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return missing
	}
	return fmt.Sprintf("%+.0f%%", math.Round(100*x)+0)
}
