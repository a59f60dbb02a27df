package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/runtimes"
)

// leafRun is a leaf run of one round per request, each request's TTFT
// ttft[i] seconds and decode rate decode[i] tok/s over 128 tokens: its
// figures, as Compute makes them, and its per-request values.
func leafRun(ttft, decode []float64) (Metrics, PerRequest) {
	var rounds []Round
	for i := range ttft {
		first := time.Duration(ttft[i] * 1e9)
		res := runtimes.Result{TTFT: first, Total: first + time.Duration(128/decode[i]*1e9), OutputTokens: 128, Chunks: 128}
		rounds = append(rounds, Round{Wall: res.Total, Results: []runtimes.Result{res}})
	}
	return Compute(rounds, SLO{}), PerRequestOf(rounds)
}

// around is n values near x, each x × (1 + spread·(i/(n−1) − ½)): spread
// apart from the lowest to the highest, in no random order.
func around(x, spread float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x * (1 + spread*(float64(i)/float64(max(n-1, 1))-0.5))
	}
	return out
}

// control tests the leaf run of first's values against end's, with first
// the leaf's only -count run.
func control(first, end [2][]float64) Control {
	m1, v1 := leafRun(first[0], first[1])
	m2, v2 := leafRun(end[0], end[1])
	return NewControl(bench.Key{Runtime: "ollama", Prompt: "short", Concurrency: 1}, []Metrics{m1}, m2, v1, v2)
}

func TestPerRequestOf(t *testing.T) {
	ok := runtimes.Result{TTFT: 50 * time.Millisecond, Total: 370 * time.Millisecond, OutputTokens: 128}
	byEval := runtimes.Result{TTFT: 40 * time.Millisecond, Total: 400 * time.Millisecond, OutputTokens: 100, Eval: 250 * time.Millisecond}
	failed := runtimes.Result{TTFT: 10 * time.Millisecond, Err: assert.AnError}
	rounds := []Round{{Results: []runtimes.Result{ok, failed}}, {Results: []runtimes.Result{byEval}}}
	v := PerRequestOf(rounds)
	assert.Equal(t, []float64{0.05, 0.04}, v.TTFT, "the successful requests' TTFTs")
	assert.InDeltaSlice(t, []float64{400, 100 / 0.36}, v.Decode, 1e-9, "128 tokens in 320 ms; 100 in 360 ms (the client's clock, not the server's 250 ms of eval)")
	m := Compute(rounds, SLO{})
	assert.Equal(t, m.TTFT.N, len(v.TTFT))
	assert.Equal(t, m.Decode.N, len(v.Decode))
	assert.Empty(t, PerRequestOf(nil).TTFT)
}

