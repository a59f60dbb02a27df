package sim

import (
	"strconv"
	"time"
)

// llama-server of an older build, LlamaCachedByPromptN (llama-cpp-python
// 0.3.16's tree, August 2025), with SIM_FLAVOR=llamacpp and
// SIM_VERSION=b1-4227c9b. Its replies state the cached prompt tokens only
// as usage.prompt_tokens (every prompt token) less the last chunk's
// timings.prompt_n (those it evaluated): its usage has no
// prompt_tokens_details, its timings no cache_n, and its /metrics no
// llamacpp:prompt_tokens_cached_total. The usage chunk carries llama's
// timings: {"prompt_n":P−C,"prompt_ms","prompt_per_second",
// "predicted_n":m,"predicted_ms","predicted_per_second"}, prompt_ms the
// reply's prompt evaluation (as Ollama's prompt_eval_duration) and
// predicted_ms its decode on the schedule.

// LlamaCachedByPromptN is the llama-server build whose replies state
// cached prompt tokens only by their counts' difference.
const LlamaCachedByPromptN = "b1-4227c9b"

// llamaCachedByPromptN reports whether the server plays that build.
func (c Config) llamaCachedByPromptN() bool {
	return c.flavor() == FlavorLlamaCpp && c.version() == LlamaCachedByPromptN
}

// appendLlamaTimings appends llama-server's timings member (with its
// leading comma) for a reply of n tokens, without cache_n.
func appendLlamaTimings(b []byte, rep *reply, n int) []byte {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	perSecond := func(k int, d time.Duration) float64 {
		if k <= 0 || d <= 0 {
			return 0
		}
		return float64(k) / d.Seconds()
	}
	evaluated := max(rep.p-rep.cached, 0)
	decode := rep.pace.decode(n)
	b = append(b, `,"timings":{"prompt_n":`...)
	b = strconv.AppendInt(b, int64(evaluated), 10)
	b = append(b, `,"prompt_ms":`...)
	b = strconv.AppendFloat(b, ms(rep.promptEval), 'f', 3, 64)
	b = append(b, `,"prompt_per_second":`...)
	b = strconv.AppendFloat(b, perSecond(evaluated, rep.promptEval), 'f', 3, 64)
	b = append(b, `,"predicted_n":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"predicted_ms":`...)
	b = strconv.AppendFloat(b, ms(decode), 'f', 3, 64)
	b = append(b, `,"predicted_per_second":`...)
	b = strconv.AppendFloat(b, perSecond(max(n-1, 0), decode), 'f', 3, 64)
	return append(b, '}')
}
