package e2e

import (
	"fmt"
	"math"
	"strconv"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// capacity is how many requests per second the server completes when it
// is saturated, from a closed-loop run: the row of a runtime and prompt at
// the run's highest concurrency, where every parallel slot of the server
// is busy, as they are while an overloaded open loop's queue drains. Its
// aggregate_output_tps_mean (output tokens of a round / the round's wall
// time, mean over rounds) divided by the output tokens of each request is
// the mean of the rounds' completed requests per second. That is the
// closed loop's own throughput, idle tail of each round included, rather
// than concurrency / total_s_mean, which counts each request's time but
// not the wait for a round's slowest.
type capacity struct {
	runtime, prompt  string
	concurrency      int     // the row's
	aggregateTPS     float64 // the row's aggregate_output_tps_mean
	tokensPerRequest int     // every request's output tokens
	rps              float64 // aggregateTPS / tokensPerRequest
}

func (c capacity) String() string {
	return fmt.Sprintf("%.3f req/s (%s/%s/conc=%d: aggregate_output_tps_mean %.1f tok/s / %d output tokens per request)",
		c.rps, c.runtime, c.prompt, c.concurrency, c.aggregateTPS, c.tokensPerRequest)
}

// findCapacity returns the capacity of runtime rt with prompt p from the
// closed-loop rows of a run. Every request of the row must have produced
// the same number of output tokens, so that requests are units of equal
// work.
func findCapacity(f *summary.File, rt, p string) (capacity, error) {
	var best *summary.Row
	for i, r := range f.Summary {
		if r.Runtime != rt || r.Prompt != p || r.RateRPS != nil {
			continue
		}
		if best == nil || r.Concurrency > best.Concurrency {
			best = &f.Summary[i]
		}
	}
	if best == nil {
		return capacity{}, fmt.Errorf("no closed-loop row of runtime %s and prompt %s", rt, p)
	}
	name := rowName(*best)
	if best.Failures > 0 {
		return capacity{}, fmt.Errorf("%s: %d of %d requests failed: no capacity from it", name, best.Failures, best.Requests)
	}
	if best.OutputTokensMin == nil || best.OutputTokensMax == nil || *best.OutputTokensMin != *best.OutputTokensMax || *best.OutputTokensMin < 1 {
		return capacity{}, fmt.Errorf("%s: output tokens per request from %s to %s: requests of unequal work make no rate of requests",
			name, intOrNull(best.OutputTokensMin), intOrNull(best.OutputTokensMax))
	}
	agg := val(best.AggregateTPSMean)
	if !(agg > 0) || math.IsInf(agg, 0) {
		return capacity{}, fmt.Errorf("%s: aggregate_output_tps_mean is %s, want > 0", name, fixedOrNull(best.AggregateTPSMean, 1))
	}
	n := *best.OutputTokensMin
	return capacity{runtime: rt, prompt: p, concurrency: best.Concurrency, aggregateTPS: agg, tokensPerRequest: n, rps: agg / float64(n)}, nil
}

// openLoopRates are the rates of the two open-loop leaves for a capacity
// of c requests per second: about half of it, where the server keeps up
// and requests rarely wait, and about twice it, where arrivals outrun the
// server and a queue builds for as long as they come. Each is rounded to
// two significant digits, as it names its benchmark (rate=0.59).
func openLoopRates(c float64) (low, high float64) {
	return round2(c / 2), round2(2 * c)
}

// scaled is *p × k, or nil for nil.
func scaled(p *float64, k float64) *float64 {
	if p == nil {
		return nil
	}
	x := *p * k
	return &x
}

func round2(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 2, 64), 64)
	return r
}

// formatRates is the rates as BENCH_RATES takes them: "0.59,2.4".
func formatRates(low, high float64) string {
	return bench.FormatRate(low) + "," + bench.FormatRate(high)
}

// openLoopWant is what the rows of an open-loop run must show.
type openLoopWant struct {
	runtime, prompt string
	low, high       float64 // the two rates, requests per second
	// arrivals is every leaf's requests (-benchtime=Nx), and maxTokens
	// each request's output tokens.
	arrivals, maxTokens int
	// rateTol is how far achieved_rps may be from rate_rps, as a share.
	rateTol float64
	// maxLagShare is the most send_lag_s_p99 may be, as a share of the
	// leaf's mean gap between arrivals (1/rate): a lag that small leaves
	// the load's shape as asked.
	maxLagShare float64
	// ttftFactor is how many times the low rate's ttft_s_p95 the high
	// rate's must at least be.
	ttftFactor float64
}

