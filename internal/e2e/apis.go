package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// The checks of runs through the APIs other than the chat (BENCH_API),
// with the HTTP trace and a ramp (BENCH_HTTP_TRACE, BENCH_RAMP), and of a
// metric series (BENCH_METRICS_INTERVAL), against real servers.

// apiWant is what a run of one API must show: rounds (-benchtime=Nx)
// and count (go test -count) give each row's timed requests, conc ×
// rounds × count.
type apiWant struct {
	api           string
	rounds, count int
}

// checkAPIRun checks a run of w.api: the run says it was that API, every
// row's requests all succeeded, and its figures are the API's: an
// embeddings row has requests and input tokens per second above 0 and
// prompt tokens counted, another API's row output tokens, TTFT and a
// decode rate above 0.
func checkAPIRun(f *summary.File, w apiWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	// A chat run's file has no api (the default keeps the key out).
	if want := strings.TrimPrefix(w.api, "chat"); f.Arguments.API != want {
		fail("arguments.api is %q, want %q", f.Arguments.API, want)
	}
	if f.Complete == nil || !*f.Complete {
		fail("complete is %s, want true: the suite run did not finish", boolOrNull(f.Complete))
	}
	if len(f.Summary) == 0 {
		fail("the summary has no row")
	}
	embed := w.api == "embeddings"
	if embed {
		table = append(table, fmt.Sprintf("%-10s %-7s %4s %5s %5s %9s %10s %11s %8s", "runtime", "prompt", "conc", "req", "ok", "ttft_ms", "embed_rps", "input_tok/s", "prompt"))
	} else {
		table = append(table, fmt.Sprintf("%-10s %-7s %4s %5s %5s %9s %9s %9s %8s", "runtime", "prompt", "conc", "req", "ok", "ttft_ms", "decode/s", "agg/s", "tokens"))
	}
	for _, r := range f.Summary {
		name := rowName(r)
		if w.api != "chat" {
			name += "/api=" + w.api
		}
		if want := r.Concurrency * w.rounds * w.count; r.Requests != want {
			fail("%s: %d requests, want %d (conc × rounds × count)", name, r.Requests, want)
		}
		if r.Successes <= 0 || r.Successes != r.Requests || r.Failures != 0 {
			fail("%s: %d of %d requests succeeded, %d failed: %v", name, r.Successes, r.Requests, r.Failures, r.Errors)
		}
		if embed {
			table = append(table, fmt.Sprintf("%-10s %-7s %4d %5d %5d %9.1f %10.2f %11.1f %8s", r.Runtime, r.Prompt, r.Concurrency,
				r.Requests, r.Successes, 1000*val(r.TTFTMean), val(r.EmbedRPS), val(r.EmbedInputTPS), fixedOrNull(r.PromptTokensMean, 1)))
			positive(fail, name, map[string]*float64{"embed_rps": r.EmbedRPS, "embed_input_tps": r.EmbedInputTPS,
				"prompt_tokens_mean": r.PromptTokensMean, "ttft_s_mean": r.TTFTMean})
			continue
		}
		table = append(table, fmt.Sprintf("%-10s %-7s %4d %5d %5d %9.1f %9.1f %9.1f %8s", r.Runtime, r.Prompt, r.Concurrency,
			r.Requests, r.Successes, 1000*val(r.TTFTMean), val(r.DecodeTPSMean), val(r.AggregateTPSMean), intOrNull(r.OutputTokensMin)))
		positive(fail, name, map[string]*float64{"ttft_s_mean": r.TTFTMean, "decode_tps_mean": r.DecodeTPSMean,
			"aggregate_output_tps_mean": r.AggregateTPSMean})
		if r.OutputTokensMin == nil || *r.OutputTokensMin < 1 {
			fail("%s: output_tokens_min is %s, want every reply 1 token or more", name, intOrNull(r.OutputTokensMin))
		}
		if r.EmbedRPS != nil || r.EmbedInputTPS != nil {
			fail("%s: has embed_rps or embed_input_tps, which only embeddings rows have", name)
		}
	}
	return table, fails
}

// positive fails each figure of ms that is null or not above 0, in the
// order of its name.
func positive(fail func(string, ...any), row string, ms map[string]*float64) {
	for _, k := range slices.Sorted(maps.Keys(ms)) {
		if v := ms[k]; v == nil || !(*v > 0) {
			fail("%s: %s is %s, want > 0", row, k, floatOrNull(v))
		}
	}
}

