package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Leaf is one run of a leaf benchmark (one -count repetition of one
// runtime × prompt × concurrency): its warm-ups, its timed rounds, and
// their record.
type Leaf struct {
	d       *Driver
	ctx     context.Context
	key     summary.Key
	rt      *runtimes.Runtime
	req     runtimes.Request
	n       int // this leaf run's number in the run, from 1
	count   int // this leaf's -count repetition, from 1
	warmups int // warm-up rounds run
	// recordErr is the first failure to write the request records.
	recordErr error
	rounds    []summary.Round
	progress  leafProgress
}

// Begin starts a run of the leaf k. An error means it must not run: its
// runtime could not be benchmarked at the start. The run's files then get
// a row that says why (class unreachable or unavailable), and skip says
// whether to skip the benchmark (an unreachable runtime with
// BENCH_SKIP_UNREACHABLE=1) rather than fail it.
func (d *Driver) Begin(ctx context.Context, k summary.Key) (l *Leaf, skip bool, err error) {
	rt := d.runtime(k.Runtime)
	if why := d.unavailable[k.Runtime]; why != nil {
		class := ClassUnavailable
		if unreachable(why) {
			class = ClassUnreachable
		}
		d.Run.AddNotRun(k, class, why)
		if err := d.save(); err != nil {
			return nil, false, fmt.Errorf("%w; and %w", why, err)
		}
		switch {
		case class == ClassUnavailable:
			return nil, false, why
		case d.Settings.SkipUnreachable:
			return nil, true, fmt.Errorf("skipped (BENCH_SKIP_UNREACHABLE=1): %w", why)
		}
		return nil, false, fmt.Errorf("%w (set BENCH_SKIP_UNREACHABLE=1 to skip runtimes that do not answer)", why)
	}
	d.leafRuns++
	if d.repetitions == nil {
		d.repetitions = map[summary.Key]int{}
	}
	d.repetitions[k]++
	return &Leaf{
		d: d, ctx: ctx, key: k, rt: rt, n: d.leafRuns, count: d.repetitions[k],
		req:      d.request(d.prompt(k.Prompt)),
		progress: leafProgress{p: d.progress, name: k.Levels()},
	}, false, nil
}

// WarmUp runs the BENCH_WARMUPS rounds, which count nowhere. After the
// first leaf's warm-ups of each runtime, it records what the server says of
// the model it has loaded (see runtimes.Runtime.Loaded).
func (l *Leaf) WarmUp() {
	n := l.d.Settings.Warmups
	for i := range n {
		l.warmups++
		l.progress.warmUp(i+1, n, l.send(true, l.warmups))
	}
	l.d.describeLoaded(l.ctx, l.rt)
}

// Round runs one timed round.
func (l *Leaf) Round() {
	r := l.send(false, len(l.rounds)+1)
	l.rounds = append(l.rounds, r)
	l.progress.round(r)
}

// send runs one round: warm-up or timed round number i.
func (l *Leaf) send(warmup bool, i int) summary.Round {
	cold := l.d.Settings.Cache == config.CacheCold
	reqs := runtimes.Copies(l.req, l.key.Concurrency)
	if cold {
		for j := range reqs {
			m := prompts.Marker{Run: l.d.Run.ID, Salt: l.d.Run.CreatedAt.UnixNano(), Leaf: l.n, Warmup: warmup, Round: i, Request: j}
			reqs[j].Prompt = prompts.Cold(l.req.Prompt, m)
		}
	}
	wall, results := l.rt.Round(l.ctx, reqs)
	recs := summary.RoundRecords(l.key, l.count, i, warmup, l.d.Run.CreatedAt, results, l.d.Settings.RecordChunks)
	if err := l.d.files.appendRecords(recs); err != nil && l.recordErr == nil {
		l.recordErr = fmt.Errorf("writing request records to BENCH_OUTPUT_DIR=%q: %w", l.d.Settings.OutputDir, err)
	}
	return summary.Round{Wall: wall, Results: results, MaxTokens: l.req.MaxTokens, Cold: cold}
}

// Outcome is what a finished leaf run has to report.
type Outcome struct {
	// Metrics are the leaf run's figures, for testing.B.ReportMetric.
	Metrics summary.Metrics
	// Notes are lines for the benchmark's log: what a reader of its
	// figures must know (failed requests, …).
	Notes []string
	// Failed is set when no request succeeded: the benchmark fails.
	Failed error
	// SaveErr is set when the run's files could not be written.
	SaveErr error
}

// End records the leaf run, rewrites the run's files so that a run
// interrupted later keeps it, and returns what to report.
func (l *Leaf) End() Outcome {
	d := l.d
	d.Run.Add(l.key, l.rounds)
	o := Outcome{Metrics: summary.Compute(l.rounds), SaveErr: errors.Join(l.recordErr, d.save())}
	m := o.Metrics
	if m.Requests > 0 && m.Successes == 0 {
		o.Failed = fmt.Errorf("all %d requests failed (%s); the first: %v", m.Requests, m.ErrorCounts(), m.FirstError)
	}
	o.Notes = m.Notes(l.key.Model)
	return o
}

// save writes the run's files as they stand, unless no request has been
// sent yet.
func (d *Driver) save() error {
	if d.Run.Requests() == 0 {
		return nil
	}
	first := d.files.saved == 0
	if err := d.files.write(d.Run); err != nil {
		return fmt.Errorf("writing results to BENCH_OUTPUT_DIR=%q: %w", d.Settings.OutputDir, err)
	}
	if first {
		d.logf("results go to %s and %s, rewritten after each benchmark, and every request to %s", d.files.json, d.files.txt, d.files.records)
	}
	return nil
}

// request is the request every benchmark of prompt p sends (with a marker
// line before the prompt in cold mode).
func (d *Driver) request(p prompts.Prompt) runtimes.Request {
	st := d.Settings
	return runtimes.Request{
		Prompt: p.Text, MaxTokens: st.MaxTokens, Seed: st.Seed, Temperature: st.Temperature,
		IgnoreEOS: st.IgnoreEOS, KeepAlive: st.KeepAlive,
	}
}

func (d *Driver) runtime(name string) *runtimes.Runtime {
	for _, rt := range d.Runtimes {
		if rt.Name == name {
			return rt
		}
	}
	panic("driver: no runtime " + name)
}

func (d *Driver) prompt(name string) prompts.Prompt {
	for _, p := range d.Prompts {
		if p.Name == name {
			return p
		}
	}
	panic("driver: no prompt " + name)
}
