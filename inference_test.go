package inference

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/suite"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// s is set up by TestMain when benchmarks run.
var s *suite.Suite

func TestMain(m *testing.M) {
	flag.Parse()
	if !suite.Benchmarking() {
		os.Exit(m.Run())
	}
	var err error
	if s, err = suite.Setup(context.Background(), os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, suite.Prefix+err.Error())
		os.Exit(2)
	}
	s.HandleInterrupts() // Ctrl-C keeps the finished benchmarks' results
	code := m.Run()
	if err := s.Finish(); err != nil {
		fmt.Fprintln(os.Stderr, suite.Prefix+err.Error())
		code = max(code, 1)
	}
	os.Exit(code)
}

// BenchmarkInference runs one leaf per runtime × prompt × concurrency. One
// iteration is one round: n requests sent at once, done when all are.
func BenchmarkInference(b *testing.B) {
	for _, rt := range s.Runtimes {
		b.Run("runtime="+summary.Safe(rt.Name), func(b *testing.B) {
			for _, p := range s.Prompts {
				b.Run("prompt="+summary.Safe(p.Name), func(b *testing.B) {
					for _, n := range s.Settings.Concurrency {
						b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) { benchLeaf(b, rt, p, n) })
					}
				})
			}
		})
	}
}

func benchLeaf(b *testing.B, rt *runtimes.Runtime, p prompts.Prompt, n int) {
	key := summary.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p.Name, Concurrency: n}
	if skip, err := s.CheckReachable(key); err != nil {
		if skip {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	ctx, req := b.Context(), s.Request(p)
	progress := s.Leaf(strings.TrimPrefix(b.Name(), "BenchmarkInference/"))
	for i := range s.Settings.Warmups {
		progress.WarmUp(i+1, s.Settings.Warmups, round(ctx, rt, req, n))
	}
	var rounds []summary.Round
	for b.Loop() {
		rounds = append(rounds, round(ctx, rt, req, n))
		progress.Round(rounds[len(rounds)-1])
	}
	if err := s.Record(key, rounds); err != nil {
		b.Error(err)
	}
	m := summary.Compute(rounds)
	m.Report(b)
	switch {
	case m.Successes == 0:
		b.Errorf("all %d requests failed (%s); the first: %v", m.Requests, m.ErrorCounts(), m.FirstError)
	case m.Failures > 0:
		// A benchmark's log is always printed: the failures show, and the
		// figures of the successful requests still count.
		b.Logf("%d of %d requests failed (%s); the first: %v", m.Failures, m.Requests, m.ErrorCounts(), m.FirstError)
	}
}

func round(ctx context.Context, rt *runtimes.Runtime, req runtimes.Request, n int) summary.Round {
	wall, results := rt.Round(ctx, req, n)
	return summary.Round{Wall: wall, Results: results}
}
