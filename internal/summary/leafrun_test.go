package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func other(x float64) *LeafRun {
	lr := &LeafRun{OtherCPUCores: &x, Cores: 2}
	if x > 0.5 {
		lr.Disturbed, lr.Why = true, "other processes used much"
	}
	return lr
}

// A row's leaf_runs are its leaf runs that have a result line, in the
// .txt's order: a leaf run whose every request failed has none, and
// none here either.
func TestRowLeafRunsFollowResultLines(t *testing.T) {
	a := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	b := a
	b.Concurrency = 4
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	failed := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Failed()}}}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, ok, Telemetry{Machine: other(0.1)})
	r.Add(b, ok, Telemetry{Machine: other(0.2)})
	r.Add(a, failed, Telemetry{Machine: other(0.9)})
	r.Add(b, ok, Telemetry{Machine: other(0.7)})
	r.Add(a, ok, Telemetry{Machine: other(0.3)})
	rows := r.Rows()
	require.Len(t, rows, 2)
	cores := func(lrs []LeafRun) []float64 {
		var out []float64
		for _, lr := range lrs {
			out = append(out, *lr.OtherCPUCores)
		}
		return out
	}
	assert.Equal(t, []float64{0.1, 0.3}, cores(rows[0].LeafRuns), "the failed leaf run has no result line")
	assert.Equal(t, []float64{0.2, 0.7}, cores(rows[1].LeafRuns))
	assert.True(t, rows[1].LeafRuns[1].Disturbed)

	txt, err := r.Benchfmt()
	require.NoError(t, err)
	back := readBenchfmt(t, txt)
	assert.Len(t, back.results, len(rows[0].LeafRuns)+len(rows[1].LeafRuns), "one leaf run per result line")
}

// A run whose driver measured nothing (made-up rows, files before the
// key) has no leaf_runs: not measured, which is not "undisturbed".
func TestRowLeafRunsAbsentWhenNotMeasured(t *testing.T) {
	a := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}, Telemetry{})
	js, err := r.File().Encode()
	require.NoError(t, err)
	assert.NotContains(t, string(js), "leaf_runs")
	assert.NotContains(t, string(js), "busy_max")

	data, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	require.NoError(t, err)
	f, err := Decode(data)
	require.NoError(t, err)
	require.NotEmpty(t, f.Summary)
	for _, row := range f.Summary {
		assert.Nil(t, row.LeafRuns, "a file without the key reads as not measured")
	}
	assert.Nil(t, f.Arguments.BusyMax)
}

