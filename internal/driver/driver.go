// Package driver runs a benchmark: given the settings (config.Load's,
// and the simulator's from config.LoadSim; it reads no variable
// itself), it finds the runtimes (the ones named in BENCH_RUNTIMES, or
// those that answer on the known local ports, or else the built-in
// simulator), checks that the results can be written, runs each leaf's
// rounds and records them, rewrites the run's files after every leaf, and
// ends the run on Ctrl-C with what it finished. BenchmarkInference only says which leaves to run and reports
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
	"iter"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
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
	sides       map[string]*sim.Server // the simulators of sides sim@TAG, by name
	simCfg      sim.Config
	client      *http.Client
	log         io.Writer
	progress    *progress
	files       *files
	stopSignals func()
	leafRuns    int                      // leaf runs begun
	repetitions map[bench.Key]int        // leaf runs begun, by leaf
	power       *telemetry.Sampler       // nil: no power figures
	noMetrics   map[string]bool          // runtimes without Prometheus counters
	cachedSaid  map[string]bool          // runtimes whose missing cached tokens were said (noteCached)
	loaded      map[string]bool          // runtimes whose loaded model is described
	first       map[string]*firstLeaf    // runtime name → its first leaf run, for its control
	timed       map[string]time.Duration // runtime name → its leaf runs' timed rounds' time, for its control's budget
	// The log's lines held while a leaf runs (see logf).
	logMu   sync.Mutex
	holding bool
	held    []string
	sizes   map[string]map[string]*size // runtime → in<N> prompt → its size
	numCtx  int                         // Ollama's options.num_ctx, 0: none sent
	// follow are the follow-ups of each conversation (BENCH_TURNS − 1),
	// and conversations the conversations begun, for their ids.
	follow        []string
	conversations int
	// canaries are the canary replies of each leaf's first run.
	canaries map[bench.Key]*canary.Reply
	// work are the prompts of BENCH_WORKLOAD and of BENCH_INPUT_TOKENS'
	// distributions, by name; tools the JSON array of BENCH_TOOLS sent
	// with every request (nil: none), toolsSum the start of its file's
	// SHA-256 in hex (readTools).
	work     map[string]*work
	tools    json.RawMessage
	toolsSum string
	// noTools is, for each runtime whose server says its model takes no
	// tools, where it says so (runtimes.Info.TakesNoTools).
	noTools map[string]string
	// series is the metric series file (BENCH_METRICS_INTERVAL), nil
	// until a leaf run scrapes; seriesRun the scraper running, if any;
	// seriesSaid the runtimes whose /metrics has nothing for it, said.
	series     *telemetry.SeriesWriter
	seriesRun  *seriesScraper
	seriesSaid map[string]bool
	// images are BENCH_IMAGES, drawn once for the run and sent with every
	// request (checkImages); nil: none.
	images []runtimes.Image
	// servers are, by runtime, what of its server the machine's state
	// counts apart (machine.go); disturbed the leaf runs that other
	// processes disturbed, said at the end, of measuredRuns measured;
	// machineSaid the runtimes whose measurement failed, said once.
	servers      map[string]machineServer
	disturbed    []string
	measuredRuns int
	cores        int // the machine's, as last measured
	machineSaid  map[string]bool
	// find and snapshot stand in for machine.Find and machine.Take in
	// tests; nil: those.
	find     func(ports []int) machine.Servers
	snapshot func(machine.Servers) machine.Snapshot
	costs    // the server's memory and the cooldowns (servermem.go, cooldown.go)
	// qualityTime is what the quality pass took (BENCH_QUALITY,
	// quality.go), said as a share of the run at its end.
	qualityTime time.Duration
}

// nextConversation is the id of a new conversation: its number in the run.
// Only the benchmark's goroutine begins conversations.
func (d *Driver) nextConversation() int {
	d.conversations++
	return d.conversations
}

