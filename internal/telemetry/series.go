package telemetry

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	dto "github.com/prometheus/client_model/go"
)

// The server's state over time: one ServerSample per scrape of its /metrics,
// a line of <run id>.metrics.jsonl each (BENCH_METRICS_INTERVAL).

// ExtSeries names a run's metric series file, <run id>.metrics.jsonl,
// beside its request records (<run id>.requests.jsonl).
const ExtSeries = ".metrics.jsonl"

// The gauges and counters a ServerSample reads, by server, in the order tried:
// vLLM (V1, then V0's names), SGLang, llama-server, text-generation-inference
// (which has no KV-cache share, prefix cache or speculative counters).
var (
	kvCacheGauges = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"}
	runningGauges = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing", "tgi_batch_current_size"}
	waitingGauges = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred", "tgi_queue_size"}
	// A rate over the interval from counters (Δhits / Δqueries), else a
	// gauge the server computes itself. llama-server counts the prompt
	// tokens it evaluated and those it took from its cache apart: the
	// tokens looked up are their sum.
	prefixRatios = []counterRatio{
		{"vllm:prefix_cache_hits_total", []string{"vllm:prefix_cache_queries_total"}},
		{"llamacpp:prompt_tokens_cached_total", []string{"llamacpp:prompt_tokens_cached_total", "llamacpp:prompt_tokens_total"}},
	}
	prefixGauges = []string{"sglang:cache_hit_rate"}
	specRatios   = []counterRatio{
		{"vllm:spec_decode_num_accepted_tokens_total", []string{"vllm:spec_decode_num_draft_tokens_total"}},
		{"llamacpp:spec_decode_num_accepted_tokens_total", []string{"llamacpp:spec_decode_num_draft_tokens_total"}},
	}
	specGauges = []string{"sglang:spec_accept_rate"}
)

// counterRatio is a rate over an interval: Δnum / the sum of the Δden.
type counterRatio struct {
	num string
	den []string
}

// ServerSample is the server's state at one scrape: a line of the metric
// series file. A figure the server does not expose is null.
type ServerSample struct {
	// Leaf names what the samples are of (the driver's leaf run, e.g.
	// "runtime=vllm/prompt=short/conc=8"), Count its -count repetition.
	Leaf  string `json:"leaf"`
	Count int    `json:"count"`
	// TS is when the scrape was answered, in seconds from the run's start
	// (the request records' start_s clock).
	TS float64 `json:"t_s"`
	// KVCacheUse is the share of the KV cache in use, 0 to 1:
	// vllm:kv_cache_usage_perc (a fraction despite its name; V0:
	// vllm:gpu_cache_usage_perc), sglang:token_usage or
	// llamacpp:kv_cache_usage_ratio; the mean over label sets (engines).
	KVCacheUse *float64 `json:"kv_cache_use"`
	// Running and Waiting are the requests the server is running and
	// has queued: vllm:num_requests_running / _waiting,
	// sglang:num_running_reqs / num_queue_reqs,
	// llamacpp:requests_processing / requests_deferred,
	// tgi_batch_current_size / tgi_queue_size; summed over label sets.
	Running *float64 `json:"running"`
	Waiting *float64 `json:"waiting"`
	// PrefixHitRate is the share of prompt tokens looked up in the prefix
	// cache that were found there since the previous sample: Δ of
	// vllm:prefix_cache_hits_total / Δ of vllm:prefix_cache_queries_total,
	// or llama-server's Δllamacpp:prompt_tokens_cached_total / (Δ of it +
	// Δllamacpp:prompt_tokens_total) (null when no token was looked up, or
	// at the first sample), else SGLang's own gauge sglang:cache_hit_rate.
	PrefixHitRate *float64 `json:"prefix_hit_rate"`
	// SpecAcceptRate is the share of draft tokens of speculative decoding
	// that were accepted since the previous sample: Δ of
	// vllm:spec_decode_num_accepted_tokens_total / Δ of
	// vllm:spec_decode_num_draft_tokens_total, or of llama-server's
	// llamacpp:spec_decode_num_accepted_tokens_total /
	// llamacpp:spec_decode_num_draft_tokens_total (null when nothing was
	// drafted), else sglang:spec_accept_rate.
	SpecAcceptRate *float64 `json:"spec_accept_rate"`
}