// checkOpenLoop checks an open-loop run's rows: one at each of the two
// rates and no other, every request successful with maxTokens output
// tokens, the rate achieved within rateTol of the one asked at both
// rates (an open loop sends on schedule whether or not the server keeps
// up; the in-flight cap never held an arrival back), the client's send
// lag p99 at most maxLagShare of the mean gap, and TTFT p95 at the high rate at least
// ttftFactor times the low rate's. It returns a table of the rows (a
// header first) and the failed checks.
func checkOpenLoop(f *summary.File, w openLoopWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = []string{fmt.Sprintf("%-8s %4s %4s %8s %6s %8s %8s %10s %10s %10s %10s %8s",
		"rate/s", "req", "ok", "achieved", "ratio", "inflight", "done/s", "lag_p50ms", "lag_p99ms", "ttft_p50s", "ttft_p95s", "total_p95")}
	var low, high *summary.Row
	for i, r := range f.Summary {
		name := rowName(r)
		switch {
		case r.Runtime != w.runtime || r.Prompt != w.prompt || r.RateRPS == nil:
			fail("unexpected %s: the run should have only the open-loop leaves of %s/%s", name, w.runtime, w.prompt)
			continue
		case *r.RateRPS == w.low:
			low = &f.Summary[i]
		case *r.RateRPS == w.high:
			high = &f.Summary[i]
		default:
			fail("unexpected %s: want rates %v and %v", name, w.low, w.high)
			continue
		}
		table = append(table, fmt.Sprintf("%-8v %4d %4d %8.3f %6.3f %8s %8.3f %10.3f %10.3f %10.3f %10.3f %8.3f",
			*r.RateRPS, r.Requests, r.Successes, val(r.AchievedRPS), val(r.AchievedRPS)/(*r.RateRPS), intOrNull(r.InflightMax),
			val(r.ThroughputRPS), 1000*val(r.SendLagSP50), 1000*val(r.SendLagSP99), val(r.TTFTP50), val(r.TTFTP95), val(r.TotalP95)))

		if r.Requests != w.arrivals || r.Successes != r.Requests || r.Failures != 0 {
			fail("%s: %d of %d requests succeeded, %d failed; want all %d", name, r.Successes, r.Requests, r.Failures, w.arrivals)
		}
		if r.OutputTokensMin == nil || r.OutputTokensMax == nil || *r.OutputTokensMin != w.maxTokens || *r.OutputTokensMax != w.maxTokens {
			fail("%s: output tokens per request from %s to %s, want every request exactly %d",
				name, intOrNull(r.OutputTokensMin), intOrNull(r.OutputTokensMax), w.maxTokens)
		}
		if a := val(r.AchievedRPS); !within(a / *r.RateRPS, w.rateTol) {
			fail("%s: achieved_rps %.3f is %+.1f%% off rate_rps %v (limit ±%.0f%%)", name, a, 100*(a / *r.RateRPS - 1), *r.RateRPS, 100*w.rateTol)
		}
		if r.InflightCapped == nil || *r.InflightCapped != 0 {
			fail("%s: inflight_capped is %s, want 0: the in-flight cap held arrivals back, so the loop was not open", name, intOrNull(r.InflightCapped))
		}
		if lag, most := val(r.SendLagSP99), w.maxLagShare / *r.RateRPS; !(lag <= most) {
			fail("%s: send_lag_s_p99 is %s ms, want at most %.3g ms (%g%% of the mean gap): the client sent late",
				name, fixedOrNull(scaled(r.SendLagSP99, 1000), 3), 1000*most, 100*w.maxLagShare)
		}
	}
	if low == nil {
		fail("no row %s/%s/rate=%v", w.runtime, w.prompt, w.low)
	}
	if high == nil {
		fail("no row %s/%s/rate=%v", w.runtime, w.prompt, w.high)
	}
	if low != nil && high != nil && !(val(high.TTFTP95) >= w.ttftFactor*val(low.TTFTP95)) {
		fail("ttft_s_p95 at rate %v is %s s, want at least %g× the %s s at rate %v: no queue built above the capacity",
			w.high, fixedOrNull(high.TTFTP95, 3), w.ttftFactor, fixedOrNull(low.TTFTP95, 3), w.low)
	}
	return table, fails
}