func TestControl(t *testing.T) {
	ttft, decode := around(0.050, 0.04, 12), around(400, 0.04, 12)

	// The same within 2%: steady, with the test's figures.
	c := control([2][]float64{ttft, decode}, [2][]float64{around(0.0505, 0.04, 12), around(398, 0.04, 12)})
	assert.Equal(t, "runtime=ollama/prompt=short/conc=1", c.Leaf)
	assert.Equal(t, ControlSteady, c.Verdict)
	assert.False(t, c.Drifted)
	assert.Empty(t, c.Drift("ollama"))
	assert.Empty(t, c.TooFew("ollama"))
	assert.Equal(t, 12, c.RequestsFirst)
	assert.Equal(t, 12, c.RequestsEnd)
	assert.Equal(t, ControlAlpha, c.Alpha)
	require.NotNil(t, c.TTFTP)
	require.NotNil(t, c.DecodeP)
	assert.Greater(t, *c.TTFTP, 0.5)
	assert.Greater(t, *c.DecodeP, 0.5)
	assert.InDelta(t, 0.01, float64(c.TTFTChange), 1e-6)
	assert.InDelta(t, controlThreshold, float64(c.DecodeThreshold), 1e-9, "one run: no spread")
	assert.InDelta(t, 400, *c.First.DecodeTPSMean, 1e-6)

	// Decode halved: drifted, and said with the test's p-value.
	c = control([2][]float64{ttft, decode}, [2][]float64{ttft, around(200, 0.04, 12)})
	assert.Equal(t, ControlDrifted, c.Verdict)
	assert.True(t, c.Drifted)
	require.NotNil(t, c.DecodeP)
	assert.InDelta(t, 2/2704156.0, *c.DecodeP, 1e-12, "12 against 12, all apart: 2 / C(24, 12)")
	assert.Equal(t, "ollama: the control leaf (runtime=ollama/prompt=short/conc=1) decoded 50% slower at the end of the run than at its start "+
		"(Mann–Whitney p = <0.0001; 12 requests at the start, 12 at the end): the server's state or the machine changed during the run; "+
		"figures of later leaves do not compare with earlier ones", c.Drift("ollama"))

	// TTFT alone can drift.
	c = control([2][]float64{ttft, decode}, [2][]float64{around(0.100, 0.04, 12), decode})
	assert.True(t, c.Drifted)
	assert.Contains(t, c.Drift("ollama"), "took 100% longer to the first token at the end")
	assert.NotContains(t, c.Drift("ollama"), "decoded")

	// 5% slower on every request: beyond the noise, but within the
	// minimum effect (a real server moves that much), which the test
	// takes out first: 380 / 0.9 lies above 400.
	c = control([2][]float64{ttft, decode}, [2][]float64{ttft, around(380, 0.01, 12)})
	require.NotNil(t, c.DecodeP)
	assert.Less(t, rankTest(decode, around(380, 0.01, 12)), ControlAlpha/2, "a test of any change would flag it")
	assert.Equal(t, 1.0, *c.DecodeP)
	assert.Equal(t, ControlSteady, c.Verdict)

	// 15% slower, beyond 10% by the means, but within 10% of the noise
	// of the requests: no drift.
	c = control([2][]float64{ttft, decode}, [2][]float64{ttft, around(340, 0.3, 12)})
	assert.Less(t, float64(c.DecodeChange), -0.1)
	assert.Greater(t, *c.DecodeP, ControlAlpha/2)
	assert.Less(t, rankTest(decode, around(340, 0.3, 12)), ControlAlpha/2, "a test of any change would flag it")
	assert.Equal(t, ControlSteady, c.Verdict)

	// 20% slower by the means, within the noise of 3 requests against
	// 12: the change alone would have flagged it.
	noisy := []float64{300, 420, 520}
	end := append(around(330, 0.6, 11), 300)
	c = control([2][]float64{ttft[:3], noisy}, [2][]float64{ttft, end})
	assert.Less(t, float64(c.DecodeChange), -0.1)
	assert.Greater(t, *c.DecodeP, ControlAlpha/2)
	assert.Equal(t, ControlSteady, c.Verdict)

	// Two requests against two cannot be told apart, whatever they say.
	c = control([2][]float64{ttft[:2], decode[:2]}, [2][]float64{ttft[:2], []float64{200, 201}})
	assert.Equal(t, ControlTooFew, c.Verdict)
	assert.False(t, c.Drifted)
	assert.InDelta(t, -0.49, float64(c.DecodeChange), 0.01, "the change is still said")
	require.NotNil(t, c.DecodeP)
	assert.InDelta(t, 1.0/3, *c.DecodeP, 1e-9, "2 against 2, all apart: 2 / C(4, 2)")
	assert.Empty(t, c.Drift("ollama"))
	assert.Equal(t, "ollama: too few requests to judge its control (runtime=ollama/prompt=short/conc=1): 2 requests in its leaf runs and 2 at the end; "+
		"against 2, the test needs 27 at the end to tell a drift from noise at p < 0.005; no verdict, so a drift during the run would not show", c.TooFew("ollama"))
	assert.NotContains(t, c.TooFew("ollama"), "the control leaf (", "no warning")
	// … and 3 against the 12 the driver then runs can.
	c = control([2][]float64{ttft[:3], decode[:3]}, [2][]float64{ttft, around(200, 0.04, 12)})
	assert.Equal(t, ControlDrifted, c.Verdict)
	assert.InDelta(t, 2/455.0, *c.DecodeP, 1e-12, "2 / C(15, 3)")
}