// checkLeafNames checks the result lines of a run's .txt: at least one,
// each a leaf whose name ends with /api=<api> (before go test's -N), and,
// for embeddings, with the units embed-req/s and input-tok/s and no
// decode-tok/s. It returns the result lines.
func checkLeafNames(txt []byte, api string) (lines, fails []string) {
	sc := bufio.NewScanner(bytes.NewReader(txt))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		lines = append(lines, line)
		// The .txt parts its fields with spaces, go test with tabs.
		name := strings.Fields(line)[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" {
			name = name[:i]
		}
		switch {
		case api == "chat" && strings.Contains(name, "/api="):
			fails = append(fails, fmt.Sprintf("leaf %s: a chat leaf's name has no /api=", name))
		case api != "chat" && !strings.HasSuffix(name, "/api="+api):
			fails = append(fails, fmt.Sprintf("leaf %s: its name does not end with /api=%s", name, api))
		}
		if api == "embeddings" && (!strings.Contains(line, " embed-req/s") || !strings.Contains(line, " input-tok/s") || strings.Contains(line, " decode-tok/s")) {
			fails = append(fails, fmt.Sprintf("leaf %s: want the units embed-req/s and input-tok/s and no decode-tok/s: %s", name, line))
		}
	}
	if len(lines) == 0 {
		fails = append(fails, "the .txt has no result line")
	}
	return lines, fails
}

// checkHTTPTrace checks a run with BENCH_HTTP_TRACE=on and BENCH_RAMP:
// every timed record has its http stamps, in order (connection, request
// written, first byte) and first byte no later than the end, the ramp
// sent requests that are records of their own, marked, and in no row
// (each row's requests are its timed records), and each row counts its
// traced requests and those on reused connections, some of them, as
// keep-alive pools them, with the connect share of TTFT from 0 to 1.
func checkHTTPTrace(f *summary.File, recs []records.Record) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	type key struct {
		rt, prompt string
		conc       int
	}
	timed, ramp, reused := map[key]int{}, map[key]int{}, map[key]int{}
	for i, r := range recs {
		k := key{r.Runtime, r.Prompt, r.Concurrency}
		if r.Ramp {
			ramp[k]++
			if !r.Warmup {
				fail("record %d (%s/%s/conc=%d): a ramp's request not marked warmup", i+1, r.Runtime, r.Prompt, r.Concurrency)
			}
		}
		if !r.Timed() {
			continue
		}
		timed[k]++
		h := r.HTTP
		if h == nil {
			fail("record %d (%s/%s/conc=%d, round %d): a timed request without http stamps", i+1, r.Runtime, r.Prompt, r.Concurrency, r.Round)
			continue
		}
		if h.Reused {
			reused[k]++
		}
		if !(h.GotConnS >= 0 && h.WroteS >= h.GotConnS && h.FirstByteS >= h.WroteS && h.FirstByteS <= r.TotalS) {
			fail("record %d (%s/%s/conc=%d): http stamps out of order: got_conn %.6f, wrote %.6f, first_byte %.6f, total %.6f",
				i+1, r.Runtime, r.Prompt, r.Concurrency, h.GotConnS, h.WroteS, h.FirstByteS, r.TotalS)
		}
	}
	table = append(table, fmt.Sprintf("%-10s %-7s %4s %5s %5s %6s %6s %11s %13s %13s", "runtime", "prompt", "conc",
		"req", "ramp", "traced", "reused", "connect_ms", "first_byte_ms", "connect/ttft"))
	for _, r := range f.Summary {
		k := key{r.Runtime, r.Prompt, r.Concurrency}
		name := rowName(r)
		table = append(table, fmt.Sprintf("%-10s %-7s %4d %5d %5d %6s %6s %11s %13s %13s", r.Runtime, r.Prompt, r.Concurrency,
			r.Requests, ramp[k], intOrNull(r.HTTPTraced), intOrNull(r.HTTPReusedConns),
			millisOrNull(r.ConnectSMean), millisOrNull(r.FirstByteSMean), fixedOrNull(r.ConnectShareOfTTFT, 4)))
		if r.Requests != timed[k] {
			fail("%s: %d requests, but the records have %d timed ones: the ramp's must be in no figure", name, r.Requests, timed[k])
		}
		if ramp[k] == 0 {
			fail("%s: the records have no request of the ramp", name)
		}
		if r.Successes != r.Requests || r.Successes == 0 {
			fail("%s: %d of %d requests succeeded", name, r.Successes, r.Requests)
		}
		if r.HTTPTraced == nil || *r.HTTPTraced != r.Successes {
			fail("%s: http_traced is %s, want %d (every successful request)", name, intOrNull(r.HTTPTraced), r.Successes)
		}
		if r.HTTPReusedConns == nil || *r.HTTPReusedConns != reused[k] || *r.HTTPReusedConns < 1 {
			fail("%s: http_reused_conns is %s, want the records' %d, at least 1 (keep-alive)", name, intOrNull(r.HTTPReusedConns), reused[k])
		}
		if s := r.ConnectShareOfTTFT; s == nil || *s < 0 || *s > 1 {
			fail("%s: connect_share_of_ttft is %s, want 0 to 1", name, floatOrNull(s))
		}
		if v := r.FirstByteSMean; v == nil || !(*v > 0) || r.TTFTMean == nil || *v > *r.TTFTMean {
			fail("%s: first_byte_s_mean is %s, want above 0 and no later than ttft_s_mean %s", name, floatOrNull(v), floatOrNull(r.TTFTMean))
		}
	}
	return table, fails
}