// The written keys, as cmd/compare and cmd/history read them: null where
// unknown, why only when disturbed.
func TestLeafRunsJSON(t *testing.T) {
	a := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	r := NewRun(time.Unix(0, 0))
	busyMax := 0.25
	r.Arguments.BusyMax = &busyMax
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	mhz := 1290.0
	r.Add(a, ok, Telemetry{Machine: &LeafRun{OtherCPUCores: ptr(0.93), Cores: 2, GPUMHzMean: &mhz, Disturbed: true, Why: "other processes used 0.93 of 2 cores"}})
	r.Add(a, ok, Telemetry{Machine: &LeafRun{Cores: 2}})
	js, err := r.File().Encode()
	require.NoError(t, err)
	var raw struct {
		Arguments map[string]any `json:"arguments"`
		Summary   []struct {
			LeafRuns []map[string]any `json:"leaf_runs"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal(js, &raw))
	assert.Equal(t, 0.25, raw.Arguments["busy_max"])
	require.Len(t, raw.Summary, 1)
	assert.Equal(t, []map[string]any{
		{"other_cpu_cores": 0.93, "cores": 2.0, "gpu_mhz_mean": 1290.0, "disturbed": true, "why": "other processes used 0.93 of 2 cores"},
		{"other_cpu_cores": nil, "cores": 2.0, "gpu_mhz_mean": nil, "disturbed": false},
	}, raw.Summary[0].LeafRuns)

	f, err := Decode(js)
	require.NoError(t, err)
	assert.Equal(t, r.Rows()[0].LeafRuns, f.Summary[0].LeafRuns, "read back as written")
}

func ptr(x float64) *float64 { return &x }

// A row's disturbance: its disturbed leaf runs counted, the most other
// processes used among them, the machine's cores; none for a row whose
// leaf runs were quiet or not measured.
func TestRowDisturbance(t *testing.T) {
	cores := func(v float64) *float64 { return &v }
	r := Row{LeafRuns: []LeafRun{
		{OtherCPUCores: cores(0.1), Cores: 2},
		{OtherCPUCores: cores(0.9), Cores: 2, Disturbed: true},
		{OtherCPUCores: cores(1.4), Cores: 2, Disturbed: true},
		{OtherCPUCores: nil, Cores: 2},
	}}
	n, most, c := r.Disturbance()
	assert.Equal(t, 2, n)
	assert.Equal(t, 1.4, most)
	assert.Equal(t, 2, c)
	n, _, _ = (&Row{}).Disturbance()
	assert.Zero(t, n, "not measured: not disturbed")
}

// A row's memory is its leaf runs': the mean at the timed parts' ends,
// the most any held; a server on another machine has none, said.
func TestRowMemory(t *testing.T) {
	a := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	far := a
	far.Runtime = "remote"
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	mem := func(end, peak uint64) *LeafRun {
		return &LeafRun{Cores: 2, ServerMemory: MemoryServer, ServerRSSBytes: &end, ServerRSSPeakBytes: &peak}
	}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, ok, Telemetry{Machine: mem(1000, 1500)})
	r.Add(a, ok, Telemetry{Machine: mem(3000, 3100)})
	r.Add(far, ok, Telemetry{Machine: &LeafRun{Cores: 2, ServerMemory: MemoryRemote}})
	rows := r.Rows()
	require.Len(t, rows, 2)
	require.NotNil(t, rows[0].ServerRSSBytes)
	assert.Equal(t, uint64(2000), *rows[0].ServerRSSBytes)
	assert.Equal(t, uint64(3100), *rows[0].ServerRSSPeakBytes)
	assert.Equal(t, MemoryServer, rows[0].ServerMemory)
	assert.Nil(t, rows[1].ServerRSSBytes, "not this machine's: no figure, not 0")
	assert.Nil(t, rows[1].ServerRSSPeakBytes)
	assert.Equal(t, MemoryRemote, rows[1].ServerMemory)

	b, err := json.Marshal(rows[1])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"server_memory":"not this machine's"`)
	assert.NotContains(t, string(b), "server_rss_bytes")
}

// A leaf run reports its server's memory at its most (server-rss-B) only
// where it was a server's on this machine: not the simulator's (the
// suite's own process, the client's memory too), not one elsewhere, not
// one not measured.
func TestLeafRunReportsServerMemory(t *testing.T) {
	peak := uint64(175 << 20)
	for _, tc := range []struct {
		name string
		lr   *LeafRun
		want values
	}{
		{"server", &LeafRun{ServerMemory: MemoryServer, ServerRSSPeakBytes: &peak}, values{{Value: float64(peak), Unit: "server-rss-B"}}},
		{"simulator", &LeafRun{ServerMemory: MemorySelf, ServerRSSPeakBytes: &peak}, nil},
		{"elsewhere", &LeafRun{ServerMemory: MemoryRemote}, nil},
		{"server, no reading", &LeafRun{ServerMemory: MemoryServer}, nil},
		{"not measured", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got values
			tc.lr.Report(&got)
			assert.Equal(t, tc.want, got)
		})
	}
}

// The .txt has the server's memory on the result line of each leaf run
// that measured a server's, with its Unit line (lower is better); a run
// without any has neither, as before the figure.
func TestTxtHasServerMemory(t *testing.T) {
	k := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	peak := uint64(175 << 20)
	r := NewRun(time.Unix(0, 0))
	r.Add(k, ok, Telemetry{Machine: &LeafRun{ServerMemory: MemoryServer, ServerRSSPeakBytes: &peak}})
	r.Add(k, ok, Telemetry{Machine: &LeafRun{ServerMemory: MemorySelf, ServerRSSPeakBytes: &peak}})
	txt, err := r.Benchfmt()
	require.NoError(t, err)
	assert.Contains(t, string(txt), "Unit server-rss-B better=lower\n")
	assert.Equal(t, 1, strings.Count(string(txt), " 1.835008e+08 server-rss-B"), string(txt))

	without := NewRun(time.Unix(0, 0))
	without.Add(k, ok, Telemetry{Machine: &LeafRun{ServerMemory: MemorySelf, ServerRSSPeakBytes: &peak}})
	txt, err = without.Benchfmt()
	require.NoError(t, err)
	assert.NotContains(t, string(txt), "server-rss-B")
}
