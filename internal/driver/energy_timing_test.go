//go:build timing

// The energy tests against a scripted power trace: the stand-in macmon
// plays idle watts, then busy watts, by the wall clock from its start, and
// each test times its leaves against that script. On a loaded machine the
// stand-in's lines, or the leaves, come late and the figures miss their 1%
// (TestCoverageWarningScriptedTrace's trace even stops before the leaf has
// begun), so they run apart: go test -tags timing -p 1 ./internal/driver/.

package driver

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// The trace of the energy tests: the stand-in draws idleW for idleS
// seconds from its start, then busyW.
const (
	idleW, busyW = 4.0, 20.0
	idleS        = 1.6
)

// energySetup sets up a run of the simulator with the stand-in macmon
// playing trace, a 1 s idle baseline, and returns once the trace is surely
// past its idle part. The baseline began after the trace did and lasted
// 1 s, so the trace began at least 1 s before setup returned and is busy
// idleS − 1 s after.
func energySetup(t *testing.T, trace string, extra map[string]string) (*Driver, *bytes.Buffer) {
	t.Helper()
	t.Setenv("FAKE_MACMON_TRACE", trace)
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms",
		"BENCH_IDLE_POWER_S": "1", "BENCH_WARMUPS": "0", "BENCH_CANARY": "off",
		"SIM_TTFT": "40ms", "SIM_TOKENS_PER_SEC": "500", "BENCH_MAX_TOKENS": "50", // 140 ms a request
	}, extra)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	time.Sleep(time.Duration((idleS - 1 + 0.3) * float64(time.Second)))
	return d, &log
}

// leafRecords are the timed request records of k's leaf runs.
func leafRecords(t *testing.T, d *Driver, k bench.Key) []records.Record {
	t.Helper()
	all, err := records.Read(d.files.records)
	require.NoError(t, err)
	var out []records.Record
	for _, r := range all {
		if r.Timed() && r.Concurrency == k.Concurrency && r.Prompt == k.Prompt {
			out = append(out, r)
		}
	}
	return out
}

// With the stand-in playing idle watts and then busy watts, the idle
// baseline reads the idle watts; a leaf's net energy is (busy − idle) ×
// its timed part; its requests' shares add up to it; at concurrency 1
// each request's prefill and decode get (busy − idle) × their own time.
//
// Not parallel: the stand-in reads its trace from the process's
// environment, and the energy is timed.
func TestNetEnergyScriptedTrace(t *testing.T) {
	d, log := energySetup(t, "4:1.6,20", nil)
	h := d.Run.Host
	require.NotNil(t, h.IdlePowerW, "log: %s", log)
	assert.InEpsilon(t, idleW, *h.IdlePowerW, 0.01, "the baseline reads the trace's idle watts")
	assert.InEpsilon(t, idleW*0.16, *h.IdleCPUPowerW, 0.01)
	assert.InEpsilon(t, idleW*0.8, *h.IdleGPUPowerW, 0.01)
	assert.InEpsilon(t, idleW*0.04, *h.IdleANEPowerW, 0.01)
	require.NotNil(t, h.IdlePowerWSD)
	assert.Less(t, *h.IdlePowerWSD, 0.05)
	assert.Contains(t, log.String(), "idle power 4.00 W")
	assert.NotContains(t, log.String(), "spread widely")
	assert.Equal(t, stats.Number(1), d.Run.Arguments.IdlePowerS)

	for _, conc := range []int{1, 4} {
		k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: conc}
		out := runLeaf(t, d, k, 6)
		require.NotNil(t, out.Power, "notes: %v", out.Notes)
		f := out.Power
		net := (busyW - idleW) * f.WindowS
		t.Logf("conc=%d: timed part %.3fs, %d samples, coverage %.3f, net %.3f J, want (20 − 4) W × %.3fs = %.3f J",
			conc, f.WindowS, f.Samples, f.Coverage(), f.NetEnergyJ, f.WindowS, net)
		assert.InEpsilon(t, net, f.NetEnergyJ, 0.01, "net energy = (busy − idle) × timed seconds")
		assert.InEpsilon(t, busyW-idleW, f.NetPowerWMean, 0.01)

		got := reported{}
		out.Report(got)
		assert.InEpsilon(t, f.NetEnergyJ/float64(out.Metrics.OutputTokens), got[figures.NetEnergy.Unit], 1e-9)
		assert.InEpsilon(t, f.EnergyJ/float64(out.Metrics.OutputTokens), got[figures.Energy.Unit], 1e-9)

		recs := leafRecords(t, d, k)
		require.Len(t, recs, 6*conc)
		var sum, prefill, decode, ttft, total float64
		for _, r := range recs {
			require.NotNil(t, r.EnergyJ, "every timed record has its share")
			require.NotNil(t, r.TTFTS)
			assert.InDelta(t, *r.EnergyJ, *r.PrefillEnergyJ+*r.DecodeEnergyJ, 1e-9)
			sum += *r.EnergyJ
			prefill += *r.PrefillEnergyJ
			decode += *r.DecodeEnergyJ
			ttft += *r.TTFTS
			total += r.TotalS
		}
		t.Logf("conc=%d: the requests' shares add up to %.3f J of the leaf's %.3f J; prefill %.3f J, decode %.3f J", conc, sum, f.NetEnergyJ, prefill, decode)
		assert.InEpsilon(t, f.NetEnergyJ, sum, 0.01, "per-request sums = the leaf's net energy")

		row := d.row(k)
		require.NotNil(t, row)
		require.NotNil(t, row.NetEnergyJ)
		assert.InEpsilon(t, f.NetEnergyJ, *row.NetEnergyJ, 1e-9)
		assert.InEpsilon(t, f.NetEnergyJ/float64(out.Metrics.OutputTokens), *row.NetEnergyJPerOutputToken, 1e-9)
		assert.InEpsilon(t, sum/float64(len(recs)), *row.EnergyJPerRequestMean, 1e-9)
		assert.InEpsilon(t, prefill/float64(len(recs)), *row.PrefillEnergyJPerRequestMean, 1e-9)
		assert.InEpsilon(t, decode/float64(len(recs)), *row.DecodeEnergyJPerRequestMean, 1e-9)
		assert.InEpsilon(t, decode/float64(out.Metrics.OutputTokens), *row.DecodeEnergyJPerOutputToken, 1e-9)
		require.NotNil(t, row.PrefillEnergyJPerPromptToken)
		assert.InDelta(t, 1, *row.PowerCoverage, 0.05)
		require.NotNil(t, row.CPUTempCStart)
		assert.InDelta(t, 55.47723, *row.CPUTempCStart, 1e-6, "the stand-in's temperature")
		assert.InDelta(t, 49.3385, *row.GPUTempCStart, 1e-6)

		if conc == 1 {
			// One request at a time: each phase gets the power above idle
			// of its own time; only the client's gaps between rounds (a
			// few hundred µs) go to the requests beside them.
			perS := busyW - idleW
			t.Logf("conc=1: prefill %.4f J against (20 − 4) W × Σ TTFT %.4fs = %.4f J; decode %.4f J against %.4f J",
				prefill, ttft, perS*ttft, decode, perS*(total-ttft))
			assert.InEpsilon(t, perS*ttft, prefill, 0.01, "prefill = (busy − idle) × its time")
			assert.InEpsilon(t, perS*(total-ttft), decode, 0.01, "decode = (busy − idle) × its time")
			for _, r := range recs {
				assert.InEpsilon(t, perS**r.TTFTS, *r.PrefillEnergyJ, 0.05, "a request's prefill")
				assert.InEpsilon(t, perS*(r.TotalS-*r.TTFTS), *r.DecodeEnergyJ, 0.05, "a request's decode")
			}
		}
	}
}

