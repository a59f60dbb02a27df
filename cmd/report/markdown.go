package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// column is one column of a table, after the row's runtime, load and
// run: a figure, or a text.
type column struct {
	head string
	// A figure: value × scale with prec decimals (suffix after it); with
	// change, a later run's value carries its change against the base's.
	value  func(row) *float64
	scale  float64
	prec   int
	suffix string
	change bool
	// A text, when value is nil; right aligns it (a count).
	text  func(row) string
	right bool
}

// fig is a figure column whose change is shown.
func fig(head string, value func(row) *float64, scale float64, prec int) column {
	return column{head: head, value: value, scale: scale, prec: prec, change: true}
}

// plain is a figure column without a change: a count, or a figure to be
// read beside another of the same row.
func plain(head string, value func(row) *float64, scale float64, prec int) column {
	return column{head: head, value: value, scale: scale, prec: prec}
}

func text(head string, f func(row) string) column { return column{head: head, text: f} }

// countCol is a text column of numbers.
func countCol(head string, f func(row) string) column {
	return column{head: head, text: f, right: true}
}

// cell is what the column says of rw; for a later run, with its change
// against base when baseOK.
func (c column) cell(rw, base row, baseOK, later bool) string {
	if c.value == nil {
		return orMissing(c.text(rw))
	}
	s := number(c.value(rw), c.scale, c.prec)
	if s != missing {
		s += c.suffix
	}
	if c.change && later && baseOK {
		if ch := change(c.value(base), c.value(rw)); ch != "" {
			s += " (" + ch + ")"
		}
	}
	return s
}

// table is a table of rows, one line per key and run.
type table struct {
	loadHead  string // the head of the load column
	loadRight bool   // the load column is numbers
	load      func(key) string
	cols      []column
}

// closedLoad, rateLoad and anyLoad are tables of closed-loop rows, of
// open-loop rows and of rows of either kind, without their columns.
var (
	closedLoad = table{loadHead: "conc", loadRight: true, load: func(k key) string { return strconv.Itoa(k.Concurrency) }}
	rateLoad   = table{loadHead: "rate req/s", loadRight: true, load: func(k key) string { return rate(k.Rate) }}
	anyLoad    = table{loadHead: "load", load: key.load}
)

// with returns t with the columns.
func (t table) with(cols ...column) table {
	t.cols = cols
	return t
}

