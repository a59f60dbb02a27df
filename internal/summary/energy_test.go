package summary

import (
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRowEnergy(t *testing.T) {
	r := NewRun(time.Now())
	k := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
	var outs []reported
	for i, cover := range []time.Duration{time.Second, 1400 * ms} { // the second leaf run is covered 1.0 of 1.4 s
		t0 := time.Now().Add(time.Duration(i) * time.Hour)
		samples := samplesOf(t0, 14, 14, 14, 14, 14)
		if i == 1 {
			for j := range samples {
				samples[j].CPUTempC = 90
			}
		}
		rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{sent(t0, 200*ms, time.Second, 50, 100)}}}
		tel := Telemetry{Power: powerOf(t, samples, t0, t0.Add(cover), 4)}
		tel.Energy = stats.ShareEnergy(rounds, tel.Power)
		m := r.Add(k, rounds, tel)
		out := reported{}
		stats.Report(out, m, tel.Power)
		outs = append(outs, out)
	}
	assert.InDelta(t, 0.14, outs[0][figures.Energy.Unit], 1e-9, "14 J / 100 tokens")
	assert.InDelta(t, 0.10, outs[0][figures.NetEnergy.Unit], 1e-9, "(14 − 4) J / 100 tokens")
	assert.NotContains(t, outs[1], figures.Energy.Unit, "a leaf run covered 71% has no energy on its result line")
	assert.NotContains(t, outs[1], figures.NetEnergy.Unit)
	assert.Contains(t, outs[1], figures.Power.Unit)

	row := r.Rows()[0]
	require.NotNil(t, row.NetEnergyJ)
	assert.InDelta(t, 10.0, *row.NetEnergyJ, 1e-9, "the first leaf run's only")
	assert.InDelta(t, 14.0, *row.EnergyJ, 1e-9)
	assert.InDelta(t, 0.14, *row.EnergyJPerOutputToken, 1e-9)
	assert.InDelta(t, 0.10, *row.NetEnergyJPerOutputToken, 1e-9)
	assert.InDelta(t, 10.0, *row.NetPowerWMean, 1e-9)
	assert.InDelta(t, 2.0/2.4, *row.PowerCoverage, 1e-9, "covered 2.0 of 2.4 s")
	assert.InDelta(t, 10.0, *row.EnergyJPerRequestMean, 1e-9)
	assert.InDelta(t, 2.0, *row.PrefillEnergyJPerRequestMean, 1e-9)
	assert.InDelta(t, 8.0, *row.DecodeEnergyJPerRequestMean, 1e-9)
	assert.InDelta(t, 2.0/50, *row.PrefillEnergyJPerPromptToken, 1e-9, "0.2 s × 10 W over 50 prompt tokens")
	assert.InDelta(t, 8.0/100, *row.DecodeEnergyJPerOutputToken, 1e-9)
	require.NotNil(t, row.CPUTempCStart)
	assert.Equal(t, 50.0, *row.CPUTempCStart, "the first leaf run's, not the hotter second's")
	assert.Equal(t, 40.0, *row.GPUTempCStart)
}

// samplesOf returns one sample per power, 200 ms apart, the k-th (from 0)
// read at t0 + (k+1)·200ms, covering (t0 + k·200ms, t0 + (k+1)·200ms].
func samplesOf(t0 time.Time, watts ...float64) []telemetry.Sample {
	out := make([]telemetry.Sample, len(watts))
	for k, w := range watts {
		out[k] = telemetry.Sample{At: t0.Add(time.Duration(k+1) * 200 * ms), AllPowerW: w, CPUTempC: 50 + float64(k), GPUTempC: 40}
	}
	return out
}

// powerOf is the figures of [from, to] with the idle baseline idle.
func powerOf(t *testing.T, samples []telemetry.Sample, from, to time.Time, idle float64) *telemetry.Figures {
	t.Helper()
	f, err := telemetry.WindowFigures(samples, 200*ms, from, to)
	require.NoError(t, err)
	f.SetIdle(idle)
	return &f
}

// sent is a successful request sent at start, its first token at ttft,
// done at total.
func sent(start time.Time, ttft, total time.Duration, prompt, output int) runtimes.Result {
	r := done(ttft, total, output)
	r.Start, r.PromptTokens = start, prompt
	return r
}

type reported map[string]float64

func (r reported) ReportMetric(v float64, unit string) { r[unit] = v }
