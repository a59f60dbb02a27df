package sim

import (
	"net/http"
	"strconv"
	"time"
)

// text-generation-inference's /metrics (SIM_FLAVOR=tgi): its router's
// names (router/src/server.rs), served by metrics-exporter-prometheus. No
// labels (one model), no "_total" suffix on the counters; a metric appears
// once something touched it (nothing before the first request); the HELP
// is the first description the router gives; counters print as integers,
// other values as Rust prints an f64 ("3", "0.0015"); a blank line after
// each family.

// tgiDurationBuckets are its bounds for every histogram named "…duration":
// 35 of a geometric sequence, 0.0001 × 1.5^k.
var tgiDurationBuckets = func() []float64 {
	b := make([]float64, 35)
	v := 0.0001
	for i := range b {
		v *= 1.5
		b[i] = v
	}
	return b
}()

// tgiTokenBuckets are its bounds for a histogram of token counts: 100
// steps up to limit (max_input_tokens or max_total_tokens).
func tgiTokenBuckets(limit int) []float64 {
	b := make([]float64, 100)
	for i := range b {
		b[i] = float64(limit) / 100 * float64(i+1)
	}
	return b
}

// The TGI histograms, in the order they are written.
const (
	tgiDuration = iota
	tgiGenerated
	tgiInference
	tgiInput
	tgiMaxNew
	tgiPerToken
	tgiQueue
	tgiValidation
	numTGIHists
)

// tgiHistDefs are the histograms' names and HELP; tokens says which bounds
// they take: those of max_input_tokens (input), max_total_tokens
// (total) or durations ("").
var tgiHistDefs = [numTGIHists]struct{ name, help, tokens string }{
	tgiDuration:   {"tgi_request_duration", "Request duration", ""},
	tgiGenerated:  {"tgi_request_generated_tokens", "Generated tokens per request", "total"},
	tgiInference:  {"tgi_request_inference_duration", "Request inference duration", ""},
	tgiInput:      {"tgi_request_input_length", "Input token length per request", "input"},
	tgiMaxNew:     {"tgi_request_max_new_tokens", "Maximum new tokens per request", "total"},
	tgiPerToken:   {"tgi_request_mean_time_per_token_duration", "Mean time per token per request", ""},
	tgiQueue:      {"tgi_request_queue_duration", "Request queue duration", ""},
	tgiValidation: {"tgi_request_validation_duration", "Request validation duration", ""},
}

// tgiCounts is what TGI's /metrics counts over the replies counted.
type tgiCounts struct {
	success uint64 // tgi_request_success
	hists   [numTGIHists]histogram
	bounds  [numTGIHists][]float64
}

// newTGICounts has the histograms' bounds for a context of ctx tokens
// (max_total_tokens; the input may have one less, as /info says).
func newTGICounts(ctx int) tgiCounts {
	var t tgiCounts
	for i, d := range tgiHistDefs {
		switch d.tokens {
		case "input":
			t.bounds[i] = tgiTokenBuckets(ctx - 1)
		case "total":
			t.bounds[i] = tgiTokenBuckets(ctx)
		default:
			t.bounds[i] = tgiDurationBuckets
		}
	}
	return t
}

// recordTGI counts rep as TGI's router counts a request that ended well:
// its whole time from arrival, the wait for a slot (its queue), the rest
// (inference), that over the tokens generated, the prompt's length, the
// tokens generated and the most it could generate. The simulator
// validates in no time. m.mu is held.
func (m *metrics) recordTGI(rep *reply) {
	t := &m.tgi
	t.success++
	inference := rep.end.Sub(rep.t0)
	perToken := time.Duration(0)
	if rep.sent > 0 {
		perToken = inference / time.Duration(rep.sent)
	}
	for i, v := range [numTGIHists]float64{
		tgiDuration:   rep.end.Sub(rep.arrival).Seconds(),
		tgiGenerated:  float64(rep.sent),
		tgiInference:  inference.Seconds(),
		tgiInput:      float64(rep.p),
		tgiMaxNew:     float64(rep.n),
		tgiPerToken:   perToken.Seconds(),
		tgiQueue:      rep.t0.Sub(rep.arrival).Seconds(),
		tgiValidation: 0,
	} {
		t.hists[i].observeValue(t.bounds[i], v)
	}
}

// serveTGIMetrics answers GET /metrics as text-generation-inference does:
// its names, Content-Type text/plain; charset=utf-8 (a Rust String).
func (s *Server) serveTGIMetrics(w http.ResponseWriter, _ *http.Request) {
	asked, running, waiting := s.slots.requests()
	b := s.metrics.appendTGIText(nil, asked, running, waiting)
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// appendTGIText writes TGI's metrics: tgi_request_count (the requests
// received, asked: those that asked for a slot), the requests in the batch
// (those holding a slot) and in the queue (waiting for one), then what the
// replies counted.
func (m *metrics) appendTGIText(b []byte, asked uint64, running, waiting int) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &m.tgi
	if asked == 0 {
		return b // nothing touched yet: an empty page
	}
	head := func(b []byte, name, typ, help string) []byte {
		b = append(b, "# HELP "+name+" "+help+"\n"...)
		return append(b, "# TYPE "+name+" "+typ+"\n"...)
	}
	num := func(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }
	// Counters, then gauges, then histograms, each by name.
	b = head(b, "tgi_request_count", "counter", "Total number of requests")
	b = append(b, "tgi_request_count "...)
	b = strconv.AppendUint(b, asked, 10)
	b = append(b, "\n\n"...)
	if t.success > 0 {
		b = head(b, "tgi_request_success", "counter", "Number of successful requests")
		b = append(b, "tgi_request_success "...)
		b = strconv.AppendUint(b, t.success, 10)
		b = append(b, "\n\n"...)
	}
	for _, g := range []struct {
		name, help string
		v          int
	}{
		{"tgi_batch_current_size", "Current batch size", running},
		{"tgi_queue_size", "Current queue size", waiting},
	} {
		b = head(b, g.name, "gauge", g.help)
		b = append(b, g.name+" "...)
		b = num(b, float64(g.v))
		b = append(b, "\n\n"...)
	}
	if t.success == 0 {
		return b
	}
	for i, d := range tgiHistDefs {
		h := &t.hists[i]
		b = head(b, d.name, "histogram", d.help)
		var cum uint64
		for j, le := range t.bounds[i] {
			cum += h.counts[j]
			b = append(b, d.name+`_bucket{le="`...)
			b = num(b, le)
			b = append(b, `"} `...)
			b = strconv.AppendUint(b, cum, 10)
			b = append(b, '\n')
		}
		b = append(b, d.name+`_bucket{le="+Inf"} `...)
		b = strconv.AppendUint(b, h.count, 10)
		b = append(b, "\n"+d.name+"_sum "...)
		b = num(b, h.sum)
		b = append(b, "\n"+d.name+"_count "...)
		b = strconv.AppendUint(b, h.count, 10)
		b = append(b, "\n\n"...)
	}
	return b
}
