// Package suite sets up a benchmark run: it reads the settings, finds the
// runtimes (probing the known local ports, or starting the simulator),
// reads their metadata, and at the end writes the run's files.
//
// It is the glue between the environment and BenchmarkInference; the
// measuring is in package runtimes and the statistics in package summary.
package suite

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// ProbeTimeout bounds the check of each known local port when
// BENCH_RUNTIMES is unset.
const ProbeTimeout = 300 * time.Millisecond

// Suite is one run's setup and its results.
type Suite struct {
	Settings config.Settings
	Runtimes []*runtimes.Runtime
	Prompts  []prompts.Prompt
	Run      *summary.Run

	unavailable map[string]error // runtime name → why it cannot be benchmarked
	sim         *sim.Server
	simCfg      sim.Config
	client      *http.Client
	log         io.Writer
	progress    io.Writer // nil: no progress lines
	closeProg   func()

	// saveMu serialises writing the run's files, and holds an interrupt
	// back until a write under way has finished.
	saveMu            sync.Mutex
	idChosen          bool
	jsonPath, txtPath string // set by the first write
	saved             int    // leaf runs in the files
	stopInterrupts    func()
}

// Setup reads the environment and prepares the run. Notices go to log
// (stderr). Every setting is checked before any request is sent.
func Setup(ctx context.Context, log io.Writer) (*Suite, error) {
	st, err := config.Load()
	if err != nil {
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
	names := st.Runtimes
	if len(names) == 0 {
		names = slices.Concat(config.ProbeOrder, []string{config.Sim})
	}
	var specs []config.Runtime
	for _, name := range names {
		spec, err := config.LoadRuntime(name)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}

	s := &Suite{
		Settings: st, Prompts: ps, log: log, unavailable: map[string]error{},
		simCfg: simCfg,
		client: &http.Client{Transport: runtimes.NewTransport(maxInt(st.Concurrency))},
		Run:    summary.NewRun(time.Now()),
	}
	s.Run.Versions = map[string]*string{}
	s.Run.ModelMetadata = map[string]json.RawMessage{}
	if s.progress, s.closeProg, err = openProgress(st.Progress); err != nil {
		return nil, err
	}
	if len(st.Runtimes) > 0 {
		err = s.addNamed(ctx, specs)
	} else {
		err = s.addProbed(ctx, specs[:len(specs)-1], specs[len(specs)-1])
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	for _, p := range s.Prompts {
		s.Run.Prompts = append(s.Run.Prompts, summary.Prompt{Name: p.Name, Text: p.Text})
	}
	s.Run.Host = summary.DetectHost()
	s.Run.Arguments = s.arguments()
	return s, nil
}

// addNamed adds the runtimes of BENCH_RUNTIMES. One that cannot be
// described stays, marked unreachable (it does not answer) or unavailable
// (it answers, but with an error or no model): its benchmarks fail with the
// reason, or are skipped if unreachable and BENCH_SKIP_UNREACHABLE=1, and
// the others still run.
func (s *Suite) addNamed(ctx context.Context, specs []config.Runtime) error {
	for _, spec := range specs {
		rt, err := s.open(spec)
		if err != nil {
			return err
		}
		info, err := rt.Describe(ctx)
		if err != nil {
			s.unavailable[rt.Name] = err
			switch {
			case !unreachable(err):
				s.logf("%v", err)
			case s.Settings.SkipUnreachable:
				s.logf("%v; skipping its benchmarks (BENCH_SKIP_UNREACHABLE=1)", err)
			default:
				s.logf("%v; its benchmarks will fail (BENCH_SKIP_UNREACHABLE=1 skips them)", err)
			}
		}
		s.record(rt, info)
	}
	return nil
}

// unreachable tells a runtime that did not answer (no connection, or no
// reply in time) from one that answered with something wrong.
func unreachable(err error) bool {
	switch runtimes.ErrorClass(err) {
	case runtimes.ClassConnect, runtimes.ClassTimeout:
		return true
	}
	return false
}

// addProbed adds, with BENCH_RUNTIMES unset, the known runtimes that
// answer on their ports within ProbeTimeout and can be benchmarked, or
// else the simulator.
func (s *Suite) addProbed(ctx context.Context, known []config.Runtime, simSpec config.Runtime) error {
	answered := make([]bool, len(known))
	var wg sync.WaitGroup
	var tried []string
	for i, spec := range known {
		tried = append(tried, spec.Name+" "+runtimes.RedactURL(spec.URL))
		wg.Go(func() {
			rt, err := runtimes.New(spec.Name, spec.Kind, spec.URL, spec.Model, spec.APIKey, 0, nil)
			if err != nil {
				return
			}
			pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
			defer cancel()
			answered[i] = rt.Ping(pctx) == nil
		})
	}
	wg.Wait()
	for i, spec := range known {
		if !answered[i] {
			continue
		}
		rt, err := s.open(spec)
		if err != nil {
			return err
		}
		info, err := rt.Describe(ctx)
		if err != nil {
			s.logf("BENCH_RUNTIMES is unset; %s answers at %s but cannot be benchmarked, skipping it: %v", spec.Name, rt.BaseURL, err)
			continue
		}
		s.logf("BENCH_RUNTIMES is unset; found %s at %s", spec.Name, rt.BaseURL)
		s.record(rt, info)
	}
	if len(s.Runtimes) > 0 {
		return nil
	}
	s.logf("BENCH_RUNTIMES is unset and no runtime answered on the known local ports (%s)", strings.Join(tried, ", "))
	s.logf("benchmarking the built-in simulator \"sim\" instead; set BENCH_RUNTIMES to choose runtimes")
	rt, err := s.open(simSpec)
	if err != nil {
		return err
	}
	info, err := rt.Describe(ctx)
	if err != nil {
		return fmt.Errorf("the simulator: %w", err)
	}
	s.record(rt, info)
	return nil
}

// open returns the runtime of spec, starting the simulator for "sim".
func (s *Suite) open(spec config.Runtime) (*runtimes.Runtime, error) {
	url := spec.URL
	if spec.Name == config.Sim {
		if s.sim == nil {
			var err error
			if s.sim, err = sim.Start(s.simCfg); err != nil {
				return nil, fmt.Errorf("starting the simulator: %w", err)
			}
		}
		url = s.sim.URL
	}
	rt, err := runtimes.New(spec.Name, spec.Kind, url, spec.Model, spec.APIKey, time.Duration(s.Settings.Timeout), s.client)
	if err != nil {
		return nil, err
	}
	rt.IdleTimeout = time.Duration(s.Settings.IdleTimeout)
	return rt, nil
}

// record adds rt to the suite and its metadata to the run.
func (s *Suite) record(rt *runtimes.Runtime, info runtimes.Info) {
	s.Runtimes = append(s.Runtimes, rt)
	r := s.Run
	r.Versions[rt.Name] = info.Version
	r.ModelMetadata[rt.Name] = info.Models
	r.Runtimes = append(r.Runtimes, summary.RuntimeInfo{Name: rt.Name, Kind: string(rt.Kind), BaseURL: rt.BaseURL, Model: rt.Model})
}

func (s *Suite) arguments() summary.Arguments {
	st := s.Settings
	a := summary.Arguments{
		OutputDir:   st.OutputDir,
		Warmups:     st.Warmups,
		Concurrency: st.Concurrency,
		MaxTokens:   st.MaxTokens,
		Seed:        st.Seed,
		Timeout:     time.Duration(st.Timeout).Seconds(),
		IdleTimeout: time.Duration(st.IdleTimeout).Seconds(),
		Temperature: st.Temperature,
		Benchtime:   flagValue("test.benchtime"),
	}
	var names []string
	for _, rt := range s.Runtimes {
		names = append(names, rt.Name)
		url, model := rt.BaseURL, rt.Model
		switch {
		case rt.Kind == runtimes.KindOllama && a.OllamaURL == nil:
			a.OllamaURL, a.OllamaModel = &url, &model
		case strings.HasPrefix(rt.Name, "vllm") && a.VLLMURL == nil:
			a.VLLMURL, a.VLLMModel = &url, &model
		}
	}
	a.Runtime = strings.Join(names, ",")
	for _, p := range s.Prompts {
		a.Prompts = append(a.Prompts, p.Name)
	}
	if n := fixedRounds(); n > 0 {
		a.Rounds = &n
	}
	if v, err := strconv.Atoi(flagValue("test.count")); err == nil {
		a.Count = &v
	}
	return a
}

// Unavailable returns why rt cannot be benchmarked, or nil.
func (s *Suite) Unavailable(rt *runtimes.Runtime) error { return s.unavailable[rt.Name] }

// CheckReachable returns nil if k's runtime could be described at the
// start. If not, it records the leaf run as not run (a row with the reason,
// class unreachable or unavailable) and returns the error for the
// benchmark to fail with, or, with skip set (an unreachable runtime and
// BENCH_SKIP_UNREACHABLE=1), to skip with; the message says which.
func (s *Suite) CheckReachable(k summary.Key) (skip bool, err error) {
	why := s.unavailable[k.Runtime]
	if why == nil {
		return false, nil
	}
	class := runtimes.ClassUnavailable
	if unreachable(why) {
		class = runtimes.ClassUnreachable
	}
	s.Run.AddNotRun(k, class, why)
	if err := s.save(); err != nil {
		return false, fmt.Errorf("%w; and %w", why, err)
	}
	switch {
	case class == runtimes.ClassUnavailable:
		return false, why
	case s.Settings.SkipUnreachable:
		return true, fmt.Errorf("skipped (BENCH_SKIP_UNREACHABLE=1): %w", why)
	}
	return false, fmt.Errorf("%w (set BENCH_SKIP_UNREACHABLE=1 to skip runtimes that do not answer)", why)
}

// Record adds one finished leaf run to the run and rewrites the run's
// files, so that a run interrupted later keeps it.
func (s *Suite) Record(k summary.Key, rounds []summary.Round) error {
	s.Run.Add(k, rounds)
	return s.save()
}

// save writes the run's files as they stand, atomically (see
// summary.Run.WriteFiles). The first write picks a run id that no file in
// BENCH_OUTPUT_DIR has yet.
func (s *Suite) save() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if !s.idChosen {
		// Check, then write: two runs whose first writes fall in the same
		// instant could still pick the same id.
		s.Run.ID = freeID(s.Settings.OutputDir, s.Run.ID)
		s.idChosen = true
	}
	s.Run.CompletedAt = time.Now()
	n := s.Run.Len()
	js, txt, err := s.Run.WriteFiles(s.Settings.OutputDir)
	if err != nil {
		return fmt.Errorf("writing results to BENCH_OUTPUT_DIR=%q: %w", s.Settings.OutputDir, err)
	}
	if s.jsonPath == "" {
		s.logf("results go to %s and %s, rewritten after each benchmark", js, txt)
	}
	s.jsonPath, s.txtPath, s.saved = js, txt, n
	return nil
}

// freeID returns id, or id-2, id-3, … if a run of that id is already in
// dir (two runs started in the same second).
func freeID(dir, id string) string {
	cand := id
	for i := 2; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, cand+".json")); errors.Is(err, fs.ErrNotExist) {
			return cand
		}
		cand = id + "-" + strconv.Itoa(i)
	}
}

