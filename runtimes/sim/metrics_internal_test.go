package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMetricsText(t *testing.T) {
	m := newMetrics("listed", ContextLength)
	now := time.Now()
	rep := &reply{model: "a \"b\"\\c\nd", p: 3, sent: 2, arrival: now, t0: now, first: now.Add(time.Millisecond), end: now.Add(3 * time.Millisecond), ended: true}
	m.record(rep)
	out := string(m.appendText(nil, 1, 2, kvCacheUsage(1, 4)))
	assert.Contains(t, out, `vllm:prompt_tokens_total{model_name="a \"b\"\\c\nd"} 3.0`+"\n")
	assert.Contains(t, out, `vllm:num_requests_running{model_name="listed"} 1.0`+"\n")
	assert.Contains(t, out, `vllm:num_requests_waiting{model_name="listed"} 2.0`+"\n")
	assert.Contains(t, out, `vllm:kv_cache_usage_perc{model_name="listed"} 0.25`+"\n", "1 request of 4 slots")
	// 1 ms lands in the le="0.001" bucket (le: less or equal).
	assert.Contains(t, out, `vllm:time_to_first_token_seconds_bucket{model_name="a \"b\"\\c\nd",le="0.001"} 1.0`+"\n")
	assert.Contains(t, out, `vllm:request_decode_time_seconds_sum{model_name="a \"b\"\\c\nd"} 0.002`+"\n")

	// At most maxModels label values; the rest count under the listed one.
	for i := range maxModels + 5 {
		m.record(&reply{model: fmt.Sprint("m", i), p: 1, arrival: now, t0: now, end: now, ended: true})
	}
	assert.Len(t, m.models, maxModels)
	out = string(m.appendText(nil, 0, 0, 0))
	assert.Equal(t, maxModels, strings.Count(out, "vllm:request_success_total{"))
	assert.Contains(t, out, `vllm:request_success_total{model_name="listed"} 7.0`+"\n", "the 7 that did not fit")
}

func TestAppendFloat(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0", 3: "3.0", 0.001: "0.001", 2560: "2560.0", 0.0623: "0.0623", 1e20: "1e+20"} {
		assert.Equal(t, want, string(appendFloat(nil, v)))
	}
}

// llama-server's values print as its C++ streams print a double: 6
// significant digits ("1.23457e+06" past a million); its times in whole
// microseconds; a prompt longer than its batch in several decode calls;
// the cached prompt tokens apart from the evaluated ones.
func TestLlamaMetricsText(t *testing.T) {
	m := newMetrics("listed", ContextLength)
	now := time.Now()
	m.record(&reply{p: 5000, cached: 100, sent: 1234567, running: 2, arrival: now, t0: now,
		first: now.Add(1500*time.Microsecond + 400*time.Nanosecond), end: now.Add(61234567 * time.Microsecond), ended: true})
	out := string(m.appendLlamaText(nil, 3, 4, false))
	for _, want := range []string{
		"llamacpp:prompt_tokens_total 4900\n",
		"llamacpp:prompt_tokens_cached_total 100\n",
		"llamacpp:prompt_seconds_total 0.0015\n",
		"llamacpp:tokens_predicted_total 1.23457e+06\n",
		"llamacpp:tokens_predicted_seconds_total 61.2331\n", // 61.233066 s
		"llamacpp:n_decode_total 617285\n",                  // (3 + 1234566) / 2, rounded
		"llamacpp:n_tokens_max 1.23957e+06\n",               // 5000 + 1234566
		"llamacpp:n_busy_slots_per_decode 2\n",              // 1234569 / 617285
		"llamacpp:predicted_tokens_seconds 20161.8\n",       // 1234567 / 61.233067
		"llamacpp:requests_processing 3\n",
		"llamacpp:requests_deferred 4\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.True(t, strings.HasSuffix(out, "# TYPE llamacpp:n_busy_slots_per_decode gauge\nllamacpp:n_busy_slots_per_decode 2\n"), "the average last, a gauge:\n%s", out)
	assert.Contains(t, out, "llamacpp:spec_decode_num_draft_tokens_total 0\n", "it drafts nothing")
}
