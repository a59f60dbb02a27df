package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// A prompt's section: its tables, the sweep's stops and its charts.

// writePrompt writes a prompt's section: its closed-loop table, sweep and
// charts, then the tables of token timing, tool calls and requests, TTFT
// against each request's input length, power and the server's counters,
// then its open-loop table and charts. A table no row has a figure of is
// left out.
func writePrompt(b *strings.Builder, runs []*run, ks []key, p string, charts []chartFile) {
	fmt.Fprintf(b, "## Prompt %s\n\n", cell(p))
	closed, open, all := promptKeys(ks, p)
	s := promptSection{runs: runs, charts: charts}
	if len(closed) > 0 {
		closedLoad.with(mainColumns(showCacheHit(runs), s.anyRow(closed, goodputRPS.has), s.anyRow(closed, hasMemory))...).write(b, runs, closed)
		writeSweep(b, runs, p)
	}
	writeCharts(b, s.chartsOf(secMain))
	s.writeDetails(b, all)
	if len(open) > 0 {
		s.writeOpen(b, open)
	}
}

// promptKeys are the keys of prompt p: its closed-loop ones, its
// open-loop ones and all of them, in the order of ks.
func promptKeys(ks []key, p string) (closed, open, all []key) {
	for _, k := range ks {
		if k.Prompt != p {
			continue
		}
		all = append(all, k)
		if k.open() {
			open = append(open, k)
		} else {
			closed = append(closed, k)
		}
	}
	return closed, open, all
}

// promptSection is what a prompt's section is written from: the runs and
// the charts drawn.
type promptSection struct {
	runs   []*run
	charts []chartFile
}

// anyRow reports whether a run has a row of one of ks that has.
func (s promptSection) anyRow(ks []key, has func(row) bool) bool {
	for _, k := range ks {
		for _, r := range s.runs {
			if rw, ok := r.find(k); ok && has(rw) {
				return true
			}
		}
	}
	return false
}

// chartsOf are the charts of a section of the page (secMain…).
func (s promptSection) chartsOf(section string) []chartFile { return chartsIn(s.charts, section) }

// writeDetails writes the tables of token timing, tool calls and
// requests, TTFT against input length, power and the server's counters
// of keys all.
func (s promptSection) writeDetails(b *strings.Builder, all []key) {
	runs := s.runs
	if s.anyRow(all, hasTiming) || len(s.chartsOf(secTiming)) > 0 {
		b.WriteString("### Token timing\n\n")
		if s.anyRow(all, hasTiming) {
			b.WriteString("TTFC is the time to the first answer text (after any reasoning), TPOT each request's " +
				"(total − TTFT) / (output tokens − 1), ITL the gaps between successive text chunks; in ms.\n\n")
			anyLoad.with(timingColumns...).write(b, runs, all)
		}
		writeCharts(b, s.chartsOf(secTiming))
	}
	if s.anyRow(all, hasTools) {
		b.WriteString("### Tool calls\n\n")
		b.WriteString("The requests carried tools (BENCH_TOOLS): the successful replies that made a tool call, " +
			"the calls they made, those whose arguments parse as a JSON object, and the time to the first chunk " +
			"that carried part of a call, in ms.\n\n")
		anyLoad.with(toolColumns...).write(b, runs, all)
	}
	if s.anyRow(all, hasRequests) {
		b.WriteString("### Requests\n\n")
		b.WriteString("What the requests asked and got: the model the replies named where it is not the one asked for, " +
			"mean prompt tokens and how many of them the server took from its prompt cache, the successful requests " +
			"that stopped before the length asked for, and why the replies ended.\n\n")
		anyLoad.with(requestColumns...).write(b, runs, all)
	}
	writeLength(b, s.chartsOf(secLength))
	if s.anyRow(all, hasPower) || len(s.chartsOf(secPower)) > 0 {
		b.WriteString("### Power\n\n")
		b.WriteString("The machine's power over the timed rounds (macmon): energy per successful output token, " +
			"mean CPU + GPU + ANE power, and the samples they come from.\n\n")
		anyLoad.with(powerColumns...).write(b, runs, all)
		writeEnergy(b, runs, all)
		writeCharts(b, s.chartsOf(secPower))
	}
	if s.anyRow(all, hasServer) {
		b.WriteString("### Server counters\n\n")
		b.WriteString("The server's own account of the timed rounds (its Prometheus /metrics) beside the client's: " +
			"mean prefill time per request against the client's mean TTFT, mean decode time against the client's mean " +
			"total − TTFT, and tokens generated (failed requests' included) against the successful requests' output " +
			"tokens (energy ÷ J/tok where there are power figures, else successes × tokens per request, a range " +
			"where requests differed). Model loads count the requests that waited for the model to load.\n\n")
		anyLoad.with(serverColumns...).write(b, runs, all)
	}
}