// The minimum effect: a short TTFT that moved by a millisecond is the
// machine's scheduling, however consistently; the leaf's own spread
// across -count raises the threshold.
func TestControlMinimumEffect(t *testing.T) {
	decode := around(400, 0.02, 12)
	c := control([2][]float64{around(0.006, 0.02, 12), decode}, [2][]float64{around(0.0052, 0.02, 12), decode})
	assert.InDelta(t, -0.1333, float64(c.TTFTChange), 1e-3)
	assert.Equal(t, 1.0, *c.TTFTP, "5.2 / (1 − 2/6) lies above 6")
	assert.False(t, c.Drifted, "0.8 ms")
	c = control([2][]float64{around(0.006, 0.02, 12), decode}, [2][]float64{around(0.010, 0.02, 12), decode})
	assert.True(t, c.Drifted, "4 ms on 6 ms is not")

	k := bench.Key{Runtime: "ollama", Prompt: "short", Concurrency: 1}
	ttft := around(0.05, 0.02, 12)
	first, v1 := leafRun(ttft, around(250, 0.02, 12))
	spread := []Metrics{first, {Requests: 12, Successes: 12, TTFT: first.TTFT, Decode: Stat{N: 12, Mean: 200}},
		{Requests: 12, Successes: 12, TTFT: first.TTFT, Decode: Stat{N: 12, Mean: 280}}}
	end, v2 := leafRun(ttft, around(175, 0.02, 12))
	c = NewControl(k, spread, end, v1, v2)
	assert.InDelta(t, 80.0/250, float64(c.DecodeThreshold), 1e-6)
	assert.InDelta(t, (250+200+280)/3.0, *c.First.DecodeTPSMean, 1e-6, "the baseline: the three runs' requests together")
	assert.InDelta(t, 175/((250+200+280)/3.0)-1, float64(c.DecodeChange), 1e-6)
	assert.Equal(t, 1.0, *c.DecodeP, "175 / (1 − 0.32) lies above 250")
	assert.Equal(t, ControlSteady, c.Verdict, "a leaf whose runs spread by 32% is not called drifted for 28%")
}

// The baseline is all the leaf's runs during the run: their requests
// together are tested against the control's, and their figures pooled
// are what the control's change is of. Six runs of 3 requests (-count=6,
// -benchtime=3x at conc=1) against a control of 3 are judged, where the
// first run's 3 alone could not be.
func TestControlPoolsTheLeafRuns(t *testing.T) {
	k := bench.Key{Runtime: "ollama", Prompt: "short", Concurrency: 1}
	var (
		runs []Metrics
		all  PerRequest
	)
	for i := range 6 {
		m, v := leafRun(around(0.050+0.001*float64(i), 0.04, 3), around(400+4*float64(i), 0.04, 3))
		runs = append(runs, m)
		all.TTFT, all.Decode = append(all.TTFT, v.TTFT...), append(all.Decode, v.Decode...)
	}
	end, last := leafRun(around(0.0525, 0.04, 3), around(200, 0.04, 3))
	c := NewControl(k, runs, end, all, last)
	assert.Equal(t, 18, c.RequestsFirst)
	assert.Equal(t, 18, c.First.Requests)
	assert.Equal(t, 18, c.First.Successes)
	assert.InDelta(t, Median(all.TTFT), *c.First.TTFTP50, 1e-12, "the median of all 18 requests")
	assert.InDelta(t, 410, *c.First.DecodeTPSMean, 1e-6, "400 to 420 tok/s, six runs of three")
	assert.InDelta(t, 200.0/410-1, float64(c.DecodeChange), 1e-6, "against the pooled mean, not the first run's 400")
	assert.Equal(t, ControlDrifted, c.Verdict)
	assert.InDelta(t, 2/1330.0, *c.DecodeP, 1e-12, "18 against 3, all apart: 2 / C(21, 3)")
	assert.Empty(t, c.WhyUnjudged())

	end, last = leafRun(around(0.0525, 0.04, 3), around(410, 0.04, 3))
	c = NewControl(k, runs, end, all, last)
	assert.Equal(t, ControlSteady, c.Verdict, "3 requests at the end are enough against 18")

	first, v := leafRun(around(0.050, 0.04, 3), around(400, 0.04, 3))
	c = NewControl(k, []Metrics{first}, end, v, last)
	assert.Equal(t, ControlTooFew, c.Verdict, "the first run's 3 alone are too few against 3")
	assert.Equal(t, "ran 3 requests at the end against 3 at the start, the test needs 12", c.WhyUnjudged())
	c.Unjudged = "the server stopped answering"
	assert.Equal(t, "the server stopped answering", c.WhyUnjudged(), "the run's own reason first")
}

