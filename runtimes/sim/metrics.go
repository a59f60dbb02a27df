package sim

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxModels bounds the model_name label values /metrics keeps: replies
// naming further models are counted under the listed model.
const maxModels = 100

// Bucket bounds, vLLM's: its TTFT buckets, and its request latency buckets
// for the other histograms.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	latencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
		30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// The histograms, in the order they are written.
const (
	histTTFT = iota
	histQueue
	histPrefill
	histDecode
	histE2E
	numHists
)

var histDefs = [numHists]struct {
	name, help string
	bounds     []float64
}{
	histTTFT:    {"vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftBuckets},
	histQueue:   {"vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", latencyBuckets},
	histPrefill: {"vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", latencyBuckets},
	histDecode:  {"vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", latencyBuckets},
	histE2E:     {"vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", latencyBuckets},
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	count  uint64
}

func (h *histogram) observe(bounds []float64, d time.Duration) {
	h.observeValue(bounds, d.Seconds())
}

func (h *histogram) observeValue(bounds []float64, v float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(bounds))
	}
	if i, _ := slices.BinarySearch(bounds, v); i < len(bounds) {
		h.counts[i]++
	}
	h.sum += v
	h.count++
}

// series is one model's counters and histograms.
type series struct {
	prompt, cached, generation, success uint64
	hists                               [numHists]histogram
}

// metrics follows the replies the server has written to their end.
type metrics struct {
	listed string // the model the listings show, and the gauges' label

	mu     sync.Mutex
	models map[string]*series
	llama  llamaCounts // llama-server's names (metrics_llamacpp.go)
	tgi    tgiCounts   // text-generation-inference's (metrics_tgi.go)
}

// newMetrics follows the replies of a server listing the model listed,
// of a context of ctx tokens.
func newMetrics(listed string, ctx int) *metrics {
	return &metrics{listed: listed, models: map[string]*series{listed: {}}, tgi: newTGICounts(ctx)}
}

// record counts a reply that was written to its end.
func (m *metrics) record(rep *reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.models[rep.model]
	if s == nil {
		if len(m.models) >= maxModels {
			s = m.models[m.listed]
		} else {
			s = &series{}
			m.models[rep.model] = s
		}
	}
	s.prompt += uint64(rep.p)
	s.cached += uint64(rep.cached)
	s.generation += uint64(rep.sent)
	s.success++
	h := &s.hists
	h[histQueue].observe(latencyBuckets, rep.t0.Sub(rep.arrival))
	if !rep.first.IsZero() {
		h[histTTFT].observe(ttftBuckets, rep.first.Sub(rep.arrival))
		h[histPrefill].observe(latencyBuckets, rep.first.Sub(rep.t0))
		h[histDecode].observe(latencyBuckets, rep.end.Sub(rep.first))
	}
	h[histE2E].observe(latencyBuckets, rep.end.Sub(rep.arrival))
	m.recordLlama(rep)
	m.recordTGI(rep)
}

// serveMetrics answers GET /metrics: Prometheus text exposition 0.0.4.
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	running, waiting := s.slots.counts()
	b := s.metrics.appendText(nil, running, waiting, kvCacheUsage(running, s.slots.cap))
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// kvBlocksUnlimited is how many requests fill the KV cache of a server
// without a slot limit (SIM_SLOTS=0).
const kvBlocksUnlimited = 64

// kvCacheUsage is the share of the KV cache the running requests hold, as
// vllm:kv_cache_usage_perc says it (0 to 1): each holds a slot's share,
// slots of the cache (kvBlocksUnlimited without a limit).
func kvCacheUsage(running, slots int) float64 {
	if slots <= 0 {
		slots = kvBlocksUnlimited
	}
	return min(1, float64(running)/float64(slots))
}

func (m *metrics) appendText(b []byte, running, waiting int, kvUsage float64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.models))
	for name := range m.models {
		names = append(names, name)
	}
	slices.Sort(names)
	label := func(b []byte, model string) []byte {
		b = append(b, `model_name="`...)
		b = append(b, escapeLabel(model)...)
		return append(b, '"')
	}
	head := func(b []byte, name, typ, help string) []byte {
		b = append(b, "# HELP "+name+" "+help+"\n"...)
		return append(b, "# TYPE "+name+" "+typ+"\n"...)
	}
	sample := func(b []byte, name, model string, v float64) []byte {
		b = append(b, name...)
		b = append(b, '{')
		b = label(b, model)
		b = append(b, "} "...)
		b = appendFloat(b, v)
		return append(b, '\n')
	}
	b = head(b, "vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
	b = sample(b, "vllm:num_requests_running", m.listed, float64(running))
	b = head(b, "vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
	b = sample(b, "vllm:num_requests_waiting", m.listed, float64(waiting))
	b = head(b, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.")
	b = sample(b, "vllm:kv_cache_usage_perc", m.listed, kvUsage)
	for _, c := range []struct {
		name, help string
		v          func(*series) uint64
	}{
		{"vllm:prompt_tokens_total", "Number of prefill tokens processed.", func(s *series) uint64 { return s.prompt }},
		{"vllm:prompt_tokens_cached_total", "Number of cached prompt tokens (local prefix cache hits).", func(s *series) uint64 { return s.cached }},
		{"vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", func(s *series) uint64 { return s.prompt }},
		{"vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", func(s *series) uint64 { return s.cached }},
		{"vllm:generation_tokens_total", "Number of generation tokens processed.", func(s *series) uint64 { return s.generation }},
		{"vllm:request_success_total", "Count of successfully processed requests.", func(s *series) uint64 { return s.success }},
	} {
		b = head(b, c.name, "counter", c.help)
		for _, name := range names {
			b = sample(b, c.name, name, float64(c.v(m.models[name])))
		}
	}
	for i, d := range histDefs {
		b = head(b, d.name, "histogram", d.help)
		for _, name := range names {
			h := &m.models[name].hists[i]
			var cum uint64
			for j, le := range d.bounds {
				if h.counts != nil {
					cum += h.counts[j]
				}
				b = append(b, d.name+"_bucket{"...)
				b = label(b, name)
				b = append(b, `,le="`...)
				b = appendFloat(b, le)
				b = append(b, `"} `...)
				b = strconv.AppendUint(b, cum, 10)
				b = append(b, ".0\n"...)
			}
			b = append(b, d.name+"_bucket{"...)
			b = label(b, name)
			b = append(b, `,le="+Inf"} `...)
			b = strconv.AppendUint(b, h.count, 10)
			b = append(b, ".0\n"...)
			b = sample(b, d.name+"_sum", name, h.sum)
			b = sample(b, d.name+"_count", name, float64(h.count))
		}
	}
	return b
}

// appendFloat writes v as Python's prometheus_client does (vLLM's): with a
// decimal point for whole numbers ("3.0"), else the shortest form.
func appendFloat(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendFloat(b, v, 'f', 1, 64)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