// A trace that stops during a leaf leaves its timed part covered less than
// 80%: the leaf says so, its row has power_coverage and no energy figures,
// and its result line no J/tok.
func TestCoverageWarningScriptedTrace(t *testing.T) {
	d, _ := energySetup(t, "4:1.6,20:1.2,stop", nil)
	require.NotNil(t, d.Run.Host.IdlePowerW)
	k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}
	// 25 rounds of 140 ms: 3.5 s, of which at most about 1.5 s is before
	// the trace stops.
	out := runLeaf(t, d, k, 25)
	require.NotNil(t, out.Power, "notes: %v", out.Notes)
	t.Logf("coverage %.3f; notes %q", out.Power.Coverage(), out.Notes)
	assert.Less(t, out.Power.Coverage(), telemetry.MinCoverage)
	var note string
	for _, n := range out.Notes {
		if strings.Contains(n, "no energy figures") {
			note = n
		}
	}
	assert.Contains(t, note, "macmon's samples cover")
	assert.Contains(t, note, "less than 80%")
	got := reported{}
	out.Report(got)
	assert.NotContains(t, got, figures.Energy.Unit)
	assert.NotContains(t, got, figures.NetEnergy.Unit)
	assert.Contains(t, got, figures.Power.Unit)

	row := d.row(k)
	require.NotNil(t, row)
	require.NotNil(t, row.PowerCoverage)
	assert.InDelta(t, out.Power.Coverage(), *row.PowerCoverage, 1e-9)
	assert.Nil(t, row.EnergyJ)
	assert.Nil(t, row.EnergyJPerOutputToken)
	assert.Nil(t, row.NetEnergyJ)
	assert.Nil(t, row.NetEnergyJPerOutputToken)
	assert.Nil(t, row.EnergyJPerRequestMean)
	for _, r := range leafRecords(t, d, k) {
		assert.Nil(t, r.EnergyJ, "no share from too few samples")
	}
}

// A baseline that spreads widely (the Mac was busy) is said and kept.
func TestIdleBaselineSpread(t *testing.T) {
	t.Setenv("FAKE_MACMON_TRACE", "2:0.3,12:0.3,2:0.3,12:0.3,2:0.3,12:0.3,2:0.3,12")
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms",
		"BENCH_IDLE_POWER_S": "1",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	d.Close()
	require.NotNil(t, d.Run.Host.IdlePowerW)
	require.NotNil(t, d.Run.Host.IdlePowerWSD)
	assert.Greater(t, *d.Run.Host.IdlePowerWSD, 2.0, "log: %s", log.String())
	assert.Contains(t, log.String(), "the idle baseline spread widely")
	assert.Contains(t, log.String(), "it is kept")
}
