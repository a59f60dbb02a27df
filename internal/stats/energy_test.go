package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// At concurrency 1, rounds back to back, each request's phases get the
// energy above idle of their own time: the split between prefill and
// decode is exact, whatever the power does. Two requests over five
// samples of 10, 20, 30, 40 and 50 W above an idle of 4 W: A from 0 to
// 0.3 s (first token at 0.1 s), B from 0.3 to 1.0 s (first token at
// 0.55 s).
func TestShareEnergyConcurrencyOne(t *testing.T) {
	t0 := time.Now()
	samples := resulttest.Samples(t0, 14, 24, 34, 44, 54)
	rounds := []Round{
		{Results: []runtimes.Result{resulttest.Sent(t0, 100*ms, 300*ms, 10, 20)}},
		{Results: []runtimes.Result{resulttest.Sent(t0.Add(300*ms), 250*ms, 700*ms, 30, 40)}},
	}
	e := ShareEnergy(rounds, resulttest.Power(t, samples, t0, t0.Add(time.Second), 4))
	require.NotNil(t, e)
	a, b := e.Shares[0][0], e.Shares[1][0]
	// By hand: A's prefill 10 W × 0.1 s; its decode 10 × 0.1 + 20 × 0.1;
	// B's prefill 20 × 0.1 + 30 × 0.15; its decode 30 × 0.05 + 40 × 0.2 +
	// 50 × 0.2.
	assert.InDelta(t, 1.0, a.PrefillJ, 1e-9)
	assert.InDelta(t, 3.0, a.DecodeJ, 1e-9)
	assert.InDelta(t, 6.5, b.PrefillJ, 1e-9)
	assert.InDelta(t, 19.5, b.DecodeJ, 1e-9)
	assert.InDelta(t, 30.0, e.NetJ, 1e-9, "0.2 s × (10 + 20 + 30 + 40 + 50) W")
	assert.InDelta(t, e.NetJ, a.J()+b.J(), 1e-9, "the shares add up to the net energy")
	assert.Zero(t, e.UnsharedJ)

	assert.Equal(t, 2, e.Requests)
	assert.InDelta(t, 30.0, e.RequestsJ, 1e-9)
	assert.InDelta(t, 7.5, e.PrefillJ, 1e-9)
	assert.Equal(t, 40, e.PromptTokens)
	assert.InDelta(t, 22.5, e.DecodeJ, 1e-9)
	assert.Equal(t, 60, e.OutputTokens)
}

// At concurrency above 1 each span's energy is shared by the time each
// request was in flight in it, and a span with nothing in flight keeps
// its energy unshared. Constant 10 W above idle; R1 from 0 to 1.0 s, R2
// from 0 to 0.5 s (first tokens at 0.2 and 0.1 s), and a second round
// from 1.2 to 1.4 s, after a span (1.0–1.2 s) with nothing in flight.
func TestShareEnergyConcurrent(t *testing.T) {
	t0 := time.Now()
	samples := resulttest.Samples(t0, 12, 12, 12, 12, 12, 12, 12)
	failedOne := resulttest.Sent(t0.Add(1200*ms), 0, 200*ms, 0, 0)
	failedOne.Err = runtimes.NewError(runtimes.ClassReset, "reset")
	rounds := []Round{
		{Results: []runtimes.Result{resulttest.Sent(t0, 200*ms, time.Second, 10, 10), resulttest.Sent(t0, 100*ms, 500*ms, 10, 10), {}}},
		{Results: []runtimes.Result{failedOne}},
	}
	e := ShareEnergy(rounds, resulttest.Power(t, samples, t0, t0.Add(1400*ms), 2))
	require.NotNil(t, e)
	r1, r2 := e.Shares[0][0], e.Shares[0][1]
	assert.Nil(t, e.Shares[0][2], "a request never sent has no share")
	// 0–0.4 s: both in flight, 1 J each per span of 2 J; 0.4–0.6 s: R1
	// 0.2 s, R2 0.1 s of it: 4/3 and 2/3 J; then R1 alone, 2 J a span.
	assert.InDelta(t, 2+4.0/3+4, r1.J(), 1e-9)
	assert.InDelta(t, 2+2.0/3, r2.J(), 1e-9)
	// R1's prefill: 0–0.2 s, shared with R2: 1 J.
	assert.InDelta(t, 1, r1.PrefillJ, 1e-9)
	// R2's prefill: 0–0.1 s of a span both shared evenly: half of its 1 J.
	assert.InDelta(t, 0.5, r2.PrefillJ, 1e-9)
	assert.InDelta(t, 2.0, e.UnsharedJ, 1e-9, "1.0–1.2 s: nothing in flight")
	f := e.Shares[1][0]
	assert.InDelta(t, 2.0, f.J(), 1e-9, "the failed request's span")
	assert.InDelta(t, 2.0, f.PrefillJ, 1e-9, "no first token: all prefill")
	assert.InDelta(t, 14.0, e.NetJ, 1e-9)
	assert.InDelta(t, e.NetJ, r1.J()+r2.J()+f.J()+e.UnsharedJ, 1e-9)
	assert.Equal(t, 2, e.Requests, "the failed request is shared energy but in no per-request figure")
}

// No energy is shared without an idle baseline, or from samples that
// cover less than telemetry.MinCoverage of the timed part.
func TestShareEnergyNeedsBaselineAndCoverage(t *testing.T) {
	t0 := time.Now()
	samples := resulttest.Samples(t0, 10, 10, 10, 10, 10)
	rounds := []Round{{Results: []runtimes.Result{resulttest.Sent(t0, 100*ms, time.Second, 1, 1)}}}
	f, err := telemetry.WindowFigures(samples, 200*ms, t0, t0.Add(time.Second))
	require.NoError(t, err)
	assert.Nil(t, ShareEnergy(rounds, &f), "no baseline")
	assert.Nil(t, ShareEnergy(rounds, nil))
	short := resulttest.Power(t, samples, t0, t0.Add(1300*ms), 1) // covered 1.0 of 1.3 s
	assert.Nil(t, ShareEnergy(rounds, short))
}
