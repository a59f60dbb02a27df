package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedRun is a closed-loop run of the short prompt on runtime ollama:
// at concurrency 1 rounds of 0.625 s (1.6 req/s), at 4 rounds of 3.2 s
// (1.25 req/s: this server does worse with its slots full), each request
// of 128 tokens.
func closedRun(t *testing.T) *summary.File {
	t.Helper()
	r := summary.NewRun(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC))
	r.Complete = true
	r.Runtimes = []summary.RuntimeInfo{{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:41103", Model: "m"}}
	for _, c := range []int{1, 4} {
		wall := 625 * ms
		if c == 4 {
			wall = 3200 * ms
		}
		var rounds []stats.Round
		for range 3 {
			rd := stats.Round{Wall: wall, MaxTokens: 128, Cold: true}
			for range c {
				rd.Results = append(rd.Results, request(128))
			}
			rounds = append(rounds, rd)
		}
		r.Add(bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: c}, rounds, summary.Telemetry{})
	}
	return encodeDecode(t, r)
}

func encodeDecode(t *testing.T, r *summary.Run) *summary.File {
	t.Helper()
	data, err := r.File().Encode()
	require.NoError(t, err)
	f, err := summary.Decode(data)
	require.NoError(t, err)
	return f
}

func TestFindCapacity(t *testing.T) {
	f := closedRun(t)
	c, err := findCapacity(f, "ollama", "short")
	require.NoError(t, err)
	assert.Equal(t, 4, c.concurrency, "the highest concurrency: the server saturated")
	assert.Equal(t, 128, c.tokensPerRequest)
	assert.InDelta(t, 160.0, c.aggregateTPS, 1e-9)
	assert.InDelta(t, 1.25, c.rps, 1e-9)
	assert.Equal(t, "1.250 req/s (ollama/short/conc=4: aggregate_output_tps_mean 160.0 tok/s / 128 output tokens per request)", c.String())

	for name, tc := range map[string]struct {
		edit         func(f *summary.File)
		rt, p, wantE string
	}{
		"no row":        {rt: "ollama", p: "code", wantE: "no closed-loop row of runtime ollama and prompt code"},
		"other runtime": {rt: "ollama-v1", p: "short", wantE: "no closed-loop row of runtime ollama-v1"},
		"unequal work": {
			edit:  func(f *summary.File) { n := 100; f.Summary[1].OutputTokensMin = &n },
			wantE: "row ollama/short/conc=4: output tokens per request from 100 to 128: requests of unequal work make no rate of requests",
		},
		"failures": {
			edit:  func(f *summary.File) { f.Summary[1].Failures = 2 },
			wantE: "row ollama/short/conc=4: 2 of 12 requests failed",
		},
		"no aggregate": {
			edit:  func(f *summary.File) { f.Summary[1].AggregateTPSMean = nil },
			wantE: "row ollama/short/conc=4: aggregate_output_tps_mean is null, want > 0",
		},
		"open-loop rows do not count": {
			edit: func(f *summary.File) {
				f.Summary[1].Concurrency = 0
				rate := 2.0
				f.Summary[1].RateRPS = &rate
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := closedRun(t)
			if tc.edit != nil {
				tc.edit(f)
			}
			rt, p := tc.rt, tc.p
			if rt == "" {
				rt, p = "ollama", "short"
			}
			c, err := findCapacity(f, rt, p)
			if tc.wantE == "" {
				require.NoError(t, err)
				assert.Equal(t, 1, c.concurrency)
				assert.InDelta(t, 1.6, c.rps, 1e-9)
				return
			}
			assert.ErrorContains(t, err, tc.wantE)
		})
	}
}

func TestOpenLoopRates(t *testing.T) {
	for _, tc := range []struct{ c, low, high float64 }{
		{1.25, 0.62, 2.5}, // 0.625: to even, as strconv rounds an exact half
		{1.17, 0.58, 2.3},
		{3, 1.5, 6},
		{0.128, 0.064, 0.26},
		{12.3, 6.2, 25},
	} {
		low, high := openLoopRates(tc.c)
		assert.Equal(t, tc.low, low, "capacity %v", tc.c)
		assert.Equal(t, tc.high, high, "capacity %v", tc.c)
		assert.Less(t, low, tc.c)
		assert.Greater(t, high, tc.c)
	}
	assert.Equal(t, "0.58,2.3", formatRates(0.58, 2.3))
	assert.Equal(t, "1.5,6", formatRates(1.5, 6))
}

// openRow is one open-loop leaf of n arrivals at rate requests per second
// as the driver records it: requests of 128 tokens, each TTFT ttft, sent
// over (n-1)/achieved seconds, each lag late.
func openRow(n int, rate, achieved float64, ttft time.Duration, lag float64) (bench.Key, []stats.Round) {
	rd := stats.Round{MaxTokens: 128, Cold: true, Open: &stats.OpenLoop{
		Rate: rate, Sent: n, SendWindow: time.Duration(float64(n-1) / achieved * float64(time.Second)), InflightMax: 3,
	}}
	for range n {
		res := request(128)
		res.TTFT, res.Total = ttft, ttft+700*ms
		rd.Results = append(rd.Results, res)
		rd.Open.SendLags = append(rd.Open.SendLags, lag)
	}
	rd.Wall = rd.Open.SendWindow + ttft + 700*ms
	return bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Rate: rate}, []stats.Round{rd}
}

