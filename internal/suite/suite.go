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
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
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
	log         io.Writer
	progress    io.Writer // nil: no progress lines
	closeProg   func()
}

// Setup reads the environment and prepares the run. Progress and notices
// go to log (stderr: stdout is benchstat's input). A bad setting is an
// error, before any request is sent.
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
	s := &Suite{Settings: st, Prompts: ps, log: log, unavailable: map[string]error{}}
	if s.progress, s.closeProg, err = openProgress(st.Progress); err != nil {
		return nil, err
	}

	specs, err := s.runtimeSpecs(ctx)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: runtimes.NewTransport(maxInt(st.Concurrency))}
	for _, spec := range specs {
		url := spec.URL
		if spec.Name == config.Sim {
			if s.sim == nil {
				cfg, err := sim.ConfigFromEnv()
				if err != nil {
					return nil, err
				}
				if s.sim, err = sim.Start(cfg); err != nil {
					return nil, fmt.Errorf("starting the simulator: %w", err)
				}
			}
			url = s.sim.URL
		}
		rt, err := runtimes.New(spec.Name, spec.Kind, url, spec.Model, spec.APIKey, time.Duration(st.Timeout), client)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%sURL: %w", runtimes.EnvPrefix(spec.Name), err)
		}
		s.Runtimes = append(s.Runtimes, rt)
	}
	s.Run = summary.NewRun(time.Now())
	s.describe(ctx)
	return s, nil
}

// runtimeSpecs returns the runtimes named in BENCH_RUNTIMES or, with it
// unset, those that answer on the known local ports, or else the simulator.
func (s *Suite) runtimeSpecs(ctx context.Context) ([]config.Runtime, error) {
	var specs []config.Runtime
	if len(s.Settings.Runtimes) > 0 {
		for _, name := range s.Settings.Runtimes {
			spec, err := config.LoadRuntime(name)
			if err != nil {
				return nil, err
			}
			specs = append(specs, spec)
		}
		return specs, nil
	}
	found := make([]*config.Runtime, len(config.ProbeOrder))
	var wg sync.WaitGroup
	var tried []string
	for i, name := range config.ProbeOrder {
		spec, err := config.LoadRuntime(name)
		if err != nil {
			return nil, err
		}
		tried = append(tried, name+" "+runtimes.RedactURL(spec.URL))
		wg.Go(func() {
			rt, err := runtimes.New(spec.Name, spec.Kind, spec.URL, spec.Model, spec.APIKey, 0, nil)
			if err != nil {
				return
			}
			pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
			defer cancel()
			if rt.Ping(pctx) == nil {
				found[i] = &spec
			}
		})
	}
	wg.Wait()
	for _, f := range found {
		if f != nil {
			specs = append(specs, *f)
			s.logf("BENCH_RUNTIMES is unset; found %s at %s", f.Name, runtimes.RedactURL(f.URL))
		}
	}
	if len(specs) == 0 {
		s.logf("BENCH_RUNTIMES is unset and no runtime answered on the known local ports (%s)", strings.Join(tried, ", "))
		s.logf("benchmarking the built-in simulator \"sim\" instead; set BENCH_RUNTIMES to choose runtimes")
		spec, err := config.LoadRuntime(config.Sim)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

// describe reads each runtime's version and models into the run's
// metadata. A runtime that does not answer is marked unavailable: its
// benchmarks fail with the reason, and the others still run.
func (s *Suite) describe(ctx context.Context) {
	r := s.Run
	r.Versions = map[string]*string{}
	r.ModelMetadata = map[string]json.RawMessage{}
	for _, rt := range s.Runtimes {
		info, err := rt.Describe(ctx)
		if err != nil {
			s.unavailable[rt.Name] = err
			s.logf("%v", err)
		}
		r.Versions[rt.Name] = info.Version
		r.ModelMetadata[rt.Name] = info.Models
		r.Runtimes = append(r.Runtimes, summary.RuntimeInfo{Name: rt.Name, Kind: string(rt.Kind), BaseURL: rt.BaseURL, Model: rt.Model})
	}
	for _, p := range s.Prompts {
		r.Prompts = append(r.Prompts, summary.Prompt{Name: p.Name, Text: p.Text})
	}
	r.Host = summary.DetectHost()
	r.Arguments = s.arguments()
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

// Request is the request every benchmark of prompt p sends.
func (s *Suite) Request(p prompts.Prompt) runtimes.Request {
	return runtimes.Request{Prompt: p.Text, MaxTokens: s.Settings.MaxTokens, Seed: s.Settings.Seed, Temperature: s.Settings.Temperature}
}

// Finish writes the run's summary JSON and benchstat file, if any
// benchmark ran, and stops the simulator.
func (s *Suite) Finish() error {
	defer s.Close()
	if s.Run == nil || s.Run.Len() == 0 {
		return nil
	}
	s.Run.CompletedAt = time.Now()
	js, txt, err := s.Run.WriteFiles(s.Settings.OutputDir)
	if err != nil {
		return fmt.Errorf("writing results to BENCH_OUTPUT_DIR=%q: %w", s.Settings.OutputDir, err)
	}
	s.logf("wrote %s and %s", js, txt)
	return nil
}

// Close stops the simulator, if it was started.
func (s *Suite) Close() {
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