// Setup prepares the run of st (config.Load's), with simCfg for the
// simulator if it runs (config.LoadSim's); it reads no variable itself.
// Notices go to log (stderr). Every setting is checked, and the output
// folder proved writable, before any request is sent.
func Setup(ctx context.Context, log io.Writer, st config.Settings, simCfg sim.Config, opts Options) (*Driver, error) {
	if err := checkCPU(opts.CPU); err != nil {
		return nil, err
	}
	d := &Driver{Settings: st, opts: opts, log: log}
	ps, err := d.promptsOf(st, opts)
	if err != nil {
		return nil, err
	}
	tools, toolsSum, err := readTools(st.Tools)
	if err != nil {
		return nil, err
	}
	specs := st.Specs
	run := summary.NewRun(time.Now())
	out, err := openFiles(st.OutputDir, run.ID)
	if err != nil {
		return nil, err
	}
	run.ID = out.id

	*d = Driver{
		Settings: st, Prompts: ps, opts: opts, log: log, unavailable: map[string]error{},
		simCfg: simCfg,
		client: &http.Client{Transport: runtimes.NewTransport(maxConns(st))},
		Run:    run,
		files:  out,
		follow: prompts.FollowUps(st.Turns),
		work:   d.work,
		tools:  tools, toolsSum: toolsSum,
		noTools: map[string]string{},
	}
	d.Run.Cache = st.Cache
	d.Run.SLO = st.SLO.SLO
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
	d.warnWeights()
	if err := d.checkAPI(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if c := opts.Count; c > 0 && c < minSamples {
		d.logf("-count=%d: %s a leaf; scripts/compare.sh and cmd/compare give no verdict below %d (benchstat's confidence interval needs them): run with -count=%d or more to compare runs",
			c, plural(c, "sample"), minSamples, minSamples)
	}
	d.numCtx = d.fitNumCtx()
	if err := errors.Join(d.checkContext(), d.checkWorkloadContext(), d.checkTools(), d.checkImages(ctx)); err != nil {
		d.Close()
		return nil, err
	}
	// After the checks, so that a run they refuse sends no reset (a slot
	// erase, an unload) to the server.
	d.startFresh(ctx)
	d.saySides(ctx)
	for _, p := range d.Prompts {
		d.Run.Prompts = append(d.Run.Prompts, summary.Prompt{Name: p.Name, Text: d.promptText(p)})
	}
	d.Run.Host = DetectHost()
	d.Run.Host.Label = hostLabel(st.HostLabel, os.Hostname)
	if d.power, d.Run.Host.PowerSource, err = d.startPower(); err != nil {
		d.Close()
		return nil, err
	}
	d.Run.Arguments = d.arguments()
	d.measureQuality(ctx)
	return d, nil
}

// promptsOf are the prompts st selects, or an error naming the settings
// that chose them.
func (d *Driver) promptsOf(st config.Settings, opts Options) ([]prompts.Prompt, error) {
	ps, err := d.selectPrompts(st, opts)
	if err == nil {
		return ps, nil
	}
	if st.Workload != "" || len(st.InputLengths.Dists) > 0 {
		return nil, err
	}
	if len(st.InputTokens) > 0 {
		return nil, fmt.Errorf(envPrompts+"=%q, "+envInputTokens+"=%q: %w", strings.Join(st.Prompts, ","), st.InputTokens, err)
	}
	if st.PromptsDir != "" {
		return nil, fmt.Errorf(envPrompts+"=%q, "+envPromptsDir+"=%q: %w", strings.Join(st.Prompts, ","), st.PromptsDir, err)
	}
	return nil, fmt.Errorf(envPrompts+"=%q: %w", strings.Join(st.Prompts, ","), err)
}

// checkCPU refuses a -cpu list: go test would run every leaf once per
// value, and the runs would pool into one row of the summary.
func checkCPU(cpu string) error {
	if list := strings.Split(cpu, ","); len(list) > 1 {
		return fmt.Errorf("-cpu=%s: give one value or none; -cpu sets only the client's GOMAXPROCS, and with a list each benchmark would run once per value under one summary row", cpu)
	}
	return nil
}

// Leaves yields the leaf benchmarks in the order they run. Interleaved
// (BENCH_ORDER's default) and alternate: for each prompt, each
// concurrency (or a sweep's step, each runtime's sweep ending at its own
// knee: see sweepStop) and then each rate, every runtime in turn, so that
// runtimes alternate leaf by leaf and a machine that warms up through the
// run favours none of them. Grouped: all of one runtime's leaves in that
// order, then the next runtime's. The caller runs each leaf (all its
// -count repetitions) before asking for the next; BenchmarkInference asks
// LeafRuns, which alternates the repetitions too.
func (d *Driver) Leaves() iter.Seq[bench.Key] {
	return func(yield func(bench.Key) bool) {
		d.groups(func(keys []bench.Key) bool {
			for _, k := range keys {
				if !yield(k) {
					return false
				}
			}
			return true
		})
	}
}

// RepLevel begins the level BENCH_ORDER=alternate adds to the name of
// each leaf run go test runs, rep=<n>, n its repetition from 1: go test
// cannot alternate the -count repetitions of two benchmarks, so the
// driver yields each leaf -count times under names of their own. The
// .txt names the leaf runs without it (benchstat on go test's own output
// needs -ignore /rep).
const RepLevel = "rep="

// Alternates reports whether the leaf runs alternate (BENCH_ORDER=
// alternate): LeafRuns yields each leaf Options.Count times, and go
// test's -count must be 1 (TestMain sets it so).
func (d *Driver) Alternates() bool { return d.Settings.Order == config.OrderAlternate }

// LeafRuns yields the sub-benchmarks BenchmarkInference runs, each its
// name under BenchmarkInference and its leaf, in the order of Leaves.
// With BENCH_ORDER=alternate, the -count runs of every runtime's leaf at
// one prompt and load take turns, A1 B1 A2 B2 …, named
// <levels>/rep=<n>; otherwise each leaf once, named <levels>, and go test
// runs it -count times in a row.
func (d *Driver) LeafRuns() iter.Seq2[string, bench.Key] {
	return func(yield func(string, bench.Key) bool) {
		if !d.Alternates() {
			for k := range d.Leaves() {
				if !yield(k.Levels(), k) {
					return
				}
			}
			return
		}
		d.groups(func(keys []bench.Key) bool {
			for rep := 1; rep <= max(d.opts.Count, 1); rep++ {
				for _, k := range keys {
					if !yield(k.Levels()+"/"+RepLevel+strconv.Itoa(rep), k) {
						return false
					}
				}
			}
			return true
		})
	}
}

// groups yields the leaves in groups that run together: every runtime's
// leaf at one prompt and load (one runtime's alone when grouped). A
// group's leaves have all run when it asks for the next group, which a
// sweep's next step depends on.
func (d *Driver) groups(yield func([]bench.Key) bool) {
	if d.Settings.Order == config.OrderGrouped {
		for _, rt := range d.Runtimes {
			if !d.leavesOf([]*runtimes.Runtime{rt}, yield) {
				return
			}
		}
		return
	}
	d.leavesOf(d.Runtimes, yield)
}

// leavesOf yields the leaves of rts, every runtime's in one group at each
// prompt and load. It reports whether to go on.
func (d *Driver) leavesOf(rts []*runtimes.Runtime, yield func([]bench.Key) bool) bool {
	for _, p := range d.Prompts {
		keys := make([]bench.Key, len(rts))
		for i, rt := range rts {
			keys[i] = bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p.Name, API: d.Settings.API}
		}
		if k := d.work[p.Name]; k != nil && k.trace() {
			// A trace is one open loop at its recorded times, named by
			// its mean rate: no other load.
			if !yield(withLoad(keys, 0, k.rate)) {
				return false
			}
			continue
		}
		if !d.closedLoop(keys, yield) {
			return false
		}
		for _, r := range d.Settings.Rates {
			if !yield(withLoad(keys, 0, r)) {
				return false
			}
		}
	}
	return true
}