// millisOrNull is a figure in seconds as milliseconds, or "null".
func millisOrNull(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%.3f", 1000**p)
}

// seriesWant is what a metric series must hold: samples of each runtime
// in runtimes, and, for those in kv, the KV-cache use.
type seriesWant struct {
	runtimes []string
	kv       map[string]bool
}

// checkSeries checks a run's metric series: each runtime of w has at
// least two samples in each leaf run it has samples of, in time order,
// with running and waiting never below 0, running 1 or more in at least
// one (the timed part keeps requests in flight), and the KV-cache use,
// where wanted, from 0 to 1 in every sample.
func checkSeries(samples []telemetry.ServerSample, w seriesWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	type leafRun struct {
		leaf  string
		count int
	}
	type tally struct {
		n, kv                    int
		maxRunning, maxWaiting   float64
		maxKV, first, last, prev float64
	}
	tallies := map[leafRun]*tally{}
	var order []leafRun
	perRuntime := map[string]int{}
	for i, s := range samples {
		rt, _, _ := strings.Cut(strings.TrimPrefix(s.Leaf, "runtime="), "/")
		perRuntime[rt]++
		k := leafRun{s.Leaf, s.Count}
		t := tallies[k]
		if t == nil {
			t = &tally{first: s.TS, prev: s.TS}
			tallies[k] = t
			order = append(order, k)
		}
		t.n++
		if s.TS < t.prev {
			fail("sample %d (%s, count %d): t_s %.3f before the previous sample's %.3f", i+1, s.Leaf, s.Count, s.TS, t.prev)
		}
		t.prev, t.last = s.TS, s.TS
		if s.Running == nil || *s.Running < 0 || s.Waiting == nil || *s.Waiting < 0 {
			fail("sample %d (%s): running %s, waiting %s, want both 0 or more", i+1, s.Leaf, floatOrNull(s.Running), floatOrNull(s.Waiting))
		} else {
			t.maxRunning, t.maxWaiting = max(t.maxRunning, *s.Running), max(t.maxWaiting, *s.Waiting)
		}
		if s.KVCacheUse != nil {
			t.kv++
			t.maxKV = max(t.maxKV, *s.KVCacheUse)
			if *s.KVCacheUse < 0 || *s.KVCacheUse > 1 {
				fail("sample %d (%s): kv_cache_use %.4f, want 0 to 1", i+1, s.Leaf, *s.KVCacheUse)
			}
		} else if w.kv[rt] {
			fail("sample %d (%s): kv_cache_use is null; %s serves it", i+1, s.Leaf, rt)
		}
	}
	for _, rt := range w.runtimes {
		if perRuntime[rt] == 0 {
			fail("the series has no sample of %s", rt)
		}
	}
	table = append(table, fmt.Sprintf("%-40s %5s %7s %8s %8s %8s %7s", "leaf", "count", "samples", "span_s", "running", "waiting", "kv_max"))
	for _, k := range order {
		t := tallies[k]
		table = append(table, fmt.Sprintf("%-40s %5d %7d %8.2f %8.0f %8.0f %7.4f", k.leaf, k.count, t.n, t.last-t.first, t.maxRunning, t.maxWaiting, t.maxKV))
		if t.n < 2 {
			fail("%s (count %d): %d sample, want 2 or more", k.leaf, k.count, t.n)
		}
		if t.maxRunning < 1 {
			fail("%s (count %d): no sample saw a request running, in a timed part that kept requests in flight", k.leaf, k.count)
		}
	}
	return table, fails
}
