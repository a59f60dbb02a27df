package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
)

// report.md: its sections in order, the warnings at its top, the charts'
// links and the failures at its end. The sections are in runs.go,
// controls.go, inputlength.go, turns.go, images.go, embeddings.go and
// prompt.go; their tables are
// drawn by table.go, of the figures in figures.go.

// writeMarkdown writes report.md for runs (the first is the base) to w.
// charts maps a prompt to its charts, in the order to show them, and
// reportCharts to the charts of the input length, turns, server metrics
// and embeddings sections; nil
// leaves charts out.
func writeMarkdown(w io.Writer, runs []*run, charts map[string][]chartFile) error {
	var b strings.Builder
	// The sections of rows show the chat's; the embeddings section its own.
	chat := apiView(runs, false)
	ks := keys(chat)
	b.WriteString("# Inference benchmark report\n\n")
	if len(runs) == 1 {
		b.WriteString("One run. TTFT is time to first token; decode, request and aggregate are mean output tokens/s " +
			"(see the summary JSON's measurement_notes). A figure the file does not have is shown as " + missing + ".\n\n")
	} else {
		fmt.Fprintf(&b, "%d runs; the first is the base, and each later run's figures are followed by their change "+
			"against it in percent (times and J/tok: lower is better; tok/s, req/s and goodput: higher is better). "+
			"Rows are matched by runtime, prompt and concurrency, or rate. A figure a file does not have is shown as %s.\n\n", len(runs), missing)
		writeTestNote(&b, runs)
	}
	writeCacheWarning(&b, runs)
	writeWorkloadWarning(&b, runs)
	writeRequestWarning(&b, runs)
	writeRuns(&b, runs)
	writeControls(&b, runs)
	writeCanaries(&b, runs)
	writeQuality(&b, runs)

	if len(keys(runs)) == 0 {
		b.WriteString("The files have no rows.\n")
	}
	if hasInputRows(chat) {
		writeInputLength(&b, chat, chartsIn(charts[reportCharts], secInput))
	}
	if hasTurnRows(chat) {
		writeTurns(&b, chat, chartsIn(charts[reportCharts], secTurns))
	}
	writeSeries(&b, chartsIn(charts[reportCharts], secSeries))
	if hasImageRows(chat) {
		writeImages(&b, chat)
	}
	if hasEmbedRows(runs) {
		writeEmbeddings(&b, apiView(runs, true), chartsIn(charts[reportCharts], secEmbed))
	}
	for _, p := range prompts(ks) {
		writePrompt(&b, chat, ks, p, charts[p])
	}
	writeFailures(&b, runs)
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// writeTestNote says how the changes are tested, and which runs have no
// leaf runs to test them on.
func writeTestNote(b *strings.Builder, runs []*run) {
	var without []string
	for _, r := range runs {
		if r.Samples == nil {
			without = append(without, cell(r.Label))
		}
	}
	if len(without) == len(runs) {
		b.WriteString("No run has its .txt beside its summary JSON: the changes are not tested against noise, " +
			"which needs each leaf run's figures, and only the .txt has them.\n\n")
		return
	}
	b.WriteString("A change followed by p and n was tested on the leaf runs (each of -count's repetitions is one sample, " +
		"from the .txt beside each summary JSON), with the Mann–Whitney U test benchstat uses: p is the chance of a " +
		"change at least this large between runs that differ only by noise, so p below 0.05 is a change beyond noise, " +
		"and n is the leaf runs of the base and of the later run (n=6 for six each). Fewer than 4 leaf runs a side " +
		"cannot reach 0.05 whatever the change. The .txt has the leaf runs' means and rates, not their percentiles, " +
		"shares or counts: a change without p was not tested.\n\n")
	if len(without) > 0 {
		fmt.Fprintf(b, "No .txt (or none readable) beside the summary of %s: no change against it carries a p-value.\n\n", strings.Join(without, ", "))
	}
}

// writeDiffWarning writes, at the top, the warning that the runs differ
// in what of writes of each ("cold", "1 turn, no shared prefix"): what
// in bold, the runs of each value, then why. Nothing when all are alike.
func writeDiffWarning(b *strings.Builder, runs []*run, what string, of func(*run) string, why string) {
	runsOf := map[string][]string{}
	var order []string
	for _, r := range runs {
		v := of(r)
		if _, seen := runsOf[v]; !seen {
			order = append(order, v)
		}
		runsOf[v] = append(runsOf[v], cell(r.Label))
	}
	if len(order) < 2 {
		return
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, v+": "+strings.Join(runsOf[v], ", "))
	}
	b.WriteString("> **Warning: these runs differ in " + what + "** (" + strings.Join(parts, "; ") + "). " + why + "\n\n")
}

