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
	// The only place the run's variables are read: the suite's and the
	// simulator's.
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
	if d.Alternates() {
		// The driver yields each leaf -count times (…/rep=N), alternating
		// the runtimes' runs; go test runs each once.
		_ = flag.Set("test.count", "1")
	}
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
// runtime=<name>/prompt=<prompt>/conc=<n> or …/rate=<r> (with
// BENCH_ORDER=alternate each of its runs, …/rep=<n>). One iteration of
// a conc=n leaf is one round: n requests sent at once, done when all are;
// of a rate=r leaf, one arrival of an open loop of r requests per second.
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

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
