package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// The input length section: the rows of the in<N> prompts
// (BENCH_INPUT_TOKENS), each sized so that the server counts N prompt
// tokens (input_tokens_target), set side by side by N across prompts; its
// charts are in inputchart.go.

// inputRow reports whether rw is a row of an in<N> prompt.
func inputRow(rw row) bool { return rw.InputTokensTarget != nil && *rw.InputTokensTarget > 0 }

// target is an in<N> row's N.
func target(rw row) int { return *rw.InputTokensTarget }

// hasInputRows reports whether a run has a row of an in<N> prompt.
func hasInputRows(runs []*run) bool {
	for _, r := range runs {
		if slices.ContainsFunc(r.Rows, inputRow) {
			return true
		}
	}
	return false
}

// compareLoads orders loads: closed loops by concurrency, then open loops
// by rate.
func compareLoads(a, b key) int {
	if a.open() != b.open() {
		if a.open() {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.Concurrency, b.Concurrency), cmp.Compare(a.Rate, b.Rate))
}

// loadOf is rw's load: its key without runtime and prompt.
func loadOf(rw row) key {
	k := keyOf(rw)
	k.Runtime, k.Prompt = "", ""
	return k
}

// inputRows returns r's in<N> rows of the runtime, by N, then load.
func inputRows(r *run, runtime string) []row {
	var out []row
	for _, rw := range r.Rows {
		if inputRow(rw) && rw.Runtime == runtime {
			out = append(out, rw)
		}
	}
	slices.SortStableFunc(out, func(a, b row) int {
		return cmp.Or(cmp.Compare(target(a), target(b)), compareLoads(loadOf(a), loadOf(b)))
	})
	return out
}

// writeInputLength writes the input length section: what its rows
// describe, the charts, which draw every table of it, then a table per
// runtime (per runtime and run, with several).
func writeInputLength(b *strings.Builder, runs []*run, charts []chartFile) {
	b.WriteString("## Input length\n\n")
	b.WriteString("The rows of the prompts of a chosen length, `in<N>` (BENCH_INPUT_TOKENS), each sized so that the server " +
		"counts N prompt tokens: TTFT and prefill tok/s (the server's own prompt evaluation rate, " + missing +
		" where it reports none) describe the prefill of N tokens, decode tok/s and TPOT the decode at a depth of N. " +
		"Prompt tokens is the mean of the server's counts. Truncated counts the successful requests whose prompt " +
		"the server cut (its count more than 5% short of N, or on Ollama reaching num_ctx): a truncated prompt means " +
		"the server cut it, and the row does not describe N. Times are in ms.\n\n")
	writeCharts(b, charts)
	for _, name := range runtimeNames(keys(runs)) {
		for _, r := range runs {
			rows := inputRows(r, name)
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(b, "### %s\n\n", cell(legendLabel(name, name, r, runs)))
			writeRows(b, inputColumns, rows)
		}
	}
}

// inputColumns are the columns of the input length tables.
var inputColumns = []column{
	countCol("N", func(r row) string { return strconv.Itoa(target(r)) }),
	plain(promptTokens).as("prompt tokens"),
	text("load", func(r row) string { return loadOf(r).load() }),
	plain(ttftP50), plain(ttftP99), plain(prefillTPS), plain(decodeTPS), plain(tpotMean).as("TPOT ms"),
	countCol("truncated", truncatedCell),
}

// truncatedCell is a row's truncated prompts, of its successes, in bold
// where there are any.
func truncatedCell(rw row) string {
	switch {
	case !rw.has(figures.KeyTruncatedPrompts):
		return missing
	case rw.TruncatedPrompts == 0:
		return "0"
	}
	return fmt.Sprintf("**%d of %d**", rw.TruncatedPrompts, rw.Successes)
}