var openWant = openLoopWant{
	runtime: "ollama", prompt: "short", low: 0.62, high: 2.5, arrivals: 65, maxTokens: 128,
	rateTol: 0.15, maxLagShare: 0.02, ttftFactor: 2,
}

// openRun is an open-loop run of openWant's two rates: at the low one
// TTFT 0.4 s, at the high one 6 s; lag 0.2 ms; each rate achieved as
// given.
func openRun(t *testing.T, lowAchieved, highAchieved float64, highTTFT time.Duration) *summary.File {
	t.Helper()
	r := summary.NewRun(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC))
	r.Complete = true
	r.Runtimes = []summary.RuntimeInfo{{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:41103", Model: "m"}}
	k, rds := openRow(65, 0.62, lowAchieved, 400*ms, 0.0002)
	r.Add(k, rds, summary.Telemetry{})
	k, rds = openRow(65, 2.5, highAchieved, highTTFT, 0.0002)
	r.Add(k, rds, summary.Telemetry{})
	return encodeDecode(t, r)
}

func TestCheckOpenLoop(t *testing.T) {
	f := openRun(t, 0.6, 2.45, 6*time.Second)
	table, fails := checkOpenLoop(f, openWant)
	assert.Empty(t, fails)
	require.Len(t, table, 1+2)
	assert.Regexp(t, `^rate/s +req +ok +achieved +ratio +inflight +done/s +lag_p50ms +lag_p99ms +ttft_p50s +ttft_p95s +total_p95$`, table[0])
	assert.Regexp(t, `^0\.62 +65 +65 +0\.600 +0\.968 +3 +0\.\d+ +0\.200 +0\.200 +0\.400 +0\.400 +1\.100$`, table[1])
	assert.Regexp(t, `^2\.5 +65 +65 +2\.450 +0\.980 +3 .* 6\.000 +6\.000 +6\.700$`, table[2])

	for name, tc := range map[string]struct {
		f    func() *summary.File
		edit func(f *summary.File)
		w    func(w *openLoopWant)
		want string
	}{
		"slow sender": {
			f:    func() *summary.File { return openRun(t, 0.5, 2.45, 6*time.Second) },
			want: "row ollama/short/rate=0.62: achieved_rps 0.500 is -19.4% off rate_rps 0.62 (limit ±15%)",
		},
		"backed off": {
			f:    func() *summary.File { return openRun(t, 0.6, 1.2, 6*time.Second) },
			want: "row ollama/short/rate=2.5: achieved_rps 1.200 is -52.0% off rate_rps 2.5",
		},
		"no queue": {
			f:    func() *summary.File { return openRun(t, 0.6, 2.45, 700*ms) },
			want: "ttft_s_p95 at rate 2.5 is 0.700 s, want at least 2× the 0.400 s at rate 0.62: no queue built above the capacity",
		},
		"lag": {
			edit: func(f *summary.File) { x := 0.012; f.Summary[1].SendLagSP99 = &x },
			want: "row ollama/short/rate=2.5: send_lag_s_p99 is 12.000 ms, want at most 8 ms (2% of the mean gap): the client sent late",
		},
		"capped": {
			edit: func(f *summary.File) { n := 4; f.Summary[1].InflightCapped = &n },
			want: "row ollama/short/rate=2.5: inflight_capped is 4, want 0",
		},
		"failures": {
			edit: func(f *summary.File) { f.Summary[0].Successes, f.Summary[0].Failures = 63, 2 },
			want: "row ollama/short/rate=0.62: 63 of 65 requests succeeded, 2 failed; want all 65",
		},
		"arrivals": {
			w:    func(w *openLoopWant) { w.arrivals = 80 },
			want: "row ollama/short/rate=0.62: 65 of 65 requests succeeded, 0 failed; want all 80",
		},
		"short outputs": {
			edit: func(f *summary.File) { n := 90; f.Summary[0].OutputTokensMin = &n },
			want: "row ollama/short/rate=0.62: output tokens per request from 90 to 128, want every request exactly 128",
		},
		"other rates": {
			w:    func(w *openLoopWant) { w.high = 3 },
			want: "unexpected row ollama/short/rate=2.5: want rates 0.62 and 3\nno row ollama/short/rate=3",
		},
		"closed-loop row": {
			edit: func(f *summary.File) { f.Summary = append(f.Summary, closedRun(t).Summary[0]) },
			want: "unexpected row ollama/short/conc=1: the run should have only the open-loop leaves of ollama/short",
		},
		"no rows": {
			edit: func(f *summary.File) { f.Summary = nil },
			want: "no row ollama/short/rate=0.62\nno row ollama/short/rate=2.5",
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := openRun(t, 0.6, 2.45, 6*time.Second)
			if tc.f != nil {
				f = tc.f()
			}
			if tc.edit != nil {
				tc.edit(f)
			}
			w := openWant
			if tc.w != nil {
				tc.w(&w)
			}
			_, fails := checkOpenLoop(f, w)
			assert.Contains(t, strings.Join(fails, "\n"), tc.want)
		})
	}
}
