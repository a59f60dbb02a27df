package e2e

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The runs of recorded workloads (BENCH_WORKLOAD, BENCH_TOOLS): a
// ShareGPT sample replayed turn by turn, a Mooncake-style trace replayed
// at its recorded times, and requests sent with tools.

// conversation is the timed request records of one conversation of a
// row, by turn.
type conversation struct {
	id    int
	start float64 // its first turn's start_s
	turns []records.Record
}

// conversations groups the timed records of runtime and prompt by
// conversation, in the order they started, each by turn.
func conversations(recs []records.Record, runtime, prompt string) []conversation {
	by := map[int]*conversation{}
	for _, r := range recs {
		if !r.Timed() || r.Runtime != runtime || r.Prompt != prompt {
			continue
		}
		c := by[r.Conversation]
		if c == nil {
			c = &conversation{id: r.Conversation, start: r.StartS}
			by[r.Conversation] = c
		}
		c.start = min(c.start, r.StartS)
		c.turns = append(c.turns, r)
	}
	var out []conversation
	for _, c := range by {
		slices.SortFunc(c.turns, func(a, b records.Record) int { return cmp.Compare(a.Turn, b.Turn) })
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b conversation) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id))
	})
	return out
}

// failed is a record's failure, "" if it succeeded.
func failed(r records.Record) string {
	if r.ErrorClass == nil {
		return ""
	}
	msg := *r.ErrorClass
	if r.Error != nil {
		msg += ": " + *r.Error
	}
	return msg
}

// shareGPTWant is what a run of a ShareGPT workload at concurrency 1
// must show.
type shareGPTWant struct {
	runtime string
	w       *workload.Workload // the file as the run read it
	rounds  int                // -benchtime=Nx: conversations per leaf run
	// warmups is BENCH_WARMUPS: each warm-up round at concurrency 1 is
	// the workload's next conversation, so the timed ones start at item
	// warmups (mod the items).
	warmups int
}

// checkShareGPT checks a run of a ShareGPT sample at concurrency 1 from
// its summary and request records: the row complete, and each timed
// conversation the workload's next item replayed turn by turn — as many
// turns as the item has human turns, sent one after the other in order,
// each answered, each prompt longer than the turn before's (it carries the
// history and the model's own replies).
func checkShareGPT(f *summary.File, recs []records.Record, w shareGPTWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	prompt := w.w.Name
	r := row(f, w.runtime, prompt, 1)
	if r == nil {
		return nil, []string{fmt.Sprintf("no row %s/%s/conc=1", w.runtime, prompt)}
	}
	table = append(table, fmt.Sprintf("row %s/%s/conc=1: %d requests, %d ok, TTFT p50 %s s, decode %s tok/s, prompt tokens mean %s",
		w.runtime, prompt, r.Requests, r.Successes, fixedOrNull(r.TTFTP50, 3), fixedOrNull(r.DecodeTPSMean, 1), fixedOrNull(r.PromptTokensMean, 1)))
	if r.Failures > 0 || r.Successes == 0 {
		fail("%s/%s: %d of %d requests failed", w.runtime, prompt, r.Failures, r.Requests)
	}
	convs := conversations(recs, w.runtime, prompt)
	if len(convs) != w.rounds {
		fail("%s/%s: %d timed conversations, want %d (one a round)", w.runtime, prompt, len(convs), w.rounds)
	}
	table = append(table, fmt.Sprintf("%-5s %-5s %-6s %s", "conv", "item", "turns", "prompt tokens by turn (TTFT s)"))
	for k, c := range convs {
		item := w.w.Items[(w.warmups+k)%len(w.w.Items)]
		var cells []string
		for _, t := range c.turns {
			cells = append(cells, fmt.Sprintf("%s (%s)", intOrNull(t.PromptTokens), fixedOrNull(t.TTFTS, 3)))
		}
		table = append(table, fmt.Sprintf("%-5d %-5d %-6s %s", k+1, item.Index, fmt.Sprintf("%d/%d", len(c.turns), len(item.Turns)), strings.Join(cells, "  ")))
		if len(c.turns) != len(item.Turns) {
			fail("conversation %d (item %d): %d turns sent, want its %d human turns", k+1, item.Index, len(c.turns), len(item.Turns))
		}
		for i, t := range c.turns {
			if t.Turn != i+1 {
				fail("conversation %d: its turns are %v, want 1 to %d", k+1, turnNumbers(c.turns), len(c.turns))
				break
			}
			if msg := failed(t); msg != "" {
				fail("conversation %d turn %d failed: %s", k+1, t.Turn, msg)
			}
			if t.OutputTokens < 1 {
				fail("conversation %d turn %d: no output token", k+1, t.Turn)
			}
			if i == 0 {
				continue
			}
			prev := c.turns[i-1]
			if t.StartS < prev.StartS+prev.TotalS {
				fail("conversation %d: turn %d started at %.3f s, before turn %d ended (%.3f s)", k+1, t.Turn, t.StartS, prev.Turn, prev.StartS+prev.TotalS)
			}
			if t.PromptTokens == nil || prev.PromptTokens == nil || *t.PromptTokens <= *prev.PromptTokens {
				fail("conversation %d: turn %d has %s prompt tokens, turn %d %s: want more (the history and the replies)",
					k+1, t.Turn, intOrNull(t.PromptTokens), prev.Turn, intOrNull(prev.PromptTokens))
			}
		}
	}
	return table, fails
}

