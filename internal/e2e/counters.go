package e2e

import (
	"fmt"
	"math"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// The check of a server's own /metrics against the client's stamps, on a
// closed-loop run whose replies all had max_tokens tokens
// (BENCH_IGNORE_EOS=on).

// countersWant is the runtime whose rows are checked and the version its
// server must have reported.
type countersWant struct {
	runtime, version string
}

// Bounds of the server's account against the client's, per request. The
// server's decode time (llama-server: tokens_predicted_seconds_total, from
// the first token it sampled to the last) is the client's total − TTFT
// less the last chunk's trip, give or take the delays of the first
// chunk's trip on a machine whose two cores the server and the client
// share. On llama-server b1-0c1e570 here, eight rows over two runs
// (concurrency 1 and 2, every reply 64 chunks of one token): 0.9966 to
// 1.0244 (the highest at concurrency 2). Its prefill time is TTFT less the queue and
// the trips: at most TTFT.
const (
	counterDecodeLow, counterDecodeHigh = 0.9, 1.06
	counterPrefillHigh                  = 1.02
)

// checkServerCounters checks each row of w.runtime in f: the server
// counted exactly the tokens the client received (successes ×
// max_tokens) and, where it counts them, the cached prompt tokens its
// replies said, its decode time per request is within
// [counterDecodeLow, counterDecodeHigh] of the client's total − TTFT,
// its prefill time above 0 and at most counterPrefillHigh × TTFT; and the
// run recorded the server's version.
func checkServerCounters(f *summary.File, w countersWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if v := f.Versions[w.runtime]; v == nil || *v != w.version {
		got := "null"
		if v != nil {
			got = fmt.Sprintf("%q", *v)
		}
		fail("versions.%s is %s, want %q", w.runtime, got, w.version)
	}
	if !f.Arguments.IgnoreEOS {
		fail("arguments.ignore_eos is false: replies may end before max_tokens, and no count can be checked")
	}
	table = append(table, fmt.Sprintf("%-30s %5s %10s %10s %10s %10s %7s %9s %9s",
		"row", "ok", "srv_pf_ms", "ttft_ms", "srv_dec_ms", "cli_dec_ms", "dec_x", "srv_tok", "cli_tok"))
	rows := 0
	for _, r := range f.Summary {
		if r.Runtime != w.runtime {
			continue
		}
		rows++
		name := rowName(r)
		clientTok := float64(r.Successes * f.Arguments.MaxTokens)
		clientDecode := val(r.TotalMean) - val(r.TTFTMean)
		ratio := val(r.ServerDecodeSMean) / clientDecode
		table = append(table, fmt.Sprintf("%-30s %5d %10.2f %10.2f %10.2f %10.2f %7.4f %9s %9.0f", name, r.Successes,
			1e3*val(r.ServerPrefillSMean), 1e3*val(r.TTFTMean), 1e3*val(r.ServerDecodeSMean), 1e3*clientDecode, ratio,
			fixedOrNull(r.ServerGeneratedTokens, 0), clientTok))
		if r.Failures != 0 || r.Successes != r.Requests {
			fail("%s: %d of %d requests succeeded: the counts cannot be compared", name, r.Successes, r.Requests)
		}
		if r.ServerGeneratedTokens == nil || *r.ServerGeneratedTokens != clientTok {
			fail("%s: the server generated %s tokens, the client received %.0f (%d × %d)", name,
				fixedOrNull(r.ServerGeneratedTokens, 0), clientTok, r.Successes, f.Arguments.MaxTokens)
		}
		if !(ratio >= counterDecodeLow && ratio <= counterDecodeHigh) {
			fail("%s: the server's decode time per request is %.4f× the client's total − TTFT (%s s against %.6f s), want %.2f to %.2f",
				name, ratio, floatOrNull(r.ServerDecodeSMean), clientDecode, counterDecodeLow, counterDecodeHigh)
		}
		// Cached prompt tokens: the server's counter against what its
		// replies said (llama-server: timings.cache_n), request by request.
		if r.ServerCachedPromptTokensMean != nil && (r.CachedPromptTokensMean == nil ||
			math.Abs(*r.ServerCachedPromptTokensMean-*r.CachedPromptTokensMean) > 1e-9) {
			fail("%s: the server counted %s cached prompt tokens a request, its replies %s", name,
				floatOrNull(r.ServerCachedPromptTokensMean), floatOrNull(r.CachedPromptTokensMean))
		}
		if p := val(r.ServerPrefillSMean); !(p > 0 && p <= counterPrefillHigh*val(r.TTFTMean)) {
			fail("%s: the server's prefill time per request is %s s against a TTFT of %s s: want above 0 and at most %.2f× TTFT",
				name, floatOrNull(r.ServerPrefillSMean), floatOrNull(r.TTFTMean), counterPrefillHigh)
		}
	}
	if rows == 0 {
		fail("the summary has no row of %s", w.runtime)
	}
	return table, fails
}
