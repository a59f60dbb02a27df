package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// row returns a summary row of n requests whose totals are totals, each
// with tokens[i] output tokens.
func row(rt, prompt string, conc int, totals []float64, tokens []int) map[string]any {
	var rtps []float64
	for i, t := range totals {
		rtps = append(rtps, float64(tokens[i])/t)
	}
	return map[string]any{
		"runtime": rt, "prompt": prompt, "concurrency": conc,
		"requests": len(totals), "successes": len(totals), "failures": 0,
		"ttft_s_mean": 0.02, "total_s_mean": mean(totals), "total_s_p50": p50(totals),
		"decode_tps_mean": 100.0, "decode_tps_p50": 100.0, "decode_tps_p95": 110.0,
		"request_tps_mean": mean(rtps), "request_tps_p50": p50(rtps),
		"aggregate_output_tps_mean": 100.0, "output_tokens_approx": false,
		"output_tokens_min": slices.Min(tokens), "output_tokens_max": slices.Max(tokens),
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// p50 interpolates like the suite (numpy's default).
func p50(xs []float64) float64 { return median(xs) }

func doc(version any, rows ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"versions":       map[string]any{"ollama": version, "ollama-v1": nil},
		"arguments":      map[string]any{"max_tokens": 128},
		"model_metadata": map[string]any{"ollama": map[string]any{"show": map[string]any{"details": "x"}}},
		"summary":        rows,
	})
	return b
}

var want = summaryWant{runtimes: []string{"ollama", "ollama-v1"}, prompts: []string{"short"}, conc: []int{1}, rounds: 3, count: 2, maxTokens: 128, native: "ollama", version: "0.6.5"}

var totals = []float64{0.70, 0.74, 0.69, 0.81, 0.72, 0.77}

func all(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestSummaryPasses(t *testing.T) {
	b := doc("0.6.5", row("ollama", "short", 1, totals, all(6, 128)), row("ollama-v1", "short", 1, totals, all(6, 128)))
	if f := checkSummary(b, want); len(f) != 0 {
		t.Fatalf("failures: %v", f)
	}
}

func TestSummaryFailures(t *testing.T) {
	short := all(6, 128)
	short[2] = 100 // one request stopped early
	for name, tc := range map[string]struct {
		doc  []byte
		want string
	}{
		"version":      {doc("0.0.0", row("ollama", "short", 1, totals, all(6, 128)), row("ollama-v1", "short", 1, totals, all(6, 128))), "versions.ollama"},
		"no version":   {doc(nil, row("ollama", "short", 1, totals, all(6, 128)), row("ollama-v1", "short", 1, totals, all(6, 128))), "versions.ollama is null"},
		"missing row":  {doc("0.6.5", row("ollama", "short", 1, totals, all(6, 128))), "no row for ollama-v1/short/conc=1"},
		"fewer tokens": {doc("0.6.5", row("ollama", "short", 1, totals, short), row("ollama-v1", "short", 1, totals, all(6, 128))), "output tokens per request from 100 to 128, want every request exactly 128"},
		"failure": {func() []byte {
			r := row("ollama", "short", 1, totals, all(6, 128))
			r["failures"], r["successes"] = 1, 5
			return doc("0.6.5", r, row("ollama-v1", "short", 1, totals, all(6, 128)))
		}(), "1 failures"},
		"zero decode": {func() []byte {
			r := row("ollama-v1", "short", 1, totals, all(6, 128))
			r["decode_tps_p50"] = nil
			return doc("0.6.5", row("ollama", "short", 1, totals, all(6, 128)), r)
		}(), "decode_tps_p50 is <nil>"},
		"approx": {func() []byte {
			r := row("ollama-v1", "short", 1, totals, all(6, 128))
			r["output_tokens_approx"] = true
			return doc("0.6.5", row("ollama", "short", 1, totals, all(6, 128)), r)
		}(), "counted by chunks"},
		"wrong count": {doc("0.6.5", row("ollama", "short", 1, totals[:3], all(3, 128)), row("ollama-v1", "short", 1, totals, all(6, 128))), "3 requests, want 6"},
	} {
		t.Run(name, func(t *testing.T) {
			f := checkSummary(tc.doc, want)
			if !strings.Contains(strings.Join(f, "\n"), tc.want) {
				t.Errorf("failures %q lack %q", f, tc.want)
			}
		})
	}
}

func TestParseBench(t *testing.T) {
	out := `BenchmarkModel/name=m/step=prefill 84 105538.19 ns/token 9475.24 token/sec
BenchmarkModel/name=m/step=generate 128 7381000.09 ns/token 135.48 token/sec
BenchmarkModel/name=m/step=load 1 1705728 ns/request
BenchmarkModel/name=m 1 955829958 ns/request
BenchmarkModel/name=m/step=generate 128 7779680.20 ns/token 128.54 token/sec
`
	rates, err := parseBench(out, "m", 128)
	if err != nil || len(rates) != 2 || rates[0] != 135.48 || rates[1] != 128.54 {
		t.Fatalf("got %v, %v", rates, err)
	}
	if _, err := parseBench(out, "m", 100); err == nil || !strings.Contains(err.Error(), "generated 128 tokens, want 100") {
		t.Errorf("token count not checked: %v", err)
	}
	if _, err := parseBench(out, "other", 128); err == nil {
		t.Error("model not checked")
	}
	if rates, _ := parseBench("ERROR: no\n", "m", 128); len(rates) != 0 {
		t.Errorf("rates from nothing: %v", rates)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}