// withLoad is keys at concurrency n or rate r.
func withLoad(keys []bench.Key, n int, r float64) []bench.Key {
	out := slices.Clone(keys)
	for i := range out {
		out[i].Concurrency, out[i].Rate = n, r
	}
	return out
}

// closedLoop yields keys at each concurrency, or at each step of a sweep
// those whose sweep goes on. It reports whether to go on.
func (d *Driver) closedLoop(keys []bench.Key, yield func([]bench.Key) bool) bool {
	c := d.Settings.Concurrency
	if c.Sweep == 0 {
		for _, n := range c.Levels {
			if !yield(withLoad(keys, n, 0)) {
				return false
			}
		}
		return true
	}
	prev := make([]*summary.Row, len(keys))
	sweeping := make([]bool, len(keys))
	for i := range sweeping {
		sweeping[i] = true
	}
	for n := 1; slices.Contains(sweeping, true); n *= 2 {
		var step []bench.Key
		for i, k := range keys {
			if sweeping[i] {
				step = append(step, k)
			}
		}
		if !yield(withLoad(step, n, 0)) {
			return false
		}
		for i, k := range keys {
			if !sweeping[i] {
				continue
			}
			k.Concurrency = n
			row := d.row(k)
			if stop := sweepStop(row, prev[i], d.Run.SLO, n, c.Sweep); stop != nil {
				stop.Runtime, stop.Prompt = k.Runtime, k.Prompt
				d.Run.Arguments.Sweep.Stops = append(d.Run.Arguments.Sweep.Stops, *stop)
				d.logf("%s: the concurrency sweep stopped at %d (knee %d): %s", k.Levels(), stop.Concurrency, stop.Knee, stop.Reason)
				sweeping[i] = false
			}
			prev[i] = row
		}
	}
	return true
}

