package summary

import (
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
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
		samples := resulttest.Samples(t0, 14, 14, 14, 14, 14)
		if i == 1 {
			for j := range samples {
				samples[j].CPUTempC = 90
			}
		}
		rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Sent(t0, 200*ms, time.Second, 50, 100)}}}
		tel := Telemetry{Power: resulttest.Power(t, samples, t0, t0.Add(cover), 4)}
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

type reported map[string]float64

func (r reported) ReportMetric(v float64, unit string) { r[unit] = v }
