package summary

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
)

type readBack struct {
	results []*benchfmt.Result
	units   benchfmt.UnitMetadataMap
}

func readBenchfmt(t *testing.T, data []byte) readBack {
	t.Helper()
	rd := benchfmt.NewReader(bytes.NewReader(data), "run.txt")
	var out readBack
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			out.results = append(out.results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt syntax error: %v", rec)
		}
	}
	require.NoError(t, rd.Err())
	out.units = rd.Units()
	return out
}

func TestBenchfmtReadsBack(t *testing.T) {
	r := fixtureRun("0.28.0+cpu", fixtureCreated)
	data, err := r.Benchfmt()
	require.NoError(t, err)
	got := readBenchfmt(t, data)

	leaves := r.snapshot()
	require.Len(t, got.results, len(leaves), "one result line per Add, -count repetitions included")
	for i, res := range got.results {
		l := leaves[i]
		name := l.key.Name() + "-8"
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, name, res.Name.String(), "in Add order")
			assert.Equal(t, len(l.rounds), res.Iters, "iterations are rounds")

			var config []string
			for _, c := range res.Config {
				assert.True(t, c.File, c.Key)
				config = append(config, c.Key+": "+string(c.Value))
			}
			assert.Equal(t, []string{
				"cache: cold", "goos: linux", "goarch: amd64",
				"pkg: github.com/inferencebench/inferencebench", "cpu: Fixture CPU @ 3.00GHz",
			}, config, "only what two runs of one setup share, and the cache mode, which must keep cold and warm runs apart")

			m := stats.Compute(l.rounds, stats.SLO{})
			want := map[string]float64{
				"sec/op":           m.Wall.Mean,
				"ttft-sec":         m.TTFT.Mean,
				"ttfc-sec":         m.TTFC.Mean,
				"tpot-sec":         m.TPOT.Mean,
				"tpot-p50-sec":     m.TPOT.P50,
				"decode-tok/s":     m.Decode.Mean,
				"decode-p50-tok/s": m.Decode.P50,
				"request-tok/s":    m.Request.Mean,
				"agg-tok/s":        m.Aggregate.Mean,
			}
			if l.key.Runtime == "ollama" {
				// Ollama's own figures: its prompt and decode rates.
				want["prompt-tok/s"] = m.Prompt.Mean
				want["server-decode-tok/s"] = m.ServerDecode.Mean
			}
			var units []string
			for _, v := range res.Values {
				units = append(units, v.Unit)
			}
			assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), units)
			for unit, w := range want {
				v, ok := res.Value(unit)
				require.True(t, ok, unit)
				assert.InDelta(t, w, v, 1e-9, unit)
			}
			assert.Equal(t, "ns/op", res.Values[0].OrigUnit, "ns/op first, as go test prints it")
		})
	}

	for _, unit := range []string{"ttft-ns", "ttfc-ns", "tpot-ns", "tpot-p50-ns"} {
		assert.Equal(t, -1, got.units.GetBetter(unit), unit)
	}
	for _, unit := range []string{"decode-tok/s", "decode-p50-tok/s", "request-tok/s", "agg-tok/s", "prompt-tok/s"} {
		assert.Equal(t, 1, got.units.GetBetter(unit), unit)
	}
}

func TestGoldenBenchfmt(t *testing.T) {
	data, err := fixtureRun("0.28.0+cpu", fixtureCreated).Benchfmt()
	require.NoError(t, err)
	golden(t, "testdata/golden.txt", data)
}

// Nothing that differs between two runs of one setup may reach the file: a
// differing config line would split benchstat's tables.
func TestBenchfmtHasNothingRunSpecific(t *testing.T) {
	a, err := fixtureRun("0.28.0+cpu", fixtureCreated).Benchfmt()
	require.NoError(t, err)
	b, err := fixtureRun("0.29.1", fixtureCreated.Add(36*time.Hour)).Benchfmt()
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	assert.NotContains(t, string(a), "20260831")
	assert.NotContains(t, string(a), "0.28.0")
}

func TestBenchfmtNames(t *testing.T) {
	r := NewRun(fixtureCreated)
	r.Add(bench.Key{Runtime: "lm studio", Prompt: "short", Concurrency: 4}, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 900*ms, 10)}}}, Telemetry{})

	r.Add(bench.Key{Runtime: "never-ran", Prompt: "short", Concurrency: 1}, nil, Telemetry{})
	data, err := r.Benchfmt()
	require.NoError(t, err)
	got := readBenchfmt(t, data)

	require.Len(t, got.results, 1, "a leaf without rounds prints no line, as in go test")
	want := "Inference/runtime=lm_studio/prompt=short/conc=4"
	if p := runtime.GOMAXPROCS(0); p != 1 {
		want += "-" + strconv.Itoa(p)
	}
	assert.Equal(t, want, got.results[0].Name.String())
	assert.Contains(t, string(data), "\nBenchmark"+want+" 1 1e+09 ns/op ")
	assert.Len(t, r.Rows(), 2, "the JSON still lists the leaf")
}

// The real benchstat reads the file and compares two saved runs.
func TestBenchstatComparesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchstat")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to run go tool benchstat")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, goBin, "env", "GOMOD").Output()
	require.NoError(t, err)
	root := filepath.Dir(strings.TrimSpace(string(gomod)))

	dir := t.TempDir()
	old := fixtureRun("0.28.0+cpu", fixtureCreated)
	writeTxt := func(r *Run, name string) string {
		data, err := r.Benchfmt()
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	oldTxt := writeTxt(old, "old.txt")
	newTxt := writeTxt(fixtureRun("0.29.1", fixtureCreated.Add(time.Hour)), "new.txt")

	benchstat := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, goBin, append([]string{"tool", "benchstat"}, args...)...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go tool benchstat %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}

	one := benchstat(oldTxt)
	for _, l := range old.snapshot() {
		assert.Contains(t, one, l.key.Name()+"-8")
	}
	for _, unit := range []string{"sec/op", "ttft-sec", "agg-tok/s", "decode-tok/s", "request-tok/s", "prompt-tok/s"} {
		assert.Contains(t, one, unit, "benchstat shows ttft-ns tidied to seconds")
	}

	both := benchstat(oldTxt, newTxt)
	lines := strings.Split(both, "\n")
	var headers, vsBase int
	for _, line := range lines {
		if strings.Contains(line, oldTxt) && strings.Contains(line, newTxt) {
			headers++ // a table with both runs side by side
		}
		if strings.Contains(line, "vs base") {
			vsBase++
		}
	}
	// 11 units: sec/op, ttft, ttfc, tpot and its p50, decode and its p50,
	// Ollama's server decode, request, agg, prompt.
	assert.Equal(t, 11, headers, "one table per unit, not split by config:\n%s", both)
	assert.Equal(t, 11, vsBase, "every table compares:\n%s", both)
	assert.Equal(t, 1, strings.Count(both, "pkg: "+Pkg), "one config block:\n%s", both)

	byRuntime := benchstat("-col", "/runtime", oldTxt)
	assert.Contains(t, byRuntime, "Inference/prompt=short/conc=1-8")
	assert.Contains(t, byRuntime, "vllm-metal")
}