// writeCacheWarning warns, at the top, when the runs differ in cache
// mode.
func writeCacheWarning(b *strings.Builder, runs []*run) {
	writeDiffWarning(b, runs, "cache mode", func(r *run) string { return cell(r.Cache) },
		"A cold request's prompt is new to the server, so its TTFT includes prefilling the whole prompt; "+
			"a warm one's prompt was sent before, so its TTFT is a prompt-cache hit. "+
			"Their TTFT, TTFC and prompt figures are not comparable, and neither are the changes in percent between them.")
}

// writeWorkloadWarning warns, at the top, when the runs differ in turns
// or shared prefix.
func writeWorkloadWarning(b *strings.Builder, runs []*run) {
	workload := func(r *run) string {
		turns := "1 turn"
		if r.Turns > 1 {
			turns = strconv.Itoa(r.Turns) + " turns"
		}
		prefix := "no shared prefix"
		if r.SharedPrefix > 0 {
			prefix = "shared prefix " + prefixCell(r.SharedPrefix)
		}
		return turns + ", " + prefix
	}
	writeDiffWarning(b, runs, "conversation turns or shared prefix", workload,
		"A row of a run of several turns pools every turn, whose prompts grow with the conversation, and a shared prefix "+
			"lengthens every prompt and may be cached; their TTFT and prompt figures are not comparable, "+
			"and neither are the changes in percent between them.")
}

// writeRequestWarning warns, at the top, when the runs differ in what
// each request asked beside its prompt: the API (BENCH_API), images
// (BENCH_IMAGES) or an embeddings request's inputs (BENCH_EMBED_BATCH).
// Their rows share runtime, prompt and load, and would be set side by
// side as one leaf's change.
func writeRequestWarning(b *strings.Builder, runs []*run) {
	request := func(r *run) string {
		parts := []string{r.API}
		if r.Images != "" {
			parts = append(parts, "images "+r.Images)
		}
		if r.EmbedBatch > 1 {
			parts = append(parts, strconv.Itoa(r.EmbedBatch)+" inputs a request")
		}
		return strings.Join(parts, ", ")
	}
	writeDiffWarning(b, runs, "API, images or embeddings batch", request,
		"Each API stamps its first token at its own event (docs/metrics.md), images are prefilled with the prompt, "+
			"and an embeddings request of more inputs is more work: their figures are not comparable, "+
			"and neither are the changes in percent between them.")
}

// writeCharts links the charts, and says their notes.
func writeCharts(b *strings.Builder, cs []chartFile) {
	if len(cs) == 0 {
		return
	}
	for _, c := range cs {
		fmt.Fprintf(b, "![%s](%s)\n", c.alt, c.name)
	}
	b.WriteString("\n")
	for _, c := range cs {
		if c.note != "" {
			b.WriteString("*" + c.note + "*\n\n")
		}
	}
}

// writeFailures lists every row's failures by class, with the first
// message of each, if any run has some.
func writeFailures(b *strings.Builder, runs []*run) {
	var lines [][]string
	for _, r := range runs {
		for _, rw := range r.Rows {
			load := strconv.Itoa(rw.Concurrency)
			if k := keyOf(rw); k.open() {
				load = bench.FormatRate(k.Rate) + " req/s"
			}
			classes := slices.Sorted(maps.Keys(rw.Errors))
			for _, c := range classes {
				ec := rw.Errors[c]
				lines = append(lines, []string{cell(r.Label), cell(rw.Runtime), cell(rw.Prompt), load,
					cell(string(c)), strconv.Itoa(ec.Count), cell(ec.First)})
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Failures\n\nBy class, with the first message of each (see docs/failures.md, \"Failures by class\").\n\n")
	writeHead(b, head{text: "run"}, head{text: "runtime"}, head{text: "prompt"}, head{"load", true},
		head{text: "class"}, head{"count", true}, head{text: "first message"})
	for _, l := range lines {
		writeLine(b, 0, l...)
	}
	b.WriteString("\n")
}
