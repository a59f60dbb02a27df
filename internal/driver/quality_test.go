package driver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// qualitySetup is Setup of the simulator as two runtimes, sim and sim@b,
// with settings over the defaults; it returns the driver and its log.
func qualitySetup(t *testing.T, settings map[string]string) (*Driver, string) {
	t.Helper()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim,sim@b", "BENCH_PROMPTS": "short,medium,code", "BENCH_CONCURRENCY": "1",
		"BENCH_WARMUPS": "0", "BENCH_MAX_TOKENS": "8", "BENCH_CONTROL": "off",
		"SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "20000",
	}, settings)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d, log.String()
}

// sim@b plays a model whose distributions moved, saying its second word
// at 10% of tokens (SIM_B_PERTURB=0.1). The truth is known
// (sim.PerturbedAt, sim.PerturbKL), and the measurement recovers it: the
// tokens that agree are exactly those the simulator did not perturb, so
// top-1 agreement pooled over the prompts is 0.9 within the binomial
// bound (a 99.9% Wilson interval of the measured share holds 0.9); the
// first difference is at the first perturbed token, and the mean KL over
// the prefix before it is the simulator's own (the two words whose
// probabilities differ are both in the shared top-k, so lumping the rest
// loses nothing). The reference asked again agrees with itself fully,
// and the cost was said before the timed rounds.
func TestQualityRecoversSimPerturbation(t *testing.T) {
	t.Parallel()
	d, log := qualitySetup(t, map[string]string{"BENCH_QUALITY": "agree", "SIM_B_PERTURB": "0.1"})
	agreed, compared := 0, 0
	for _, pr := range d.Prompts {
		q, ok := d.Run.QualityOf("sim@b", pr.Name)
		require.True(t, ok, pr.Name)
		require.NotNil(t, q.AgreeTop1Ratio, pr.Name)
		assert.Equal(t, "sim", q.Reference)
		assert.Equal(t, "token", q.AgreeBy)
		require.Equal(t, agreeTokens, *q.AgreeCompared, "every token of the fixed length compared")
		same, first, kl := 0, -1, 0.0
		for i := range agreeTokens {
			if sim.PerturbedAt(pr.Text, i, 0.1) {
				if first < 0 {
					first = i
				}
				continue
			}
			same++
		}
		for i := range first {
			kl += sim.PerturbKL(pr.Text, i, 0, 0.1)
		}
		assert.InDelta(t, float64(same)/agreeTokens, *q.AgreeTop1Ratio, 1e-12, "%s: the unperturbed tokens agree, the others not", pr.Name)
		assert.Equal(t, first, *q.AgreeFirstDiff, pr.Name)
		if first > 0 {
			require.NotNil(t, q.AgreeKLMean, pr.Name)
			assert.InDelta(t, kl/float64(first), *q.AgreeKLMean, 1e-6, "%s: the simulator's own KL over the prefix", pr.Name)
			t.Logf("%s: %d of %d agree, first difference after %d, mean KL %.4f nats (the simulator's %.4f)", pr.Name, same, agreeTokens, first, *q.AgreeKLMean, kl/float64(first))
		}
		agreed += same
		compared += agreeTokens
		assert.False(t, *q.AgreeTextEqual, pr.Name)
		ref, _ := d.Run.QualityOf("sim", pr.Name)
		require.NotNil(t, ref.AgreeTop1Ratio, "the reference against itself, asked again")
		assert.Equal(t, 1.0, *ref.AgreeTop1Ratio, "the simulator answers alike at temperature 0")
		assert.True(t, *ref.AgreeTextEqual)
	}
	lo, hi := stats.WilsonZ(agreed, compared, 3.29)
	t.Logf("top-1 agreement %d of %d = %.3f, 99.9%% interval [%.3f, %.3f]", agreed, compared, float64(agreed)/float64(compared), lo, hi)
	assert.True(t, lo <= 0.9 && 0.9 <= hi, "0.9 outside [%.3f, %.3f]", lo, hi)
	assert.Less(t, agreed, compared, "a perturbed runtime agrees less than fully")
	run := d.Run.QualityRun
	require.NotNil(t, run)
	assert.Equal(t, 9, run.Requests, "one greedy reply a prompt and runtime, the reference's twice")
	assert.Equal(t, "sim", run.Reference)
	assert.Contains(t, log, "quality (BENCH_QUALITY=agree): untimed greedy replies from 2 runtimes before the timed rounds, at most 9 requests")
	assert.Contains(t, log, "quality: 9 requests, untimed, in ")
}