// HandleInterrupts makes SIGINT (Ctrl-C) and SIGTERM end the run at once,
// after a write of the run's files under way has finished: the files keep
// every leaf run that finished, the one under way is lost. The process
// exits with 128 + the signal's number.
func (s *Suite) HandleInterrupts() {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			// A second signal kills the process, should the write under
			// way hang.
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			s.saveMu.Lock() // never released: no write starts after this
			if s.jsonPath != "" {
				s.logf("interrupted (%v): the %d finished benchmark runs are in %s and %s; the one under way is lost",
					sig, s.saved, s.jsonPath, s.txtPath)
			} else {
				s.logf("interrupted (%v) before any benchmark finished; nothing was written", sig)
			}
			// Nothing is closed: the exit ends the simulator and the
			// connections, and Close may be running on another goroutine.
			code := 130
			if n, ok := sig.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	s.stopInterrupts = func() {
		signal.Stop(ch)
		close(done)
	}
}

// Request is the request every benchmark of prompt p sends.
func (s *Suite) Request(p prompts.Prompt) runtimes.Request {
	return runtimes.Request{Prompt: p.Text, MaxTokens: s.Settings.MaxTokens, Seed: s.Settings.Seed, Temperature: s.Settings.Temperature}
}

// Finish writes the run's files a last time, marked complete, if any
// benchmark ran, and stops the simulator. It fails if any leaf run had no
// successful request.
func (s *Suite) Finish() error {
	defer s.Close()
	if s.Run == nil || s.Run.Len() == 0 {
		return nil
	}
	s.Run.Complete = true
	if err := s.save(); err != nil {
		return err
	}
	s.logf("wrote %s and %s", s.jsonPath, s.txtPath)
	if s.Run.Requests() == 0 {
		return errors.New("no benchmark sent a request: every runtime was skipped or could not be benchmarked")
	}
	// go test does not fail a run whose later -count repetitions fail;
	// the suite does, so that a script sees it.
	if failed := s.Run.Failed(); len(failed) > 0 {
		return fmt.Errorf("%d leaf runs had no successful request, the first %s", len(failed), failed[0].Name())
	}
	return nil
}

// Close stops the interrupt handler, the progress output and the
// simulator.
func (s *Suite) Close() {
	if s.stopInterrupts != nil {
		s.stopInterrupts()
		s.stopInterrupts = nil
	}
	s.closeRuntimes()
}

// closeRuntimes closes the progress output and the simulator, if started.
func (s *Suite) closeRuntimes() {
	if s.closeProg != nil {
		s.closeProg()
		s.closeProg = nil
	}
	if s.sim != nil {
		s.sim.Close()
		s.sim = nil
	}
}

// Prefix starts every line the suite prints. go test copies a test's
// stderr to its stdout, where benchstat reads a line "word: value" as a
// configuration key: one that differs between runs (a run id, a file
// name) would split benchstat's tables. A line starting with '[' is
// never read as one.
const Prefix = "[inference] "

func (s *Suite) logf(format string, args ...any) {
	fmt.Fprintf(s.log, Prefix+format+"\n", args...)
}

// Benchmarking reports whether this test binary was asked to run
// benchmarks (-test.bench set).
func Benchmarking() bool { return flagValue("test.bench") != "" }

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func maxInt(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
