package sim

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// llamaBatch is llama-server's default --batch-size: a prompt is decoded in
// pieces of at most this many tokens, one llama_decode() call each.
const llamaBatch = 2048

// llamaCounts is what llama-server's /metrics counts (SIM_FLAVOR=llamacpp),
// over the replies counted: since the start, and in the window since the
// last scrape (its "bucket", which its two throughput gauges average over).
type llamaCounts struct {
	prompt, predicted         uint64        // tokens: prompt evaluated (P − C), generated
	cached                    uint64        // prompt tokens reused from the cache (C)
	promptTime, predictedTime time.Duration // first − t0; end − first
	bucket                    struct {
		prompt, predicted         uint64
		promptTime, predictedTime time.Duration
	}
	decodes   float64 // llama_decode() calls, each shared by the replies running
	busySlots uint64  // the slots busy in them, summed over the calls
	tokensMax uint64  // the most tokens a slot held (P + sent − 1)
}

// recordLlama counts rep as llama-server counts a finished slot. m.mu is
// held.
func (m *metrics) recordLlama(rep *reply) {
	l := &m.llama
	prompt := uint64(rep.p - rep.cached)
	var promptTime, predictedTime time.Duration
	if rep.first.IsZero() {
		promptTime = rep.end.Sub(rep.t0) // no token: the prompt was all it did
	} else {
		promptTime, predictedTime = rep.first.Sub(rep.t0), rep.end.Sub(rep.first)
	}
	l.prompt += prompt
	l.cached += uint64(rep.cached)
	l.predicted += uint64(rep.sent)
	l.promptTime += promptTime
	l.predictedTime += predictedTime
	l.bucket.prompt += prompt
	l.bucket.predicted += uint64(rep.sent)
	l.bucket.promptTime += promptTime
	l.bucket.predictedTime += predictedTime

	// The prompt in pieces of llamaBatch tokens (at least one: a prompt
	// read whole from the cache still evaluates its last token), then one
	// call a generated token after the first; the requests holding a slot
	// when rep got its own share each call.
	steps := max(1, (rep.p-rep.cached+llamaBatch-1)/llamaBatch) + max(rep.sent-1, 0)
	l.busySlots += uint64(steps)
	l.decodes += float64(steps) / float64(max(rep.running, 1))
	l.tokensMax = max(l.tokensMax, uint64(rep.p+max(rep.sent-1, 0)))
}

// serveLlamaMetrics answers GET /metrics as llama-server b1-0c1e570 started
// with --metrics does (testdata/llamacpp-metrics-b1-0c1e570.txt): its
// names, no labels, counters then gauges, values as C++ streams print a
// double (6 significant digits, "1.23457e+06").
func (s *Server) serveLlamaMetrics(w http.ResponseWriter, _ *http.Request) {
	running, waiting := s.slots.counts()
	b := s.metrics.appendLlamaText(nil, running, waiting, s.cfg.llamaCachedByPromptN())
	h := w.Header()
	h.Set("Process-Start-Time-Unix", strconv.FormatInt(s.started.Unix(), 10))
	h.Set("Content-Type", "text/plain; version=0.0.4")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// noLlamaMetrics answers GET /metrics as llama-server started without
// --metrics does.
func noLlamaMetrics(w http.ResponseWriter, _ *http.Request) {
	llamaError(w, http.StatusNotImplemented, "This server does not support metrics endpoint. Start it with `--metrics`", "not_supported_error")
}

// appendLlamaText writes llama-server's metrics and starts a new window for
// its throughput gauges.
// noCached leaves out llamacpp:prompt_tokens_cached_total, as build
// b1-4227c9b's page has it not (llamacpp_old.go).
func (m *metrics) appendLlamaText(b []byte, running, waiting int, noCached bool) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &m.llama
	// Its times are kept in microseconds and printed in seconds.
	seconds := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e6 }
	perSecond := func(n uint64, d time.Duration) float64 {
		if n == 0 || d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	decodes := math.Round(l.decodes)
	// It drafts nothing: the speculative decoding counters stay 0.
	for _, c := range []struct {
		typ, name, help string
		v               float64
	}{
		{"counter", "prompt_tokens_total", "Number of prompt tokens processed, excluding cached tokens", float64(l.prompt)},
		{"counter", "prompt_tokens_cached_total", "Number of prompt tokens reused from the cache", float64(l.cached)},
		{"counter", "prompt_seconds_total", "Total time spent processing prompts", seconds(l.promptTime)},
		{"counter", "tokens_predicted_total", "Number of generation tokens processed", float64(l.predicted)},
		{"counter", "tokens_predicted_seconds_total", "Total time spent generating tokens", seconds(l.predictedTime)},
		{"counter", "n_decode_total", "Total number of llama_decode() calls, excluding speculative decoding and multimodal decoding", decodes},
		{"counter", "n_tokens_max", "Largest observed sequence length (prompt + generation)", float64(l.tokensMax)},
		{"counter", "spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated", 0},
		{"counter", "spec_decode_num_accepted_tokens_total", "Speculative: Total draft tokens accepted by the target model", 0},
		{"counter", "spec_decode_num_drafts_total", "Speculative: Total speculative decoding verification steps", 0},
		{"gauge", "prompt_tokens_seconds", "Average prompt throughput in tokens/s", perSecond(l.bucket.prompt, l.bucket.promptTime)},
		{"gauge", "predicted_tokens_seconds", "Average generation throughput in tokens/s", perSecond(l.bucket.predicted, l.bucket.predictedTime)},
		{"gauge", "requests_processing", "Number of requests processing", float64(running)},
		{"gauge", "requests_deferred", "Number of requests deferred", float64(waiting)},
		{"gauge", "n_busy_slots_per_decode", "Average number of busy slots per llama_decode() call", float64(l.busySlots) / max(decodes, 1)},
	} {
		if noCached && c.name == "prompt_tokens_cached_total" {
			continue
		}
		b = append(b, "# HELP llamacpp:"+c.name+" "+c.help+"\n"...)
		b = append(b, "# TYPE llamacpp:"+c.name+" "+c.typ+"\n"...)
		b = append(b, "llamacpp:"+c.name+" "...)
		b = strconv.AppendFloat(b, c.v, 'g', 6, 64)
		b = append(b, '\n')
	}
	l.bucket = llamaCounts{}.bucket
	return b
}