func turnNumbers(rs []records.Record) []int {
	var n []int
	for _, r := range rs {
		n = append(n, r.Turn)
	}
	return n
}

// traceWant is what a run of a Mooncake-style trace must show.
type traceWant struct {
	runtime string
	w       *workload.Workload // the file as the run read it, at the run's speed
	// inputTol is how far a request's prompt tokens by the server's
	// count may be from its input_length, as a share of it: a trace's
	// texts are sized at its shortest and longest lengths and cut to the
	// words of a line through them, and the chat template adds a few.
	inputTol float64
	// offsetShare bounds how late or early a request may be sent against
	// its recorded offset (counted from the first request's send), and
	// lagShare the row's send_lag_s_p99, each as a share of the trace's
	// mean gap between arrivals at the run's speed.
	offsetShare, lagShare float64
	// block is the server's prefix-cache block in tokens (1 for a
	// token-granular cache), 0 for a server that reports no cached
	// tokens (Ollama): then the prefix sharing is only shown.
	block int
}

// meanGap is the trace's mean gap between arrivals, in seconds.
func (w traceWant) meanGap() float64 {
	rs := w.w.Requests
	if len(rs) < 2 {
		return 0
	}
	return rs[len(rs)-1].Arrival.Seconds() / float64(len(rs)-1)
}

