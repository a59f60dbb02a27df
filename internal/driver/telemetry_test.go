package driver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// standInMacmon is the telemetry package's stand-in macmon, which prints
// macmon's lines with a constant power (FAKE_MACMON_WATTS).
func standInMacmon(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "telemetry", "testdata", "macmon"))
	require.NoError(t, err)
	return p
}

// With macmon, a leaf's timed part gets power and energy figures: here a
// stand-in that draws 20 W, so the energy is 20 W × the timed part, and
// each output token's share of it is on the result line as J/tok.
//
// Not parallel: the stand-in, a process of its own, reads its power from
// the process's environment, and the energy is timed.
func TestPowerFigures(t *testing.T) {
	t.Setenv("FAKE_MACMON_WATTS", "20")
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms",
		"BENCH_WARMUPS": "0", "SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "1000",
		"BENCH_MAX_TOKENS":   "100", // 120 ms a request
		"BENCH_IDLE_POWER_S": "0",   // no baseline: energy_test.go has it
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	require.NotNil(t, d.Run.Host.PowerSource)
	assert.Equal(t, "macmon 0.8.2", *d.Run.Host.PowerSource)
	assert.Contains(t, log.String(), "measuring power with macmon 0.8.2")

	out := runLeaf(t, d, bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 2}, 5)
	require.NotNil(t, out.Power, "notes: %v", out.Notes)
	f := out.Power
	assert.GreaterOrEqual(t, f.Samples, 3)
	assert.InEpsilon(t, 20*f.WindowS, f.EnergyJ, 0.05, "energy = 20 W × the timed part")
	got := reported{}
	out.Report(got)
	assert.InEpsilon(t, 20.0, got["W"], 0.01)
	assert.InEpsilon(t, f.EnergyJ/float64(out.Metrics.OutputTokens), got["J/tok"], 1e-9)

	rows := d.Run.Rows()
	require.Len(t, rows, 1)
	r := rows[0]
	require.NotNil(t, r.EnergyJ)
	assert.InEpsilon(t, f.EnergyJ, *r.EnergyJ, 1e-9)
	assert.InEpsilon(t, 20.0, *r.PowerWMean, 0.01)
	assert.InEpsilon(t, f.EnergyJ/1000, *r.EnergyJPerOutputToken, 1e-9, "5 rounds × 2 requests × 100 tokens")
	assert.Equal(t, f.Samples, *r.PowerSamples)
}

// BENCH_POWER=on with no macmon stops the run at setup; auto goes on
// without power figures.
func TestPowerOnNeedsMacmon(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_MACMON": filepath.Join(t.TempDir(), "no-macmon"), "BENCH_POWER": "on",
	})
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_POWER=on, BENCH_MACMON="`)
	assert.Contains(t, err.Error(), "brew install macmon")

	env["BENCH_POWER"] = "auto"
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	d.Close()
	assert.Nil(t, d.Run.Host.PowerSource)
}

// A server with Prometheus counters gets the difference over each leaf's
// timed part in its row; one without (404) is asked once, and nothing
// fails.
func TestServerCounters(t *testing.T) {
	t.Parallel()
	for _, withMetrics := range []bool{true, false} {
		t.Run(fmt.Sprint("metrics=", withMetrics), func(t *testing.T) {
			t.Parallel()
			url, _ := promptServer(t)
			var generated, scrapes atomic.Int64
			metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/metrics" {
					// Everything else goes to the prompt server.
					resp, err := http.Post(url+r.URL.Path, "application/json", r.Body)
					if err == nil {
						defer resp.Body.Close()
						w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
						w.WriteHeader(resp.StatusCode)
						buf := new(bytes.Buffer)
						buf.ReadFrom(resp.Body)
						w.Write(buf.Bytes())
						if r.URL.Path == "/v1/chat/completions" {
							generated.Add(2)
						}
					}
					return
				}
				scrapes.Add(1)
				if !withMetrics {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/plain; version=0.0.4")
				fmt.Fprintf(w, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} %d\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 0\n", generated.Load())
			}))
			t.Cleanup(metrics.Close)
			env := merge(isolated(t), map[string]string{
				"BENCH_RUNTIMES": "mine", "MINE_URL": metrics.URL, "BENCH_WARMUPS": "1",
				"BENCH_MAX_TOKENS": "2", // what the server sends
			})
			var log bytes.Buffer
			d, err := setup(context.Background(), env, &log, Options{})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			for range 2 {
				out := runLeaf(t, d, bench.Key{Runtime: "mine", Model: "m", Prompt: "short", Concurrency: 4}, 3)
				assert.Empty(t, out.Notes, "the server's count agrees with the client's")
			}
			r := d.Run.Rows()[0]
			if !withMetrics {
				assert.Nil(t, r.ServerMetrics)
				assert.Nil(t, r.ServerGeneratedTokens)
				assert.Equal(t, int64(1), scrapes.Load(), "a server without /metrics is asked once")
				assert.NotContains(t, log.String(), "counters")
				return
			}
			assert.Equal(t, int64(4), scrapes.Load(), "before and after each leaf run's timed part")
			require.NotNil(t, r.ServerGeneratedTokens)
			assert.Equal(t, 2.0*2*3*4, *r.ServerGeneratedTokens, "2 tokens × 4 requests × 3 rounds × 2 repetitions; not the warm-ups'")
			assert.Equal(t, 0.0, r.ServerMetrics["vllm:num_requests_running"])
		})
	}
}

type reported map[string]float64

func (r reported) ReportMetric(v float64, unit string) { r[unit] = v }