// row is the summary row of k as it stands, nil if k has none.
func (d *Driver) row(k bench.Key) *summary.Row {
	for _, r := range d.Run.Rows() {
		if r.Runtime == k.Runtime && r.Prompt == k.Prompt && r.Concurrency == k.Concurrency && r.RateRPS == nil {
			return &r
		}
	}
	return nil
}

// ConfigLines are the configuration lines go test must print before the
// benchmarks, as the .txt has them (summary.Run.Workload): "cache: cold",
// and "turns: 4", "shared-prefix: 1000" for such runs. Runs of different
// workloads are not comparable (a cold TTFT includes the whole prefill,
// turn 4's the history), so benchstat must keep them in separate tables.
func (d *Driver) ConfigLines() string {
	var b strings.Builder
	for _, c := range d.Run.Workload() {
		fmt.Fprintf(&b, "%s: %s\n", c.Key, c.Value)
	}
	return b.String()
}

// Finish writes the run's files a last time, marked complete, and stops
// the simulator. A run that sent no request writes no files. It says on
// the log how many requests failed, and fails if any leaf run had no
// successful request, if no benchmark sent a request, or if more requests
// failed than BENCH_MAX_FAILURES allows (config.DefaultMaxFailures, 5%,
// unless set).
func (d *Driver) Finish() error {
	defer d.Close()
	if d.Run.Len() == 0 {
		return nil // no benchmark ran
	}
	if requests, _, _ := d.Run.Failures(); requests > 0 {
		d.controls(context.Background())
	}
	requests, failures, classes := d.Run.Failures()
	if requests == 0 {
		d.files.remove() // the warm-ups' records, if any
		return errors.New("no benchmark sent a request: every runtime was skipped or could not be benchmarked; no files were written")
	}
	d.sayDisturbed()
	d.sayMarked()
	d.sayCooldown()
	d.sayQualityCost()
	d.Run.Complete = true
	if err := d.save(); err != nil {
		return err
	}
	d.logf("wrote %s, %s and %s", d.files.json, d.files.txt, d.files.records)
	var errs []error
	if failures > 0 {
		limit := config.DefaultMaxFailures
		if l := d.Settings.MaxFailures; l != nil {
			limit = *l
		}
		over := float64(failures) > limit*float64(requests)
		verdict := fmt.Sprintf("the run fails only above "+envMaxFailures+"=%v (%s of the requests)", limit, share(limit))
		if over {
			verdict = fmt.Sprintf("more than "+envMaxFailures+"=%v (%s of the requests) allows: the run fails", limit, share(limit))
		}
		d.logf("%d of %d requests failed (%s): see the errors in %s; %s", failures, requests, classes, d.files.json, verdict)
		if over {
			errs = append(errs, fmt.Errorf("%d of %d requests failed (%.1f%%), more than "+envMaxFailures+"=%v allows ("+envMaxFailures+"=1 never fails a run for its failed requests)",
				failures, requests, 100*float64(failures)/float64(requests), limit))
		}
	}
	// go test does not fail a run whose later -count repetitions fail;
	// the driver does, so that a script sees it.
	if failed := d.Run.Failed(); len(failed) > 0 {
		errs = append(errs, fmt.Errorf("%d leaf runs had no successful request, the first %s", len(failed), failed[0].Name()))
	}
	return errors.Join(errs...)
}