// checkTrace checks a run of a trace (-benchtime=Nx with N its length)
// from its summary and request records: one open-loop row at the trace's
// mean rate, every request answered; request k of the trace (in the order
// they were sent) asked for its input_length and output_length, and the
// server counted its input_length plus the chat template's tokens (the
// run's median excess, at most maxTemplate) within w.inputTol; it was
// sent at its recorded offset within w.offsetShare of the mean gap, and
// the row's send lag p99 is within w.lagShare of it. On a server that
// reports cached tokens (w.block > 0): a request whose first blocks
// (hash_ids) an earlier request sent, and got its first token for,
// before this one was even sent, found them in the server's cache
// (cachedAtLeast their tokens less w.inputTol); one whose first block no
// earlier request sent found less than a block (or 32 tokens: a
// token-granular cache holds the chat template's start); and at least one
// request found the blocks an earlier one sent. Between the two (an
// earlier request sent the blocks but was not answered when this one was
// sent) a server may or may not have them yet: a batching server (vLLM)
// prefills both at once, a queueing one (mlx_lm.server) the earlier one
// first.
func checkTrace(f *summary.File, recs []records.Record, w traceWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	prompt := w.w.Name
	r := openLoopRow(f, w.runtime, prompt)
	if r == nil {
		return nil, []string{fmt.Sprintf("no open-loop row %s/%s", w.runtime, prompt)}
	}
	gap := w.meanGap()
	table = append(table, fmt.Sprintf("row %s/%s/rate=%s: %d requests, %d ok, achieved %s req/s, send lag p50 %s ms p99 %s ms, TTFT p50 %s s p95 %s s, cache hit ratio %s",
		w.runtime, prompt, fixedOrNull(r.RateRPS, 3), r.Requests, r.Successes, fixedOrNull(r.AchievedRPS, 3),
		fixedOrNull(scaled(r.SendLagSP50, 1000), 3), fixedOrNull(scaled(r.SendLagSP99, 1000), 3),
		fixedOrNull(r.TTFTP50, 3), fixedOrNull(r.TTFTP95, 3), fixedOrNull(r.CacheHitRatio, 2)))
	fails = checkTraceRow(r, w, gap)
	n := len(w.w.Requests)
	convs := conversations(recs, w.runtime, prompt)
	if len(convs) != n {
		fail("%s/%s: %d timed requests, want the trace's %d", w.runtime, prompt, len(convs), n)
		return table, fails
	}
	// Requests are numbered in the order they arrive, each a conversation
	// of one turn; two of one instant may start in either order.
	slices.SortFunc(convs, func(a, b conversation) int { return cmp.Compare(a.id, b.id) })
	first, template := traceTemplate(convs, w.w.Requests)
	if template < -maxTemplate || template > maxTemplate {
		fail("%s/%s: the server counted %+.0f tokens a request beyond its input_length (median); want the chat template's few, at most %d", w.runtime, prompt, template, maxTemplate)
	}
	table = append(table, fmt.Sprintf("%-3s %-12s %8s %8s %7s %6s %8s %8s %7s %s",
		"k", "hash_ids", "at s", "sent s", "input", "max", "prompt", "cached", "TTFT s", "server prefill s"))
	worst, hits, hitCached := 0.0, 0, 0.0
	sent := map[int]bool{}        // the hash ids earlier requests sent
	answered := map[int]float64{} // a hash id -> when a request that sent it first got its first token
	for k, c := range convs {
		q, rec := w.w.Requests[k], c.turns[0]
		off := rec.StartS - first
		worst = max(worst, math.Abs(off-q.Arrival.Seconds()))
		table = append(table, traceLine(k, q, rec, off))
		if msg := failed(rec); msg != "" {
			fail("request %d failed: %s", k+1, msg)
			continue
		}
		fails = append(fails, checkTraceRequest(k, q, rec, template, w)...)
		if w.block > 0 {
			hit, bad := checkTraceCache(k, q, rec, sent, answered, w)
			fails = append(fails, bad...)
			if hit {
				hits++
				hitCached += float64(*rec.CachedPromptTokens)
			}
		}
		for _, id := range q.HashIDs {
			sent[id] = true
			if _, ok := answered[id]; !ok && rec.TTFTS != nil {
				answered[id] = rec.StartS + *rec.TTFTS
			}
		}
	}
	if most := w.offsetShare * gap; worst > most {
		fail("%s/%s: a request was sent %.1f ms off its recorded offset, want at most %.3g ms (%g%% of the mean gap)",
			w.runtime, prompt, 1000*worst, 1000*most, 100*w.offsetShare)
	}
	table = append(table, fmt.Sprintf("sent at the trace's offsets within %.1f ms (mean gap %.0f ms); prompt tokens %+.0f beyond input_length (median: the chat template)", 1000*worst, 1000*gap, template))
	if w.block > 0 {
		table = append(table, fmt.Sprintf("%d requests found the blocks earlier ones sent in the server's cache, %.0f cached tokens on average", hits, hitCached/math.Max(1, float64(hits))))
		if hits == 0 {
			fail("%s/%s: no request found the blocks an earlier one sent in the server's cache: the prefix cache is off, or the trace came too fast for it (BENCH_TRACE_SPEED)", w.runtime, prompt)
		}
	}
	return table, fails
}

// checkTraceRow checks the trace's row of the summary: every request
// succeeded, at the trace's mean rate (gap seconds apart), sent in time.
func checkTraceRow(r *summary.Row, w traceWant, gap float64) (fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	prompt, n := w.w.Name, len(w.w.Requests)
	if r.Failures > 0 || r.Successes != n {
		fail("%s/%s: %d of %d requests succeeded, want all %d of the trace", w.runtime, prompt, r.Successes, r.Requests, n)
	}
	if want := 1 / gap; gap > 0 && !within(val(r.RateRPS)/want, 0.01) {
		fail("%s/%s: rate_rps is %s, want the trace's mean rate %.3f", w.runtime, prompt, fixedOrNull(r.RateRPS, 3), want)
	}
	if lag, most := val(r.SendLagSP99), w.lagShare*gap; r.SendLagSP99 == nil || lag > most {
		fail("%s/%s: send_lag_s_p99 is %s ms, want at most %.3g ms (%g%% of the mean gap): the client sent late",
			w.runtime, prompt, fixedOrNull(scaled(r.SendLagSP99, 1000), 3), 1000*most, 100*w.lagShare)
	}
	return fails
}

