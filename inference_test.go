package inference

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// d drives the run; TestMain sets it up when benchmarks run.
var d *driver.Driver

func TestMain(m *testing.M) {
	flag.Parse()
	if flagValue("test.bench") == "" {
		os.Exit(m.Run())
	}
	count, _ := strconv.Atoi(flagValue("test.count"))
	opts := driver.Options{Benchtime: flagValue("test.benchtime"), Count: count, CPU: flagValue("test.cpu")}
	// The only place the run's variables are read (suite's, simulator's).
	st, err := config.Load()
	var simCfg sim.Config
	if err == nil {
		simCfg, err = config.LoadSim()
	}
	if err == nil {
		d, err = driver.Setup(context.Background(), os.Stderr, st, simCfg, opts)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, driver.Prefix+err.Error())
		os.Exit(2)
	}
	d.HandleInterrupts() // Ctrl-C keeps the finished benchmarks' results
	alternateRuns()
	// Configuration lines go test does not print, before the ones it
	// does: benchstat keeps runs whose lines differ in separate tables.
	fmt.Print(d.ConfigLines())
	code := m.Run()
	if err := d.Finish(); err != nil {
		fmt.Fprintln(os.Stderr, driver.Prefix+err.Error())
		code = max(code, 1)
	}
	os.Exit(code)
}

// BenchmarkInference runs one leaf per runtime × prompt × load, named
// runtime=<name>/prompt=<prompt>/conc=<n> or …/rate=<r>, each run …/rep=<n>
// under BENCH_ORDER=alternate. One iteration of a conc=n leaf is one round:
// n requests at once, done when all are; of a rate=r leaf, one arrival.
func BenchmarkInference(b *testing.B) {
	for name, k := range d.LeafRuns() {
		b.Run(name, func(b *testing.B) { benchLeaf(b, k) })
	}
}

func benchLeaf(b *testing.B, k bench.Key) {
	leaf, skip, err := d.Begin(b.Context(), k)
	if err != nil {
		if skip {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	leaf.WarmUp()
	for b.Loop() {
		leaf.Next()
	}
	out := leaf.End()
	out.Report(b)
	for _, note := range out.Notes {
		b.Log(note) // a benchmark's log is printed under its result line
	}
	for _, err := range []error{out.Failed, out.SaveErr} {
		if err != nil {
			b.Error(err)
		}
	}
}

// alternateRuns sets go test's -count to 1 when the runtimes' leaf runs
// alternate (BENCH_ORDER=alternate): the driver yields each leaf -count
// times itself, as …/rep=N, in turn with the other runtimes'.
func alternateRuns() {
	if d.Alternates() {
		_ = flag.Set("test.count", "1")
	}
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
