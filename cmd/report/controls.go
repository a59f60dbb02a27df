package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// The server state section: how each runtime's server was made fresh
// between leaves, and its control leaf.

// writeControls writes, for runs with a control leaf or a fresh start
// (BENCH_FRESH, BENCH_CONTROL), how each runtime's server was returned to
// a known state before each leaf run, and its first leaf run against the
// same leaf run again at the end, with its test: a drift says later
// leaves do not compare with earlier ones.
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
		"at the end each runtime's first leaf runs again (the control). A control drifted when a rank test of its requests " +
		"against those of its runs during the run (Mann–Whitney, p below 0.005 for each figure) shows that TTFT or decode moved by more than " +
		"its threshold (10%, or the leaf's own spread across -count; for TTFT at least 2 ms): the server's state or the machine " +
		"changed during the run. A leaf with too few requests for the test is not judged.")
	if slices.ContainsFunc(runs, (*run).embeddings) {
		b.WriteString(" An embeddings run's TTFT is its whole reply, and it has no decode (" + missing + ").")
	}
	b.WriteString("\n\n")
	writeHead(b, head{text: "run"}, head{text: "runtime"}, head{text: "fresh"}, head{text: "control leaf"},
		head{ttftP50.Heading() + ", first → end", true}, head{decodeTPS.Heading() + ", first → end", true},
		head{"requests, first / end", true}, head{"p, TTFT / decode", true}, head{text: "verdict"})
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
				writeLine(b, 0, cell(r.Label), cell(rt.Name), cell(fresh), missing, missing, missing, missing, missing, missing)
				continue
			}
			// The figure at the first run and at the end, and the change.
			firstToEnd := func(f figure, change float64) string {
				return f.format(controlFigures(c.First)) + " → " + f.format(controlFigures(c.End)) + " (" + pct(change) + ")"
			}
			requests, ps := missing, missing
			if c.Verdict != "" { // a file written before the test has neither
				requests = fmt.Sprintf("%d / %d", c.RequestsFirst, c.RequestsEnd)
				ps = stats.FormatP(c.TTFTP) + " / " + stats.FormatP(c.DecodeP)
			}
			writeLine(b, 0, cell(r.Label), cell(rt.Name), cell(fresh), cell(c.Leaf),
				firstToEnd(ttftP50, c.TTFTChange), firstToEnd(decodeTPS, c.DecodeChange), requests, ps, verdict(c.Control))
		}
	}
	b.WriteString("\n")
}

// verdict is a control's verdict for a cell, a drift in bold; a file
// written before the test says only whether it drifted.
func verdict(c stats.Control) string {
	switch {
	case c.Drifted:
		return "**" + stats.ControlDrifted + "**"
	case c.Verdict == "":
		return stats.ControlSteady
	}
	return c.Verdict
}

// pct is a change (0.1: +10%) for a cell, or the missing mark.
func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return missing
	}
	return fmt.Sprintf("%+.0f%%", math.Round(100*x)+0)
}
