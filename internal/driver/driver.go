// Package driver runs a benchmark: it reads the settings, finds the
// runtimes (the ones named in BENCH_RUNTIMES, or those that answer on the
// known local ports, or else the built-in simulator), checks that the
// results can be written, runs each leaf's rounds and records them, rewrites
// the run's files after every leaf, and ends the run on Ctrl-C with what it
// finished. BenchmarkInference only says which leaves to run and reports
// their figures.
//
// The measuring is in package runtimes, the statistics and file formats in
// package summary.
package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Options are the go test flags that shape a run.
type Options struct {
	Benchtime string // -test.benchtime as given, "" when not given
	Count     int    // -test.count
	CPU       string // -test.cpu as given
}

// The classes of a runtime that could not be benchmarked at all, counted
// once per leaf run in its row (see summary.Run.AddNotRun).
const (
	// ClassUnreachable: the runtime did not answer when the run started
	// (no connection, or no reply in time).
	ClassUnreachable runtimes.Class = "unreachable"
	// ClassUnavailable: the runtime answered when the run started but
	// cannot be benchmarked (an HTTP error, no model listed).
	ClassUnavailable runtimes.Class = "unavailable"
)

// Driver is one run: its settings, runtimes and prompts, the results so
// far and the files they go to.
type Driver struct {
	Settings config.Settings
	Runtimes []*runtimes.Runtime
	Prompts  []prompts.Prompt
	Run      *summary.Run

	opts        Options
	unavailable map[string]error // runtime name → why it cannot be benchmarked
	sim         *sim.Server
	simCfg      sim.Config
	client      *http.Client
	log         io.Writer
	progress    *progress
	files       *files
	stopSignals func()
	leafRuns    int                 // leaf runs begun
	repetitions map[summary.Key]int // leaf runs begun, by leaf
	loaded      map[string]bool     // runtimes whose loaded model is described
}

// Setup reads the environment and prepares the run. Notices go to log
// (stderr). Every setting is checked, and the output folder proved
// writable, before any request is sent.
func Setup(ctx context.Context, log io.Writer, opts Options) (*Driver, error) {
	st, err := config.Load()
	if err != nil {
		return nil, err
	}
	if err := checkCPU(opts.CPU); err != nil {
		return nil, err
	}
	ps, err := prompts.Load(st.Prompts, st.PromptsDir)
	if err != nil {
		if st.PromptsDir != "" {
			return nil, fmt.Errorf("BENCH_PROMPTS=%q, BENCH_PROMPTS_DIR=%q: %w", strings.Join(st.Prompts, ","), st.PromptsDir, err)
		}
		return nil, fmt.Errorf("BENCH_PROMPTS=%q: %w", strings.Join(st.Prompts, ","), err)
	}
	simCfg, err := sim.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	specs, err := runtimeSpecs(st.Runtimes)
	if err != nil {
		return nil, err
	}
	run := summary.NewRun(time.Now())
	out, err := openFiles(st.OutputDir, run.ID)
	if err != nil {
		return nil, err
	}
	run.ID = out.id

	d := &Driver{
		Settings: st, Prompts: ps, opts: opts, log: log, unavailable: map[string]error{},
		simCfg: simCfg,
		client: &http.Client{Transport: runtimes.NewTransport(maxInt(st.Concurrency))},
		Run:    run,
		files:  out,
	}
	d.Run.Cache = st.Cache
	d.Run.Versions = map[string]*string{}
	d.Run.ModelMetadata = map[string]json.RawMessage{}
	if d.progress, err = openProgress(st.Progress, d.fixedRounds()); err != nil {
		return nil, err
	}
	if len(st.Runtimes) > 0 {
		err = d.addNamed(ctx, specs)
	} else {
		err = d.addProbed(ctx, specs[:len(specs)-1], specs[len(specs)-1])
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	for _, p := range d.Prompts {
		d.Run.Prompts = append(d.Run.Prompts, summary.Prompt{Name: p.Name, Text: p.Text})
	}
	d.Run.Host = DetectHost()
	d.Run.Arguments = d.arguments()
	return d, nil
}

// checkCPU refuses a -cpu list: go test would run every leaf once per
// value, and the runs would pool into one row of the summary.
func checkCPU(cpu string) error {
	if list := strings.Split(cpu, ","); len(list) > 1 {
		return fmt.Errorf("-cpu=%s: give one value or none; -cpu sets only the client's GOMAXPROCS, and with a list each benchmark would run once per value under one summary row", cpu)
	}
	return nil
}

// Leaves returns the leaf benchmarks in the order they run: for each
// runtime, each prompt, each concurrency.
func (d *Driver) Leaves() []summary.Key {
	var keys []summary.Key
	for _, rt := range d.Runtimes {
		for _, p := range d.Prompts {
			for _, n := range d.Settings.Concurrency {
				keys = append(keys, summary.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p.Name, Concurrency: n})
			}
		}
	}
	return keys
}