// Unperturbed, the two sides agree everywhere: top-1 1, KL 0, equal
// texts; a leaf run of sim@b reports them with its figures (as go test's
// result line and the .txt have them).
func TestQualityIdenticalRuntimesAgree(t *testing.T) {
	t.Parallel()
	d, _ := qualitySetup(t, map[string]string{"BENCH_QUALITY": "agree", "BENCH_PROMPTS": "short"})
	q, _ := d.Run.QualityOf("sim@b", "short")
	require.NotNil(t, q.AgreeTop1Ratio)
	require.NotNil(t, q.AgreeKLMean)
	assert.Equal(t, 1.0, *q.AgreeTop1Ratio)
	assert.InDelta(t, 0, *q.AgreeKLMean, 1e-12)
	assert.Equal(t, agreeTokens, *q.AgreeKLPositions)
	assert.True(t, *q.AgreeTextEqual)

	var k bench.Key
	for key := range d.Leaves() {
		if key.Runtime == "sim@b" {
			k = key
		}
	}
	out := runLeaf(t, d, k, 1)
	var reported metricsSeen
	out.Report(&reported)
	assert.Equal(t, 1.0, reported[figures.AgreeTop1.Unit])
	assert.Contains(t, reported, figures.AgreeKL.Unit)
	assert.NotContains(t, reported, figures.ExactAccuracy.Unit, "not measured")
	txt, err := d.Run.Benchfmt()
	require.NoError(t, err)
	assert.Contains(t, string(txt), "Unit agree-top1/tok better=higher")
	assert.Contains(t, string(txt), " 1 agree-top1/tok ")
}

// metricsSeen collects ReportMetric's values by unit.
type metricsSeen map[string]float64

func (m *metricsSeen) ReportMetric(x float64, unit string) {
	if *m == nil {
		*m = metricsSeen{}
	}
	(*m)[unit] = x
}

// A reference without log-probabilities is said before any timed
// request, and the texts are still compared, word by word.
func TestQualityReferenceWithoutLogprobs(t *testing.T) {
	t.Parallel()
	d, log := qualitySetup(t, map[string]string{"BENCH_QUALITY": "agree", "BENCH_PROMPTS": "short",
		"BENCH_REFERENCE": "sim@b", "SIM_B_LOGPROBS": "off", "SIM_B_PERTURB": "0.2"})
	assert.Contains(t, log, "the reference sim@b gives no log-probabilities: every runtime's agreement is of its text only")
	q, _ := d.Run.QualityOf("sim", "short")
	require.NotNil(t, q.AgreeTop1Ratio)
	assert.Equal(t, "word", q.AgreeBy)
	assert.Equal(t, "sim@b", q.Reference)
	assert.Nil(t, q.AgreeKLMean, "no KL without log-probabilities")
	assert.Less(t, *q.AgreeTop1Ratio, 1.0)
	assert.Greater(t, *q.AgreeTop1Ratio, 0.5)
}

// A reference that fails is said, and the next runtime is the reference
// instead.
func TestQualityReferenceThatFails(t *testing.T) {
	t.Parallel()
	d, log := qualitySetup(t, map[string]string{"BENCH_QUALITY": "agree", "BENCH_PROMPTS": "short",
		"BENCH_RUNTIMES": "sim@a,sim@b,sim@c", "SIM_A_FAULT": "http-500"})
	assert.Contains(t, log, "the reference sim@a did not answer a greedy request (")
	assert.Contains(t, log, "sim@b is the reference instead")
	q, _ := d.Run.QualityOf("sim@c", "short")
	require.NotNil(t, q.AgreeTop1Ratio)
	assert.Equal(t, "sim@b", q.Reference)
	assert.Equal(t, "sim@b", d.Run.QualityRun.Reference)
}

// The exact-answer pass asks every runtime every problem and scores it;
// the simulator answers words, never "Answer: N", so each scores 0 with
// every reply unparsed, and the log says that such accuracies measure
// nothing.
func TestQualityExactOnSim(t *testing.T) {
	t.Parallel()
	d, log := qualitySetup(t, map[string]string{"BENCH_QUALITY": "exact", "BENCH_PROMPTS": "short", "SIM_TOKENS_PER_SEC": "200000"})
	for _, rt := range []string{"sim", "sim@b"} {
		q, _ := d.Run.QualityOf(rt, "short")
		require.NotNil(t, q.ExactAccuracy, rt)
		assert.Equal(t, 0.0, *q.ExactAccuracy)
		assert.Equal(t, 60, *q.ExactAsked)
		assert.Equal(t, 60, *q.ExactUnparsed)
		assert.Equal(t, 0.0, *q.ExactLo)
		assert.InDelta(t, 0.06, *q.ExactHi, 0.005, "Wilson's upper bound of 0 of 60")
	}
	assert.Contains(t, log, "no runtime answered any problem right")
	assert.Equal(t, 120, d.Run.QualityRun.Requests)
}

// Off (the default), no quality request is sent and the rows have none
// of its keys.
func TestQualityOff(t *testing.T) {
	t.Parallel()
	d, log := qualitySetup(t, map[string]string{"BENCH_PROMPTS": "short"})
	assert.Nil(t, d.Run.QualityRun)
	_, ok := d.Run.QualityOf("sim@b", "short")
	assert.False(t, ok)
	assert.NotContains(t, log, "quality")
	data, err := d.Run.File().Encode()
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(data), `"quality"`), "no quality object in the summary")
}