// SampleOf reads the figures of a ServerSample from cur, and the rates over the
// interval from prev to cur (prev nil: the first scrape, no rate from
// counters).
func SampleOf(prev *Snapshot, cur Snapshot) ServerSample {
	var s ServerSample
	s.KVCacheUse = cur.gauge(kvCacheGauges, true)
	s.Running = cur.gauge(runningGauges, false)
	s.Waiting = cur.gauge(waitingGauges, false)
	s.PrefixHitRate = rateOf(prev, cur, prefixRatios, prefixGauges)
	s.SpecAcceptRate = rateOf(prev, cur, specRatios, specGauges)
	return s
}

// rateOf is Δnum / ΣΔden from prev to cur of the first of ratios whose
// counters cur has all, else the first of gauges cur has.
func rateOf(prev *Snapshot, cur Snapshot, ratios []counterRatio, gauges []string) *float64 {
	for _, r := range ratios {
		num, ok := cur.counter(r.num)
		den, okd := cur.counters(r.den)
		if !ok || !okd {
			continue
		}
		if prev == nil {
			return nil
		}
		pn, ok1 := prev.counter(r.num)
		pd, ok2 := prev.counters(r.den)
		dn, dd := num-pn, den-pd
		if !ok1 || !ok2 || dd <= 0 || dn < 0 || dn > dd {
			return nil // nothing looked up, or a counter went back: a restart
		}
		v := dn / dd
		return &v
	}
	return cur.gauge(gauges, false)
}

// counters is the sum of the counters names of s, and whether s has them
// all.
func (s Snapshot) counters(names []string) (float64, bool) {
	var sum float64
	for _, name := range names {
		v, ok := s.counter(name)
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// gauge is the first of names that s has as a gauge with a finite value:
// the sum over its label sets, or with mean their mean.
func (s Snapshot) gauge(names []string, mean bool) *float64 {
	for _, name := range names {
		f := s.families[name]
		if f == nil || f.GetType() != dto.MetricType_GAUGE {
			continue
		}
		vals := seriesOf(f, func(m *dto.Metric) float64 { return m.GetGauge().GetValue() })
		if len(vals) == 0 {
			continue
		}
		var sum float64
		for _, v := range vals {
			sum += v
		}
		if mean {
			sum /= float64(len(vals))
		}
		return &sum
	}
	return nil
}

// counter is the counter name of s summed over its label sets.
func (s Snapshot) counter(name string) (float64, bool) {
	f := s.families[name]
	if f == nil || f.GetType() != dto.MetricType_COUNTER {
		return 0, false
	}
	vals := seriesOf(f, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() })
	if len(vals) == 0 {
		return 0, false
	}
	var sum float64
	for _, v := range vals {
		sum += v
	}
	return sum, true
}

// Empty reports whether s has none of the figures a ServerSample reads: a
// server whose /metrics says nothing of its KV cache or its queue.
func (s ServerSample) Empty() bool {
	return s.KVCacheUse == nil && s.Running == nil && s.Waiting == nil && s.PrefixHitRate == nil && s.SpecAcceptRate == nil
}

// SeriesWriter appends Samples to a metric series file, one JSON line
// each, as they come: nothing is kept in memory.
type SeriesWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// NewSeriesWriter returns a writer that creates path (or appends to it)
// at its first Write.
func NewSeriesWriter(path string) *SeriesWriter { return &SeriesWriter{path: path} }

// Path is the file written to.
func (w *SeriesWriter) Path() string { return w.path }

// Write appends s as a line and flushes it to the file, so that an
// interrupted run keeps every sample written.
func (w *SeriesWriter) Write(s ServerSample) error {
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		w.f, w.w = f, bufio.NewWriter(f)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	return w.w.Flush()
}

// Close closes the file, if it was opened.
func (w *SeriesWriter) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f, w.w = nil, nil
	return err
}

// ReadSeries reads a metric series file: its samples in the order
// written. A last line cut short (an interrupted write) is left out; a
// line that is not a ServerSample is an error naming it.
func ReadSeries(r io.Reader) ([]ServerSample, error) {
	var out []ServerSample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	var pending error
	for sc.Scan() {
		line++
		if pending != nil {
			return out, pending
		}
		var s ServerSample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			pending = fmt.Errorf("line %d: %w", line, err)
			continue
		}
		if s.TS < 0 || math.IsNaN(s.TS) {
			return out, fmt.Errorf("line %d: t_s %v is not a time from the run's start", line, s.TS)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	var syn *json.SyntaxError
	if pending != nil && !errors.As(pending, &syn) {
		return out, pending // a whole line of another shape
	}
	return out, nil
}
