package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// llama-server b1-4227c9b (SIM_FLAVOR=llamacpp SIM_VERSION=b1-4227c9b)
// states its cached prompt tokens only as usage.prompt_tokens less
// timings.prompt_n: no prompt_tokens_details, no cache_n, no
// llamacpp:prompt_tokens_cached_total in /metrics. The build of today
// (the flavor's default version) states them in usage and /metrics.
func TestLlamaServerCachedByPromptN(t *testing.T) {
	for _, c := range []struct {
		version string
		old     bool
	}{{sim.LlamaCachedByPromptN, true}, {"", false}} {
		t.Run("version="+c.version, func(t *testing.T) {
			srv := start(t, sim.Config{Flavor: sim.FlavorLlamaCpp, Version: c.version, TTFT: time.Millisecond, TokensPerSec: 5000})
			cl := newClient(t, 1)
			body := `{"model":"m","messages":[{"role":"system","content":"` + strings.Repeat("shared words here ", 30) + `"},{"role":"user","content":"hi"}],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`
			var last map[string]json.RawMessage
			for range 2 { // the second finds the first's prompt cached
				res := do(t.Context(), cl, srv.URL, "/v1/chat/completions", body)
				require.NoError(t, res.err)
				data := sseData(t, res.lines)
				require.GreaterOrEqual(t, len(data), 2)
				last = nil
				require.NoError(t, json.Unmarshal([]byte(data[len(data)-2]), &last), "the usage chunk")
			}
			var usage map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(last["usage"], &usage))
			var prompt int
			require.NoError(t, json.Unmarshal(usage["prompt_tokens"], &prompt))
			_, details := usage["prompt_tokens_details"]
			assert.Equal(t, !c.old, details, "prompt_tokens_details")
			_, hasTimings := last["timings"]
			assert.Equal(t, c.old, hasTimings, "timings in the usage chunk")
			if c.old {
				var tm map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(last["timings"], &tm))
				assert.NotContains(t, tm, "cache_n")
				var n int
				require.NoError(t, json.Unmarshal(tm["prompt_n"], &n))
				assert.Equal(t, 1, n, "the same prompt again: all but its last token cached, of %d", prompt)
				for _, k := range []string{"prompt_ms", "prompt_per_second", "predicted_n", "predicted_ms", "predicted_per_second"} {
					assert.Contains(t, tm, k)
				}
			}
			resp, err := cl.Get(srv.URL + "/metrics")
			require.NoError(t, err)
			page, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, !c.old, strings.Contains(string(page), "llamacpp:prompt_tokens_cached_total"))
			assert.Contains(t, string(page), "llamacpp:prompt_tokens_total")
		})
	}
}