// openLoopRow is the summary's last open-loop row of a runtime and
// prompt, nil if it has none.
func openLoopRow(f *summary.File, runtime, prompt string) *summary.Row {
	var r *summary.Row
	for i, x := range f.Summary {
		if x.Runtime == runtime && x.Prompt == prompt && x.RateRPS != nil {
			r = &f.Summary[i]
		}
	}
	return r
}

// traceTemplate returns when the first of a trace's requests started and
// the tokens a server counted beyond each request's input length, the
// median: its chat template's.
func traceTemplate(convs []conversation, reqs []workload.TraceRequest) (first, template float64) {
	first = convs[0].start
	var excess []float64
	for k, c := range convs {
		first = min(first, c.start)
		if p := c.turns[0].PromptTokens; p != nil {
			excess = append(excess, float64(*p-reqs[k].InputTokens))
		}
	}
	if len(excess) > 0 {
		template = median(excess)
	}
	return first, template
}

// traceLine is request k's line of the table, sent off seconds after the
// first.
func traceLine(k int, q workload.TraceRequest, rec records.Record, off float64) string {
	prefill := "-"
	if rec.Server != nil && rec.Server.PromptEvalS != nil {
		prefill = fmt.Sprintf("%.3f", *rec.Server.PromptEvalS)
	}
	return fmt.Sprintf("%-3d %-12s %8.3f %8.3f %7d %6d %8s %8s %7s %s",
		k+1, idsText(q.HashIDs), q.Arrival.Seconds(), off, q.InputTokens, q.OutputTokens,
		intOrNull(rec.PromptTokens), intOrNull(rec.CachedPromptTokens), fixedOrNull(rec.TTFTS, 3), prefill)
}

// checkTraceRequest checks that request k, answered, asked for the
// trace's lengths and that the server counted them, template's tokens
// more.
func checkTraceRequest(k int, q workload.TraceRequest, rec records.Record, template float64, w traceWant) (fails []string) {
	if rec.InputTokens != q.InputTokens || rec.MaxTokens != q.OutputTokens {
		fails = append(fails, fmt.Sprintf("request %d asked for %d input and %d output tokens, want the trace's %d and %d", k+1, rec.InputTokens, rec.MaxTokens, q.InputTokens, q.OutputTokens))
	}
	if rec.PromptTokens == nil || math.Abs(float64(*rec.PromptTokens-q.InputTokens)-template) > w.inputTol*float64(q.InputTokens) {
		fails = append(fails, fmt.Sprintf("request %d: the server counted %s prompt tokens, want its input_length %d and the template's %.0f within %g%%",
			k+1, intOrNull(rec.PromptTokens), q.InputTokens, template, 100*w.inputTol))
	}
	if rec.OutputTokens < 1 || rec.OutputTokens > q.OutputTokens {
		fails = append(fails, fmt.Sprintf("request %d: %d output tokens, want 1 to its output_length %d", k+1, rec.OutputTokens, q.OutputTokens))
	}
	return fails
}

// maxTemplate is the most tokens a chat template may add to a trace
// request's input_length: the e2e's servers add 0 (Ollama, a template of
// the prompt alone) to about 20 (vLLM and mlx_lm, the model's chat
// template).
const maxTemplate = 64

// leading is how many of ids, from the first, are in has.
func leading(ids []int, has func(int) bool) int {
	n := 0
	for _, id := range ids {
		if !has(id) {
			break
		}
		n++
	}
	return n
}