func TestUnjudgedBecause(t *testing.T) {
	assert.Equal(t, "ran 1 request at the end against 2 at the start, the test needs 27", UnjudgedBecause(2, 1))
	assert.Equal(t, "ran 6 requests at the end against 0 at the start: none to test against", UnjudgedBecause(0, 6))
}

func TestControlWithoutRequests(t *testing.T) {
	k := bench.Key{Runtime: "ollama", Prompt: "short", Concurrency: 1}
	m, v := leafRun(around(0.05, 0.02, 6), around(400, 0.02, 6))
	c := NewControl(k, []Metrics{m}, Metrics{Requests: 3, Failures: 3}, v, PerRequest{})
	assert.True(t, math.IsNaN(float64(c.DecodeChange)))
	assert.Nil(t, c.DecodeP)
	assert.Nil(t, c.TTFTP)
	assert.Equal(t, ControlTooFew, c.Verdict)
	assert.False(t, c.Drifted)
	assert.Nil(t, c.End.DecodeTPSMean)
	assert.Equal(t, 0, c.RequestsEnd)
	assert.Contains(t, c.TooFew("ollama"), "6 requests in its leaf runs and 0 at the end; against 6, the test needs 5 at the end")

	c = NewControl(k, nil, m, PerRequest{}, v)
	assert.Equal(t, ControlTooFew, c.Verdict, "no first run")
	assert.Equal(t, "ollama: too few requests to judge its control (runtime=ollama/prompt=short/conc=1): 0 requests in its leaf runs and 6 at the end; "+
		"no verdict, so a drift during the run would not show", c.TooFew("ollama"))
}

// The fewest requests the test can judge, against the library's exact
// p-value of samples completely apart.
func TestControlRequestsNeeded(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 400, 2: 27, 3: 12, 4: 8, 5: 6, 6: 5, 9: 4, 12: 3, 18: 3, 100: 2} {
		assert.Equal(t, want, ControlRequestsNeeded(n), "against %d", n)
	}
	for _, sides := range [][2]int{{3, 12}, {3, 11}, {6, 6}, {5, 5}, {2, 27}, {2, 26}, {4, 8}, {4, 7}, {9, 4}, {9, 3}, {18, 3}, {18, 2}} {
		low, high := make([]float64, sides[0]), make([]float64, sides[1])
		for i := range low {
			low[i] = float64(i)
		}
		for i := range high {
			high[i] = 1000 + float64(i)
		}
		p := rankTest(low, high)
		assert.InDelta(t, minP(sides[0], sides[1]), p, 1e-12, "%v", sides)
		assert.Equal(t, p < ControlAlpha/2, separable(sides[0], sides[1]), "%v: p = %g", sides, p)
	}
	assert.False(t, separable(0, 100))
	assert.Equal(t, "0.0044", FormatP(ptr(2/455.0)))
	assert.Equal(t, "0.31", FormatP(ptr(0.3125)))
	assert.Equal(t, "1", FormatP(ptr(1)))
	assert.Equal(t, "<0.0001", FormatP(ptr(3e-7)))
	assert.Equal(t, "—", FormatP(nil))
}

func ptr(x float64) *float64 { return &x }