// share is a share as a percentage: "5%", "0.5%".
func share(x float64) string {
	return strconv.FormatFloat(100*x, 'f', -1, 64) + "%"
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
	d.closeSeries()
	d.closeMemory()
	if d.files != nil {
		d.files.close()
	}
	if d.power != nil {
		d.power.Close()
		d.power = nil
	}
	if d.sim != nil {
		d.sim.Close()
		d.sim = nil
	}
	for name, s := range d.sides {
		s.Close()
		delete(d.sides, name)
	}
}

// Prefix starts every line the driver prints. go test copies a test's
// stderr to its stdout, where benchstat reads a line "word: value" as a
// configuration key: one that differs between runs (a run id, a file
// name) would split benchstat's tables. A line starting with '[' is
// never read as one.
const Prefix = "[inference] "

// logf says a line on the log. While a leaf runs (between Begin and
// End) the line is held and goes in the leaf's Outcome.Notes, under its
// result line: go test prints a benchmark's name before it runs a -count
// repetition, and a line on stderr then would land in the middle of its
// result line.
func (d *Driver) logf(format string, args ...any) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if d.holding {
		d.held = append(d.held, fmt.Sprintf(format, args...))
		return
	}
	fmt.Fprintf(d.log, Prefix+format+"\n", args...)
}

// logNow says a line on the log at once, even while a leaf runs: for a
// run that ends there (an interrupt).
func (d *Driver) logNow(format string, args ...any) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	for _, h := range d.held {
		fmt.Fprintf(d.log, Prefix+"%s\n", h)
	}
	d.held = nil
	fmt.Fprintf(d.log, Prefix+format+"\n", args...)
}

// hold holds the log's lines from now on (a leaf begins); release stops
// holding them and returns those held.
func (d *Driver) hold() {
	d.logMu.Lock()
	d.holding = true
	d.logMu.Unlock()
}

func (d *Driver) release() []string {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	held := d.held
	d.holding, d.held = false, nil
	return held
}

// startFresh returns every runtime that can be benchmarked to a known
// state at the start (BENCH_FRESH=leaf), as before each leaf run: the way
// its server offers, or that it offers none, is said now, with the other
// notes on the runtimes, before the first result line.
func (d *Driver) startFresh(ctx context.Context) {
	for _, rt := range d.Runtimes {
		if d.unavailable[rt.Name] == nil {
			d.fresh(ctx, rt)
		}
	}
}

// minSamples is the fewest -count repetitions a leaf needs for
// benchstat's confidence interval, and so for a comparison's verdict.
const minSamples = 6

// maxConns is how many requests the run can have in flight to one
// server: the transport keeps that many idle connections.
func maxConns(st config.Settings) int {
	n := max(st.Concurrency.Max(), 1)
	if len(st.Rates) > 0 || st.Workload != "" {
		n = max(n, st.MaxInflight)
	}
	return n
}