// ConfigLines are the configuration lines go test must print before the
// benchmarks, as the .txt has them: "cache: cold". Cold and warm runs are
// not comparable (a cold TTFT includes the whole prefill), so benchstat
// must keep them in separate tables.
func (d *Driver) ConfigLines() string { return "cache: " + d.Settings.Cache + "\n" }

// Finish writes the run's files a last time, marked complete, and stops
// the simulator. A run that sent no request writes no files. It says on
// the log how many requests failed, and fails if any leaf run had no
// successful request, if no benchmark sent a request, or if more requests
// failed than BENCH_MAX_FAILURES allows.
func (d *Driver) Finish() error {
	defer d.Close()
	if d.Run.Len() == 0 {
		return nil // no benchmark ran
	}
	requests, failures, classes := d.Run.Failures()
	if requests == 0 {
		d.files.remove() // the warm-ups' records, if any
		return errors.New("no benchmark sent a request: every runtime was skipped or could not be benchmarked; no files were written")
	}
	d.Run.Complete = true
	if err := d.save(); err != nil {
		return err
	}
	d.logf("wrote %s, %s and %s", d.files.json, d.files.txt, d.files.records)
	var errs []error
	if failures > 0 {
		d.logf("%d of %d requests failed (%s): see the errors in %s", failures, requests, classes, d.files.json)
		if limit := d.Settings.MaxFailures; limit != nil && float64(failures) > *limit*float64(requests) {
			errs = append(errs, fmt.Errorf("%d of %d requests failed (%.1f%%), more than BENCH_MAX_FAILURES=%v allows",
				failures, requests, 100*float64(failures)/float64(requests), *limit))
		}
	}
	// go test does not fail a run whose later -count repetitions fail;
	// the driver does, so that a script sees it.
	if failed := d.Run.Failed(); len(failed) > 0 {
		errs = append(errs, fmt.Errorf("%d leaf runs had no successful request, the first %s", len(failed), failed[0].Name()))
	}
	return errors.Join(errs...)
}

// Close stops the interrupt handler, the progress output and the
// simulator.
func (d *Driver) Close() {
	if d.stopSignals != nil {
		d.stopSignals()
		d.stopSignals = nil
	}
	if d.progress != nil {
		d.progress.close()
	}
	if d.files != nil {
		d.files.close()
	}
	if d.sim != nil {
		d.sim.Close()
		d.sim = nil
	}
}

// Prefix starts every line the driver prints. go test copies a test's
// stderr to its stdout, where benchstat reads a line "word: value" as a
// configuration key: one that differs between runs (a run id, a file
// name) would split benchstat's tables. A line starting with '[' is
// never read as one.
const Prefix = "[inference] "

func (d *Driver) logf(format string, args ...any) {
	fmt.Fprintf(d.log, Prefix+format+"\n", args...)
}

func maxInt(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
