package driver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// The metric series (BENCH_METRICS_INTERVAL): during each leaf run's timed
// part a goroutine scrapes the server's /metrics every interval and
// appends a telemetry.ServerSample a scrape to <run id>.metrics.jsonl, as
// it goes, so that memory stays flat however long the run. A leaf run of
// a runtime without /metrics (or a control's) takes none.

// seriesScraper is the goroutine scraping one leaf run's server.
type seriesScraper struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error // the first failure to scrape or write, said at the leaf run's end
	n      int   // samples written
}

// startSeries starts the leaf run's scraper, where the setting asks for
// one and the server answered the scrape that began the timed part
// (l.before): that scrape is the first sample, at the timed part's start.
func (l *Leaf) startSeries() {
	d := l.d
	iv := time.Duration(d.Settings.MetricsInterval)
	if iv <= 0 || l.control {
		return
	}
	if l.before == nil {
		d.sayOnce(l.rt.Name, "%s: it serves no Prometheus /metrics (or it could not be read): no metric series (%s)", l.rt.Name, envMetricsInterval)
		return
	}
	if d.series == nil {
		d.series = telemetry.NewSeriesWriter(strings.TrimSuffix(d.files.records, summary.ExtRecords) + telemetry.ExtSeries)
		d.logf("the servers' KV-cache use, running and waiting requests go to %s every %v of each leaf run's timed part (%s)", d.series.Path(), iv, envMetricsInterval)
	}
	first := telemetry.SampleOf(nil, *l.before)
	if first.Empty() {
		d.sayOnce(l.rt.Name, "%s: its /metrics has no gauge of its KV cache or its queue (vLLM's, SGLang's or llama-server's): no metric series (%s)", l.rt.Name, envMetricsInterval)
		return
	}
	ctx, cancel := context.WithCancel(l.ctx)
	s := &seriesScraper{cancel: cancel, done: make(chan struct{})}
	l.series = s
	d.seriesRun = s
	leaf, count, w, runStart := l.key.Levels(), l.count, d.series, d.Run.CreatedAt
	write := func(smp telemetry.ServerSample, at time.Time) {
		smp.Leaf, smp.Count, smp.TS = leaf, count, at.Sub(runStart).Seconds()
		s.keep(w.Write(smp), true)
	}
	write(first, l.timedFrom)
	prev := *l.before
	rt := l.rt
	go tick(ctx, iv, s.done, func() {
		body, err := rt.Metrics(ctx)
		if ctx.Err() != nil {
			return
		}
		at := time.Now()
		var snap telemetry.Snapshot
		if err == nil {
			snap, err = telemetry.Parse(bytes.NewReader(body))
		}
		if err != nil {
			s.keep(err, false)
			return
		}
		write(telemetry.SampleOf(&prev, snap), at)
		prev = snap
	})
}

// tick calls fn every iv until ctx ends, then closes done: the loop of the
// leaf's samplers (metric series, server memory), run as their goroutine.
func tick(ctx context.Context, iv time.Duration, done chan<- struct{}, fn func()) {
	defer close(done)
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

// sayOnce logs, once per runtime, why it takes no metric series.
func (d *Driver) sayOnce(runtime, format string, args ...any) {
	if d.seriesSaid[runtime] {
		return
	}
	if d.seriesSaid == nil {
		d.seriesSaid = map[string]bool{}
	}
	d.seriesSaid[runtime] = true
	d.logf(format, args...)
}

// keep notes err, the first only; a sample written counts.
func (s *seriesScraper) keep(err error, wrote bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.err == nil {
		s.err = err
	}
	if err == nil && wrote {
		s.n++
	}
}

// stop ends the scraper and waits for it; it returns what went wrong, if
// anything, and how many samples it wrote. A nil scraper did nothing.
func (s *seriesScraper) stop() (int, error) {
	if s == nil {
		return 0, nil
	}
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.err
}

// endSeries stops the leaf run's scraper, and returns a note for the log
// if a scrape or a write failed.
func (l *Leaf) endSeries() []string {
	s := l.series
	if s == nil {
		return nil
	}
	l.series = nil
	l.d.seriesRun = nil
	n, err := s.stop()
	if err != nil {
		return []string{fmt.Sprintf("metric series: %v (%d samples written to %s)", err, n, l.d.series.Path())}
	}
	return nil
}

// closeSeries stops a scraper still running (a leaf run that never
// ended: an interrupt, a failed benchmark) and closes the series file.
func (d *Driver) closeSeries() {
	if d.seriesRun != nil {
		d.seriesRun.stop()
		d.seriesRun = nil
	}
	if d.series != nil {
		d.series.Close()
	}
}
