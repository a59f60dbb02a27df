package summary

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"golang.org/x/perf/benchfmt"
)

// Workload are the configuration lines that say what work the run's
// requests did, which runs must share to be compared: cache (cold or
// warm), and, when not 1 and 0, turns and shared-prefix, and images when
// requests sent any (BENCH_IMAGES). The driver prints them before the
// benchmarks; the .txt has them first.
func (r *Run) Workload() []benchfmt.Config {
	var config []benchfmt.Config
	add := func(k, v string) { config = append(config, benchfmt.Config{Key: k, Value: []byte(v), File: true}) }
	if r.Cache != "" {
		add(KeyCache, r.Cache)
	}
	if t := r.Arguments.Turns; t > 1 {
		add(KeyTurns, strconv.Itoa(t))
	}
	if p := r.Arguments.SharedPrefix; p > 0 {
		add(KeySharedPrefix, strconv.Itoa(p))
	}
	if im := r.Arguments.Images; im != "" {
		add(KeyImages, im)
	}
	// Leaves of embeddings runs are named alike whatever their batch: a
	// request of 4 inputs must not be compared with one of 1 as the same
	// work. A batch of 1 has no line, so files from before the key compare.
	if b := r.Arguments.EmbedBatch; b > 1 {
		add(KeyEmbedBatch, strconv.Itoa(b))
	}
	return config
}

// Benchfmt returns what `go test -bench` would have printed for r's leaf
// runs, in the Go benchmark format that benchstat reads; docs/metrics.md
// lists its names, units and configuration lines.
func (r *Run) Benchfmt() ([]byte, error) {

	// Only what is the same for two runs of one setup: a config line that
	// differs (a run ID, a version, a time) would split benchstat's tables.
	// The workload's lines first, as go test's output has them: the
	// driver prints them before the benchmarks start.
	config := r.Workload()
	config = append(config, []benchfmt.Config{
		{Key: "goos", Value: []byte(r.goos()), File: true},
		{Key: "goarch", Value: []byte(r.goarch()), File: true},
		{Key: "pkg", Value: []byte(Pkg), File: true},
	}...)
	if r.Host.CPU != "" {
		config = append(config, benchfmt.Config{Key: "cpu", Value: []byte(r.Host.CPU), File: true})
	}
	var results []bench.Result
	for _, l := range r.snapshot() {
		m := l.m
		if m.Successes == 0 {
			// go test prints no result for a benchmark that ran no
			// iteration or failed (every request failed): neither has
			// figures worth comparing.
			continue
		}
		res := bench.Result{Key: l.key, Procs: l.procs, Iters: len(l.rounds)}
		res.Values = append(res.Values, benchfmt.Value{Value: math.Round(m.Wall.Mean * 1e9), Unit: "ns/op"})
		var extra values
		stats.Report(&extra, m, l.tel.Power)
		r.qualityOf(l.key).Report(&extra)
		l.tel.Machine.Report(&extra)
		// go test prints the reported metrics sorted by unit.
		slices.SortFunc(extra, func(a, b benchfmt.Value) int { return strings.Compare(a.Unit, b.Unit) })
		res.Values = append(res.Values, extra...)
		results = append(results, res)
	}
	return bench.Encode(config, results)
}

// values collects Report's metrics.
type values []benchfmt.Value

func (v *values) ReportMetric(x float64, unit string) {
	*v = append(*v, benchfmt.Value{Value: x, Unit: unit})
}

func (r *Run) goos() string {
	if r.Host.OS != "" {
		return r.Host.OS
	}
	return runtime.GOOS
}

func (r *Run) goarch() string {
	if r.Host.Arch != "" {
		return r.Host.Arch
	}
	return runtime.GOARCH
}