// The control's error rates, measured on generated leaf runs: the numbers
// docs/method.md quotes (go test ./internal/summary/ -run
// TestControlErrorRates -v).
//
// A leaf run's request has a TTFT of 50 ms and a decode rate of 400 tok/s,
// each times e^(a + b + e): a drawn once for the run (N(0, 0.03): the
// machine and the server as they are then), b once for each round, shared
// by its concurrent requests (N(0, 0.03)), e for each request (N(0, 0.10)
// for TTFT, N(0, 0.08) for decode): noisier than the real Ollama and
// llama-server runs of docs/method.md, whose short leaves moved by up to
// 40% between runs. Two leaves are judged: conc=1 with 3 rounds, its
// control the 12 rounds the driver runs for the test (controlRounds), and
// conc=4 with 3 rounds a side. A control counts as flagged when its
// verdict is drifted; the earlier rule, a change beyond 10% alone, is
// counted beside it.
func TestControlErrorRates(t *testing.T) {
	const (
		runs     = 100
		many     = 1000
		runSD    = 0.03
		roundSD  = 0.03
		ttftSD   = 0.10
		decodeSD = 0.08
	)
	rng := rand.New(rand.NewPCG(7, 2026))
	// leaf generates a leaf run of rounds rounds at conc, its decode rates
	// times slow.
	leaf := func(rounds, conc int, slow float64) (Metrics, PerRequest) {
		var rds []Round
		runT, runD := runSD*rng.NormFloat64(), runSD*rng.NormFloat64()
		for range rounds {
			rdT, rdD := roundSD*rng.NormFloat64(), roundSD*rng.NormFloat64()
			rd := Round{Wall: time.Second}
			for range conc {
				ttft := time.Duration(0.050 * math.Exp(runT+rdT+ttftSD*rng.NormFloat64()) * 1e9)
				decode := slow * 400 * math.Exp(runD+rdD+decodeSD*rng.NormFloat64())
				rd.Results = append(rd.Results, runtimes.Result{TTFT: ttft, Total: ttft + time.Duration(128/decode*1e9), OutputTokens: 128})
			}
			rds = append(rds, rd)
		}
		return Compute(rds, SLO{}), PerRequestOf(rds)
	}
	type leafShape struct{ conc, rounds, controlRounds int }
	shapes := []leafShape{{1, 3, ControlRequestsNeeded(3)}, {4, 3, 3}}
	// judge returns whether the control of a leaf of shape s flags it,
	// by the test and by the earlier rule, its decode slowed by slow.
	judge := func(s leafShape, slow float64) (flagged, byChange bool) {
		m1, v1 := leaf(s.rounds, s.conc, 1)
		m2, v2 := leaf(s.controlRounds, s.conc, slow)
		c := NewControl(bench.Key{Runtime: "sim", Prompt: "short", Concurrency: s.conc}, []Metrics{m1}, m2, v1, v2)
		require.NotEqual(t, ControlTooFew, c.Verdict)
		return c.Drifted, moved(c.TTFTChange, c.TTFTThreshold) || moved(c.DecodeChange, c.DecodeThreshold)
	}
	for _, s := range shapes {
		var falseAlarms, oldFalseAlarms, caught, faMany, caughtMany, caught20 int
		for range runs {
			f, old := judge(s, 1)
			falseAlarms += b2i(f)
			oldFalseAlarms += b2i(old)
			f, _ = judge(s, 0.5)
			caught += b2i(f)
		}
		for range many {
			f, _ := judge(s, 1)
			faMany += b2i(f)
			f, _ = judge(s, 0.5)
			caughtMany += b2i(f)
			f, _ = judge(s, 0.8)
			caught20 += b2i(f)
		}
		t.Logf("conc=%d, %d rounds against %d: steady leaves flagged %d of %d (the 10%% rule alone: %d); decode halved, flagged %d of %d",
			s.conc, s.rounds, s.controlRounds, falseAlarms, runs, oldFalseAlarms, caught, runs)
		t.Logf("conc=%d, over %d of each: %.1f%% false alarms; %.1f%% of halved decodes caught, %.1f%% of decodes 20%% slower",
			s.conc, many, 100*float64(faMany)/many, 100*float64(caughtMany)/many, 100*float64(caught20)/many)
		assert.LessOrEqual(t, falseAlarms, 5, "false alarms, conc=%d", s.conc)
		assert.GreaterOrEqual(t, caught, 95, "halved decodes caught, conc=%d", s.conc)
		assert.LessOrEqual(t, faMany, many/50, "false alarms over %d: at most 2%%", many)
		assert.GreaterOrEqual(t, caughtMany, many*99/100, "halved decodes caught over %d: at least 99%%", many)
		assert.Greater(t, oldFalseAlarms, 10, "the noise is such that the change alone flags many steady leaves")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The minimum effects a control line cites beside p = 1: the thresholds,
// and for TTFT at least 2 ms of the first run's p50.
func TestControlMinEffects(t *testing.T) {
	p50 := func(v float64) *float64 { return &v }
	c := Control{First: ControlFigures{TTFTP50: p50(0.010)}, TTFTThreshold: 0.1, DecodeThreshold: 0.25}
	ttft, decode := c.MinEffects()
	assert.InDelta(t, 0.2, ttft, 1e-12, "2 ms of 10 ms")
	assert.Equal(t, 0.25, decode)
	c.First.TTFTP50 = p50(0.050)
	ttft, _ = c.MinEffects()
	assert.InDelta(t, 0.1, ttft, 1e-12, "2 ms of 50 ms is below the threshold")
}