// checkTraceCache checks request k's cached tokens against the blocks
// earlier requests sent (sent) and got their first token for (answered:
// when), and reports whether it found the blocks earlier ones sent in the
// cache (a hit).
func checkTraceCache(k int, q workload.TraceRequest, rec records.Record, sent map[int]bool, answered map[int]float64, w traceWant) (hit bool, fails []string) {
	if rec.CachedPromptTokens == nil {
		return false, []string{fmt.Sprintf("request %d: no cached prompt tokens reported; the server reports them", k+1)}
	}
	cached := float64(*rec.CachedPromptTokens)
	least := func(blocks int) float64 {
		return cachedAtLeast(float64(blocks*w.w.BlockTokens)*(1-w.inputTol), w.block)
	}
	wasSent := leading(q.HashIDs, func(id int) bool { return sent[id] })
	done := leading(q.HashIDs, func(id int) bool { at, ok := answered[id]; return ok && at <= rec.StartS })
	if wasSent == 0 {
		if most := max(w.block, 32); cached >= float64(most) {
			fails = append(fails, fmt.Sprintf("request %d: %s, whose first block no earlier request sent, found %.0f cached tokens; want fewer than %d", k+1, idsText(q.HashIDs), cached, most))
		}
		return false, fails
	}
	if done > 0 && cached < least(done) {
		fails = append(fails, fmt.Sprintf("request %d: %s shares %d blocks (%d tokens) with earlier requests answered before it was sent, but found %.0f cached tokens; want at least %.0f",
			k+1, idsText(q.HashIDs), done, done*w.w.BlockTokens, cached, least(done)))
	}
	return cached >= least(wasSent), fails
}

func idsText(ids []int) string {
	if len(ids) == 0 {
		return "[]"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// checkToolsRun checks a run with BENCH_TOOLS against Ollama 0.6.5 on a
// model whose template takes tools, of each of runtimes (the native API
// and /v1): every row complete, every request answered, each reply of
// several tokens held back by the server and sent whole, in one chunk
// (routes.go ChatHandler before 0.8), so that the /v1 rows have no decode
// rate (the client sees no decoding) while the native ones have the
// server's own (eval_count over eval_duration). Tool calls the model made
// are counted and shown: the e2e's random-weight model seldom makes one.
func checkToolsRun(f *summary.File, recs []records.Record, names []string) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	kinds := kinds(f)
	table = append(table, fmt.Sprintf("%-26s %4s %4s %9s %11s %7s %10s %s", "row", "req", "ok", "TTFT p50", "decode t/s", "chunks", "tool calls", "args valid"))
	for _, rt := range names {
		n := 0
		for _, r := range f.Summary {
			if r.Runtime != rt {
				continue
			}
			n++
			var chunks, calls, valid, timed int
			for _, rec := range recs {
				if !rec.Timed() || rec.Runtime != rt || rec.Prompt != r.Prompt || rec.Concurrency != r.Concurrency {
					continue
				}
				timed++
				chunks = max(chunks, rec.Chunks)
				calls += rec.ToolCalls
				if rec.ToolArgsValid != nil {
					valid += *rec.ToolArgsValid
				}
				if msg := failed(rec); msg != "" {
					fail("%s: a request failed: %s", rowName(r), msg)
				} else if rec.OutputTokens > 1 && rec.Chunks != 1 {
					fail("%s: a reply of %d tokens came in %d chunks; Ollama 0.6.5 sends a reply to a request with tools whole, in one", rowName(r), rec.OutputTokens, rec.Chunks)
				}
			}
			table = append(table, fmt.Sprintf("%-26s %4d %4d %9s %11s %7d %10d %d", rowName(r), r.Requests, r.Successes,
				fixedOrNull(r.TTFTP50, 3), fixedOrNull(r.DecodeTPSMean, 1), chunks, calls, valid))
			if r.Failures > 0 || r.Successes == 0 || timed != r.Requests {
				fail("%s: %d of %d requests succeeded (%d timed records)", rowName(r), r.Successes, r.Requests, timed)
			}
			// The replies came whole: the client saw no decoding on either
			// API, and only the native one states its own rate.
			if r.DecodeTPSMean != nil {
				fail("%s: decode_tps_mean is %.1f, want null: the replies came whole, so the client saw no decoding", rowName(r), *r.DecodeTPSMean)
			}
			switch native := kinds[rt] == runtimes.KindOllama; {
			case native && r.ServerDecodeTPSMean == nil:
				fail("%s: no server_decode_tps_mean; the native API reports its own (eval_duration)", rowName(r))
			case !native && r.ServerDecodeTPSMean != nil:
				fail("%s: server_decode_tps_mean is %.1f, want null: Ollama's /v1 states no eval_duration", rowName(r), *r.ServerDecodeTPSMean)
			}
		}
		if n == 0 {
			fail("no row of %s", rt)
		}
	}
	return table, fails
}