// writeOpen writes the open-loop table and charts of keys open.
func (s promptSection) writeOpen(b *strings.Builder, open []key) {
	b.WriteString("### Open loop\n\n")
	b.WriteString("Requests sent at a rate, whatever is in flight: the rate achieved, how late the client " +
		"sent (p99), completed requests/s")
	if s.anyRow(open, goodputRPS.has) {
		b.WriteString(", and goodput: the requests/s that met the run's SLO, and their share of all requests")
	}
	b.WriteString(".\n\n")
	rateLoad.with(openColumns(showCacheHit(s.runs), s.anyRow(open, goodputRPS.has), s.anyRow(open, hasMemory))...).write(b, s.runs, open)
	writeCapped(b, s.runs, open)
	writeCharts(b, s.chartsOf(secOpen))
}

// writeSweep lists where each run's concurrency sweep stopped for the
// prompt, and its knee, by runtime as the tables order them. Each -count
// repetition sweeps again; a stop they share is listed once, saying in
// how many it was.
func writeSweep(b *strings.Builder, runs []*run, p string) {
	var lines [][]string
	for _, name := range runtimeNames(keys(runs)) {
		for _, r := range runs {
			for _, s := range sweepStops(r, p, name) {
				knee := "none"
				if s.Knee > 0 {
					knee = strconv.Itoa(s.Knee)
				}
				why := cell(s.Reason)
				if s.n > 1 {
					why += fmt.Sprintf(" (in %d repetitions)", s.n)
				}
				line := []string{cell(s.Runtime)}
				if len(runs) > 1 {
					line = append(line, cell(r.Label))
				}
				lines = append(lines, append(line, strconv.Itoa(r.Sweep.Max), strconv.Itoa(s.Concurrency), knee, orMissing(why)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("Concurrency sweep: where each runtime's sweep (1, 2, 4, … up to its bound) stopped, and its knee, " +
		"the highest concurrency that still paid off (marked on the throughput chart).\n\n")
	heads := []head{{text: "runtime"}}
	if len(runs) > 1 {
		heads = append(heads, head{text: "run"})
	}
	writeHead(b, append(heads, head{"bound", true}, head{"stopped at", true}, head{"knee", true}, head{text: "why"})...)
	for _, l := range lines {
		writeLine(b, 0, l...)
	}
	b.WriteString("\n")
}

// sweepStop is a stop of a run's sweep, and in how many of its
// repetitions it was.
type sweepStop struct {
	summary.SweepStop
	n int
}

// sweepStops returns the stops of r's sweep of the runtime and prompt
// (all runtimes for ""), each once, in order.
func sweepStops(r *run, prompt, runtime string) []sweepStop {
	if r.Sweep == nil {
		return nil
	}
	var out []sweepStop
	for _, s := range r.Sweep.Stops {
		if s.Prompt != prompt || runtime != "" && s.Runtime != runtime {
			continue
		}
		if i := slices.IndexFunc(out, func(o sweepStop) bool { return o.SweepStop == s }); i >= 0 {
			out[i].n++
			continue
		}
		out = append(out, sweepStop{s, 1})
	}
	return out
}

// writeCapped says which open-loop rows had arrivals held back by the
// in-flight cap: their load was not fully open.
func writeCapped(b *strings.Builder, runs []*run, open []key) {
	var parts []string
	for _, k := range open {
		for _, r := range runs {
			if rw, ok := r.find(k); ok && rw.InflightCapped != nil && *rw.InflightCapped > 0 {
				s := fmt.Sprintf("%s at %s req/s", cell(k.Runtime), bench.FormatRate(k.Rate))
				if len(runs) > 1 {
					s += " (" + cell(r.Label) + ")"
				}
				parts = append(parts, fmt.Sprintf("%s: %d", s, *rw.InflightCapped))
			}
		}
	}
	if len(parts) > 0 {
		b.WriteString("Arrivals that waited for the in-flight cap (BENCH_MAX_INFLIGHT), so that the load was not fully open: " +
			strings.Join(parts, "; ") + ".\n\n")
	}
}
