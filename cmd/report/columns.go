package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The columns of the prompts' tables: which figures each shows, in what
// order, and which carry their change; and the texts of a row.

var (
	modelCol    = text("model", func(r row) string { return cell(r.Model) })
	okCol       = countCol("ok", func(r row) string { return count(r, figures.KeySuccesses, r.Successes) })
	failedCol   = countCol("failed", func(r row) string { return count(r, figures.KeyFailures, r.Failures) })
	goodputCols = []column{fig(goodputRPS), plain(sloMet)}
	// cacheHitCol is the share of the prompt tokens the server took from
	// its cache, beside TTFT.
	cacheHitCol = plain(cacheHit)
)

// showCacheHit reports whether the prompts' tables have the cache-hit
// column: where some run was made to reuse a prefix, with a shared prefix
// or conversations of several turns.
func showCacheHit(runs []*run) bool {
	return slices.ContainsFunc(runs, func(r *run) bool { return r.SharedPrefix > 0 || r.Turns > 1 })
}

// memoryCol is the benchmarked server's resident memory (server_rss_bytes,
// its peak beside it), in MiB: "97.7 (peak 98.1)"; for a server in the
// suite's process, the simulator, "97.7 (this process)"; for one on
// another machine, "not this machine's".
var memoryCol = countCol("server MiB", func(r row) string {
	const mib = 1 << 20
	switch {
	case r.ServerMemory == summary.MemoryRemote:
		return "not this machine's"
	case r.ServerRSSBytes == nil:
		return ""
	}
	s := strconv.FormatFloat(float64(*r.ServerRSSBytes)/mib, 'f', 1, 64)
	if r.ServerMemory == summary.MemorySelf {
		return s + " (this process)"
	}
	if p := r.ServerRSSPeakBytes; p != nil {
		s += " (peak " + strconv.FormatFloat(float64(*p)/mib, 'f', 1, 64) + ")"
	}
	return s
})

// hasMemory reports whether r says what the server's memory was, or
// why it has none.
func hasMemory(r row) bool { return r.ServerRSSBytes != nil || r.ServerMemory != "" }

// mainColumns are the closed-loop table's columns; with the cache-hit
// ratio where the report shows it (showCacheHit), with goodput and the
// server's memory where a row has them.
func mainColumns(withCache, withGoodput, withMemory bool) []column {
	cols := []column{modelCol, fig(ttftMean), fig(ttftP50), fig(ttftP95), fig(ttftP99)}
	if withCache {
		cols = append(cols, cacheHitCol)
	}
	cols = append(cols, fig(decodeTPS), fig(requestTPS), fig(aggregateTPS))
	if withGoodput {
		cols = append(cols, goodputCols...)
	}
	if withMemory {
		cols = append(cols, memoryCol)
	}
	return append(cols, okCol, failedCol)
}

// openColumns are the open-loop table's columns; with the cache-hit
// ratio, goodput and memory as mainColumns.
func openColumns(withCache, withGoodput, withMemory bool) []column {
	cols := []column{modelCol, fig(achievedRPS), fig(sendLagP99), fig(throughputRPS), fig(ttftP50), fig(ttftP99)}
	if withCache {
		cols = append(cols, cacheHitCol)
	}
	if withGoodput {
		cols = append(cols, goodputCols...)
	}
	if withMemory {
		cols = append(cols, memoryCol)
	}
	return append(cols, okCol, failedCol)
}

// timingColumns are the token timing table's columns.
var timingColumns = []column{fig(ttfcP50), fig(ttfcP99), fig(tpotMean), fig(tpotP99), fig(itlP50), fig(itlP99)}

func hasTiming(r row) bool {
	return slices.ContainsFunc(timingColumns, func(c column) bool { return c.fig.has(r) })
}

// toolColumns are the tool calls table's columns: the successful replies
// that made a tool call ("3 of 4 (75.0%)": of the successes), the calls
// they made, those whose arguments are a JSON object ("2 (50.0%)": of the
// calls), and the time to the first tool call.
var toolColumns = []column{
	countCol(toolReplies.Heading(), func(r row) string {
		if r.ToolCallReplies == nil {
			return ""
		}
		return withShare(fmt.Sprintf("%d of %d", *r.ToolCallReplies, r.Successes), toolReplies, r)
	}),
	countCol("calls", func(r row) string {
		if r.ToolCalls == nil {
			return ""
		}
		return strconv.Itoa(*r.ToolCalls)
	}),
	countCol(toolArgsValid.Heading(), func(r row) string {
		if r.ToolArgsValid == nil {
			return ""
		}
		return withShare(strconv.Itoa(*r.ToolArgsValid), toolArgsValid, r)
	}),
	fig(ttfToolCallP50),
	fig(ttfToolCallP99),
}

// hasTools reports whether r's requests were sent with tools.
func hasTools(r row) bool { return r.ToolCallReplies != nil }

// withShare is count followed by r's share f, "(75.0%)", where r has it.
func withShare(count string, f figure, r row) string {
	if !finite(f.of(r.Row)) {
		return count
	}
	return count + " (" + f.format(r.Row) + ")"
}

// requestColumns are the requests table's columns: what was asked and
// what came back, to tell whether the runtimes did the same work.
var requestColumns = []column{
	text("served model", servedModel),
	plain(promptTokens),
	plain(cachedTokens),
	text("short outputs", shortOutputs),
	text("finish reasons", finishReasons),
}

func hasRequests(r row) bool {
	return r.ServedModel != "" || promptTokens.has(r) || cachedTokens.has(r) ||
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
	case !r.has(figures.KeyShortOutputs):
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
	fig(energyPerToken),
	fig(powerW),
	countCol("samples", func(r row) string {
		if r.PowerSamples == nil {
			return ""
		}
		return strconv.Itoa(*r.PowerSamples)
	}),
}

func hasPower(r row) bool {
	return energyPerToken.has(r) || powerW.has(r) || r.PowerSamples != nil
}

// serverColumns set the server's account of its work beside the
// client's.
var serverColumns = []column{
	plain(serverPrefill),
	plain(ttftMean).as("client TTFT ms"),
	plain(serverDecode),
	plain(clientDecode),
	plain(serverGenerated),
	countCol("client output tok", clientTokens),
	countCol("model loads", func(r row) string { return count(r, figures.KeyModelLoads, r.ModelLoads) }),
}

func hasServer(r row) bool {
	return serverPrefill.has(r) || serverDecode.has(r) || serverGenerated.has(r) || r.ModelLoads > 0
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