// write writes the table of the keys ks: each base row, followed by the
// same key's row of each later run.
func (t table) write(b *strings.Builder, runs []*run, ks []key) {
	b.WriteString("| runtime | " + t.loadHead + " |")
	if len(runs) > 1 {
		b.WriteString(" run |")
	}
	for _, c := range t.cols {
		b.WriteString(" " + c.head + " |")
	}
	b.WriteString("\n|---|")
	if t.loadRight {
		b.WriteString("---:|")
	} else {
		b.WriteString("---|")
	}
	if len(runs) > 1 {
		b.WriteString("---|")
	}
	for _, c := range t.cols {
		if c.value != nil || c.right {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, k := range ks {
		base, baseOK := runs[0].find(k)
		for i, r := range runs {
			rw, ok := r.find(k)
			if i == 0 {
				fmt.Fprintf(b, "| %s | %s |", cell(k.Runtime), t.load(k))
			} else {
				b.WriteString("|  | |")
			}
			if len(runs) > 1 {
				b.WriteString(" " + cell(r.Label) + " |")
			}
			for j, c := range t.cols {
				switch {
				case !ok && j == 0:
					b.WriteString(" not in this run |")
				case !ok:
					b.WriteString(" " + missing + " |")
				default:
					b.WriteString(" " + c.cell(rw, base, baseOK, i > 0) + " |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

var (
	modelCol  = text("model", func(r row) string { return cell(r.Model) })
	okCol     = countCol("ok", func(r row) string { return count(r, "successes", r.Successes) })
	failedCol = countCol("failed", func(r row) string { return count(r, "failures", r.Failures) })
	goodput   = []column{
		fig("goodput req/s", func(r row) *float64 { return r.GoodputRPS }, 1, 2),
		{head: "SLO met", value: func(r row) *float64 { return r.SLOAttainment }, scale: 100, prec: 1, suffix: "%"},
	}
)

// count is a row's count of key, "—" if the file did not write it.
func count(r row, key string, n int) string {
	if !r.has(key) {
		return missing
	}
	return strconv.Itoa(n)
}

// mainColumns are the closed-loop table's columns; with the cache-hit
// ratio where the report shows it (showCacheHit), with goodput where a
// row has it.
func mainColumns(withCache, withGoodput bool) []column {
	cols := []column{
		modelCol,
		fig("TTFT mean ms", func(r row) *float64 { return r.TTFTMean }, 1e3, 1),
		fig("TTFT p50 ms", func(r row) *float64 { return r.TTFTP50 }, 1e3, 1),
		fig("TTFT p95 ms", func(r row) *float64 { return r.TTFTP95 }, 1e3, 1),
		fig("TTFT p99 ms", func(r row) *float64 { return r.TTFTP99 }, 1e3, 1),
	}
	if withCache {
		cols = append(cols, cacheHitCol)
	}
	cols = append(cols,
		fig("decode tok/s", func(r row) *float64 { return r.DecodeTPSMean }, 1, 1),
		fig("request tok/s", func(r row) *float64 { return r.RequestTPSMean }, 1, 1),
		fig("aggregate tok/s", func(r row) *float64 { return r.AggregateTPSMean }, 1, 1),
	)
	if withGoodput {
		cols = append(cols, goodput...)
	}
	return append(cols, okCol, failedCol)
}

// timingColumns are the token timing table's columns.
var timingColumns = []column{
	fig("TTFC p50 ms", func(r row) *float64 { return r.TTFCP50 }, 1e3, 1),
	fig("TTFC p99 ms", func(r row) *float64 { return r.TTFCP99 }, 1e3, 1),
	fig("TPOT mean ms", func(r row) *float64 { return r.TPOTMean }, 1e3, 2),
	fig("TPOT p99 ms", func(r row) *float64 { return r.TPOTP99 }, 1e3, 2),
	fig("ITL p50 ms", func(r row) *float64 { return r.ITLP50 }, 1e3, 2),
	fig("ITL p99 ms", func(r row) *float64 { return r.ITLP99 }, 1e3, 2),
}

func hasTiming(r row) bool {
	for _, c := range timingColumns {
		if c.value(r) != nil {
			return true
		}
	}
	return false
}

// requestColumns are the requests table's columns: what was asked and
// what came back, to tell whether the runtimes did the same work.
var requestColumns = []column{
	text("served model", servedModel),
	plain("prompt tok", func(r row) *float64 { return r.PromptTokensMean }, 1, 1),
	plain("cached prompt tok", func(r row) *float64 { return r.CachedPromptTokensMean }, 1, 1),
	text("short outputs", shortOutputs),
	text("finish reasons", finishReasons),
}

func hasRequests(r row) bool {
	return r.ServedModel != "" || r.PromptTokensMean != nil || r.CachedPromptTokensMean != nil ||
		r.ShortOutputs > 0 || len(r.FinishReasons) > 0
}

// servedModel is the model the replies named if it is not the one asked
// for, "as asked" if it is.
func servedModel(r row) string {
	switch r.ServedModel {
	case "":
		return ""
	case r.Model:
		return "as asked"
	}
	return cell(r.ServedModel)
}

// shortOutputs is how many successful requests stopped short of the
// length asked for, of the successes.
func shortOutputs(r row) string {
	switch {
	case !r.has("short_outputs"):
		return ""
	case r.ShortOutputs == 0:
		return "0"
	}
	return fmt.Sprintf("%d of %d", r.ShortOutputs, r.Successes)
}

// finishReasons is "length 6, stop 2": most frequent first.
func finishReasons(r row) string {
	reasons := slices.Sorted(maps.Keys(r.FinishReasons))
	slices.SortStableFunc(reasons, func(a, b string) int { return cmp.Compare(r.FinishReasons[b], r.FinishReasons[a]) })
	parts := make([]string, len(reasons))
	for i, name := range reasons {
		parts[i] = cell(name) + " " + strconv.Itoa(r.FinishReasons[name])
	}
	return strings.Join(parts, ", ")
}

// powerColumns are the power table's columns.
var powerColumns = []column{
	fig("J/tok", func(r row) *float64 { return r.EnergyJPerOutputToken }, 1, 3),
	fig("power W", func(r row) *float64 { return r.PowerWMean }, 1, 1),
	countCol("samples", func(r row) string {
		if r.PowerSamples == nil {
			return ""
		}
		return strconv.Itoa(*r.PowerSamples)
	}),
}

func hasPower(r row) bool {
	return r.EnergyJPerOutputToken != nil || r.PowerWMean != nil || r.PowerSamples != nil
}

// serverColumns set the server's account of its work beside the
// client's.
var serverColumns = []column{
	plain("server prefill ms", func(r row) *float64 { return r.ServerPrefillSMean }, 1e3, 1),
	plain("client TTFT ms", func(r row) *float64 { return r.TTFTMean }, 1e3, 1),
	plain("server decode ms", func(r row) *float64 { return r.ServerDecodeSMean }, 1e3, 1),
	plain("client total − TTFT ms", clientDecode, 1e3, 1),
	plain("server generated tok", func(r row) *float64 { return r.ServerGeneratedTokens }, 1, 0),
	countCol("client output tok", clientTokens),
	countCol("model loads", func(r row) string { return count(r, "model_loads", r.ModelLoads) }),
}

func hasServer(r row) bool {
	return r.ServerPrefillSMean != nil || r.ServerDecodeSMean != nil || r.ServerGeneratedTokens != nil || r.ModelLoads > 0
}

// clientDecode is the client's mean request time after the first token.
func clientDecode(r row) *float64 {
	if !finite(r.TotalMean) || !finite(r.TTFTMean) {
		return nil
	}
	d := *r.TotalMean - *r.TTFTMean
	return &d
}

// clientTokens is the successful requests' output tokens, from what the
// row has (it has no sum): energy_j / energy_j_per_output_token where
// there are power figures; successes × the count where every request had
// the same (output_tokens_min = max); else the range successes × min to
// successes × max.
func clientTokens(r row) string {
	if finite(r.EnergyJ) && finite(r.EnergyJPerOutputToken) && *r.EnergyJPerOutputToken > 0 {
		return strconv.FormatFloat(math.Round(*r.EnergyJ / *r.EnergyJPerOutputToken), 'f', 0, 64)
	}
	if r.OutputTokensMin == nil || r.OutputTokensMax == nil {
		return ""
	}
	lo, hi := r.Successes**r.OutputTokensMin, r.Successes**r.OutputTokensMax
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi)
}

// openColumns are the open-loop table's columns; with the cache-hit
// ratio and goodput as mainColumns.
func openColumns(withCache, withGoodput bool) []column {
	cols := []column{
		modelCol,
		fig("achieved req/s", func(r row) *float64 { return r.AchievedRPS }, 1, 2),
		fig("send lag p99 ms", func(r row) *float64 { return r.SendLagSP99 }, 1e3, 1),
		fig("throughput req/s", func(r row) *float64 { return r.ThroughputRPS }, 1, 2),
		fig("TTFT p50 ms", func(r row) *float64 { return r.TTFTP50 }, 1e3, 1),
		fig("TTFT p99 ms", func(r row) *float64 { return r.TTFTP99 }, 1e3, 1),
	}
	if withCache {
		cols = append(cols, cacheHitCol)
	}
	if withGoodput {
		cols = append(cols, goodput...)
	}
	return append(cols, okCol, failedCol)
}

// missing is what a table shows for a figure the file does not have.
const missing = "—"

// writeMarkdown writes report.md for runs (the first is the base) to w.
// charts maps a prompt to its charts, in the order to show them, and
// reportCharts to the charts of the input length and turns sections; nil
// leaves charts out.
func writeMarkdown(w io.Writer, runs []*run, charts map[string][]chartFile) error {
	var b strings.Builder
	ks := keys(runs)
	b.WriteString("# Inference benchmark report\n\n")
	if len(runs) == 1 {
		b.WriteString("One run. TTFT is time to first token; decode, request and aggregate are mean output tokens/s " +
			"(see the summary JSON's measurement_notes). A figure the file does not have is shown as " + missing + ".\n\n")
	} else {
		fmt.Fprintf(&b, "%d runs; the first is the base, and each later run's figures are followed by their change "+
			"against it in percent (times and J/tok: lower is better; tok/s, req/s and goodput: higher is better). "+
			"Rows are matched by runtime, prompt and concurrency, or rate. A figure a file does not have is shown as %s.\n\n", len(runs), missing)
	}
	writeCacheWarning(&b, runs)
	writeWorkloadWarning(&b, runs)
	writeRuns(&b, runs)
	writeControls(&b, runs)

	if len(ks) == 0 {
		b.WriteString("The files have no rows.\n")
	}
	if hasInputRows(runs) {
		writeInputLength(&b, runs, chartsIn(charts[reportCharts], secInput))
	}
	if hasTurnRows(runs) {
		writeTurns(&b, runs, chartsIn(charts[reportCharts], secTurns))
	}
	for _, p := range prompts(ks) {
		writePrompt(&b, runs, ks, p, charts[p])
	}
	writeFailures(&b, runs)
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// writeCacheWarning warns, at the top, when the runs differ in cache
// mode.
func writeCacheWarning(b *strings.Builder, runs []*run) {
	modes := map[string][]string{}
	var order []string
	for _, r := range runs {
		if _, seen := modes[r.Cache]; !seen {
			order = append(order, r.Cache)
		}
		modes[r.Cache] = append(modes[r.Cache], cell(r.Label))
	}
	if len(order) < 2 {
		return
	}
	var parts []string
	for _, m := range order {
		parts = append(parts, cell(m)+": "+strings.Join(modes[m], ", "))
	}
	b.WriteString("> **Warning: these runs differ in cache mode** (" + strings.Join(parts, "; ") + "). " +
		"A cold request's prompt is new to the server, so its TTFT includes prefilling the whole prompt; " +
		"a warm one's prompt was sent before, so its TTFT is a prompt-cache hit. " +
		"Their TTFT, TTFC and prompt figures are not comparable, and neither are the changes in percent between them.\n\n")
}

// prefixCell is a run's shared prefix for a cell: "1024 tok", or "none".
func prefixCell(tokens int) string {
	if tokens <= 0 {
		return "none"
	}
	return strconv.Itoa(tokens) + " tok"
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
	runsOf := map[string][]string{}
	var order []string
	for _, r := range runs {
		w := workload(r)
		if _, seen := runsOf[w]; !seen {
			order = append(order, w)
		}
		runsOf[w] = append(runsOf[w], cell(r.Label))
	}
	if len(order) < 2 {
		return
	}
	var parts []string
	for _, w := range order {
		parts = append(parts, w+": "+strings.Join(runsOf[w], ", "))
	}
	b.WriteString("> **Warning: these runs differ in conversation turns or shared prefix** (" + strings.Join(parts, "; ") + "). " +
		"A row of a run of several turns pools every turn, whose prompts grow with the conversation, and a shared prefix " +
		"lengthens every prompt and may be cached; their TTFT and prompt figures are not comparable, " +
		"and neither are the changes in percent between them.\n\n")
}

// writeRuns writes the table of runs.
func writeRuns(b *strings.Builder, runs []*run) {
	withSLO := slices.ContainsFunc(runs, func(r *run) bool { return r.SLO != "" })
	withTurns := slices.ContainsFunc(runs, func(r *run) bool { return r.Turns > 1 })
	withPrefix := slices.ContainsFunc(runs, func(r *run) bool { return r.SharedPrefix > 0 })
	b.WriteString("| run | file | created | host | versions | cache |")
	if withSLO {
		b.WriteString(" SLO |")
	}
	if withTurns {
		b.WriteString(" turns |")
	}
	if withPrefix {
		b.WriteString(" shared prefix |")
	}
	b.WriteString(" rows |\n|---|---|---|---|---|---|")
	if withSLO {
		b.WriteString("---|")
	}
	if withTurns {
		b.WriteString("---:|")
	}
	if withPrefix {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for i, r := range runs {
		name := cell(r.Label)
		if len(runs) > 1 && i == 0 {
			name += " (base)"
		}
		if r.Incomplete {
			name += " (incomplete)"
		}
		host := r.Platform
		if r.CPU != "" {
			host += ", " + r.CPU
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |",
			name, cell("`"+r.File+"`"), orMissing(when(r.CreatedAt)), orMissing(host), orMissing(versions(r.Versions)), cell(r.Cache))
		if withSLO {
			b.WriteString(" " + orMissing(cell(r.SLO)) + " |")
		}
		if withTurns {
			fmt.Fprintf(b, " %d |", r.Turns)
		}
		if withPrefix {
			b.WriteString(" " + prefixCell(r.SharedPrefix) + " |")
		}
		fmt.Fprintf(b, " %d |\n", len(r.Rows))
	}
	b.WriteString("\n")
}

// writePrompt writes a prompt's section: its closed-loop table, sweep and
// charts, then the tables of token timing, requests, power and the
// server's counters, then its open-loop table and charts. A table no row
// has a figure of is left out.
func writePrompt(b *strings.Builder, runs []*run, ks []key, p string, charts []chartFile) {
	fmt.Fprintf(b, "## Prompt %s\n\n", cell(p))
	var closed, open, all []key
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
	anyRow := func(ks []key, has func(row) bool) bool {
		for _, k := range ks {
			for _, r := range runs {
				if rw, ok := r.find(k); ok && has(rw) {
					return true
				}
			}
		}
		return false
	}
	hasGoodput := func(r row) bool { return r.GoodputRPS != nil }
	chartsOf := func(section string) []chartFile {
		var out []chartFile
		for _, c := range charts {
			if c.section == section {
				out = append(out, c)
			}
		}
		return out
	}

	if len(closed) > 0 {
		closedLoad.with(mainColumns(showCacheHit(runs), anyRow(closed, hasGoodput))...).write(b, runs, closed)
		writeSweep(b, runs, p)
	}
	writeCharts(b, chartsOf(secMain))

	if anyRow(all, hasTiming) || len(chartsOf(secTiming)) > 0 {
		b.WriteString("### Token timing\n\n")
		if anyRow(all, hasTiming) {
			b.WriteString("TTFC is the time to the first answer text (after any reasoning), TPOT each request's " +
				"(total − TTFT) / (output tokens − 1), ITL the gaps between successive text chunks; in ms.\n\n")
			anyLoad.with(timingColumns...).write(b, runs, all)
		}
		writeCharts(b, chartsOf(secTiming))
	}
	if anyRow(all, hasRequests) {
		b.WriteString("### Requests\n\n")
		b.WriteString("What the requests asked and got: the model the replies named where it is not the one asked for, " +
			"mean prompt tokens and how many of them the server took from its prompt cache, the successful requests " +
			"that stopped before the length asked for, and why the replies ended.\n\n")
		anyLoad.with(requestColumns...).write(b, runs, all)
	}
	if anyRow(all, hasPower) || len(chartsOf(secPower)) > 0 {
		b.WriteString("### Power\n\n")
		b.WriteString("The machine's power over the timed rounds (macmon): energy per successful output token, " +
			"mean CPU + GPU + ANE power, and the samples they come from.\n\n")
		anyLoad.with(powerColumns...).write(b, runs, all)
		writeCharts(b, chartsOf(secPower))
	}
	if anyRow(all, hasServer) {
		b.WriteString("### Server counters\n\n")
		b.WriteString("The server's own account of the timed rounds (its Prometheus /metrics) beside the client's: " +
			"mean prefill time per request against the client's mean TTFT, mean decode time against the client's mean " +
			"total − TTFT, and tokens generated (failed requests' included) against the successful requests' output " +
			"tokens (energy ÷ J/tok where there are power figures, else successes × tokens per request, a range " +
			"where requests differed). Model loads count the requests that waited for the model to load.\n\n")
		anyLoad.with(serverColumns...).write(b, runs, all)
	}
	if len(open) > 0 {
		b.WriteString("### Open loop\n\n")
		b.WriteString("Requests sent at a rate, whatever is in flight: the rate achieved, how late the client " +
			"sent (p99), completed requests/s")
		if anyRow(open, hasGoodput) {
			b.WriteString(", and goodput: the requests/s that met the run's SLO, and their share of all requests")
		}
		b.WriteString(".\n\n")
		rateLoad.with(openColumns(showCacheHit(runs), anyRow(open, hasGoodput))...).write(b, runs, open)
		writeCapped(b, runs, open)
		writeCharts(b, chartsOf(secOpen))
	}
}

// writeSweep lists where each run's concurrency sweep stopped for the
// prompt, and its knee, by runtime as the tables order them. Each -count
// repetition sweeps again; a stop they share is listed once, saying in
// how many it was.
func writeSweep(b *strings.Builder, runs []*run, p string) {
	var lines []string
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
				line := "| " + cell(s.Runtime) + " |"
				if len(runs) > 1 {
					line += " " + cell(r.Label) + " |"
				}
				lines = append(lines, fmt.Sprintf("%s %d | %d | %s | %s |", line, r.Sweep.Max, s.Concurrency, knee, orMissing(why)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("Concurrency sweep: where each runtime's sweep (1, 2, 4, … up to its bound) stopped, and its knee, " +
		"the highest concurrency that still paid off (marked on the throughput chart).\n\n| runtime |")
	if len(runs) > 1 {
		b.WriteString(" run |")
	}
	b.WriteString(" bound | stopped at | knee | why |\n|---|")
	if len(runs) > 1 {
		b.WriteString("---|")
	}
	b.WriteString("---:|---:|---:|---|\n")
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
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
				s := fmt.Sprintf("%s at %s req/s", cell(k.Runtime), rate(k.Rate))
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
	var lines []string
	for _, r := range runs {
		for _, rw := range r.Rows {
			load := strconv.Itoa(rw.Concurrency)
			if k := keyOf(rw); k.open() {
				load = rate(k.Rate) + " req/s"
			}
			classes := slices.Sorted(maps.Keys(rw.Errors))
			for _, c := range classes {
				ec := rw.Errors[c]
				lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s | %s | %d | %s |", cell(r.Label),
					cell(rw.Runtime), cell(rw.Prompt), load, cell(string(c)), ec.Count, cell(ec.First)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Failures\n\nBy class, with the first message of each (see the README's Failures section).\n\n")
	b.WriteString("| run | runtime | prompt | load | class | count | first message |\n|---|---|---|---:|---|---:|---|\n")
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}

// when shows an RFC 3339 time to the minute in UTC, or t as it is if it
// is not one.
func when(t string) string {
	tm, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return t
	}
	return tm.UTC().Format("2006-01-02 15:04 UTC")
}

// number formats x·scale with prec decimals, or "—".
func number(x *float64, scale float64, prec int) string {
	if !finite(x) {
		return missing
	}
	return strconv.FormatFloat(*x*scale, 'f', prec, 64)
}

// change is new against base in signed percent, or "" if it cannot be said.
func change(base, new *float64) string {
	if !finite(base) || !finite(new) || *base == 0 {
		return ""
	}
	pct := (*new - *base) / math.Abs(*base) * 100
	s := strconv.FormatFloat(pct, 'f', 1, 64)
	switch s {
	case "0.0", "-0.0":
		return "±0.0%"
	}
	if pct > 0 {
		s = "+" + s
	}
	return s + "%"
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// versions lists name version pairs, sorted by name.
func versions(v map[string]string) string {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, cell(n+" "+v[n]))
	}
	return strings.Join(parts, ", ")
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

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
	b.WriteString("| run | runtime | fresh | control leaf | TTFT p50 ms, first → end | decode tok/s, first → end | drift |\n" +
		"|---|---|---|---|---:|---:|---|\n")
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
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", cell(r.Label), cell(rt.Name), cell(fresh), missing, missing, missing, missing)
				continue
			}
			drift := "no"
			if c.Drifted {
				drift = "**yes**"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s → %s (%s) | %s → %s (%s) | %s |\n", cell(r.Label), cell(rt.Name), cell(fresh), cell(c.Leaf),
				number(c.First.TTFTP50, 1e3, 1), number(c.End.TTFTP50, 1e3, 1), pct(float64(c.TTFTChange)),
				number(c.First.DecodeTPSMean, 1, 1), number(c.End.DecodeTPSMean, 1, 1), pct(float64(c.DecodeChange)), drift)
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
