package sim_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// prefill is P/rate, as the server rounds it.
func prefill(p int, rate float64) time.Duration {
	return time.Duration(math.Round(float64(p) * 1e9 / rate))
}

// SIM_PREFILL_TPS=R: the first token comes TTFT + (P-C)/R after t0, every
// later one shifted alike; Ollama's prompt_eval_duration is (P-C)/R, the
// evaluated tokens only; eval_duration is the decode's, unchanged.
func TestPrefill(t *testing.T) {
	const rate = 10000.0
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			srv := startEnv(t, "SIM_PREFILL_TPS", "10000", "SIM_TOKENS_PER_SEC", "1000")
			c := newClient(t, 1)
			ttft := srv.Config().TTFT
			prompt := long("p", 500) // 1005 tokens: 100.5 ms
			p := sim.PromptTokens(prompt)
			const n = 5
			for _, cached := range []int{0, p - 1} { // the second time, all but one token cached
				r := chat(t, c, srv.URL, path, prompt, n, "")
				require.True(t, r.ended)
				first := ttft + prefill(p-cached, rate)
				assert.GreaterOrEqual(t, r.pieces[0].at, first, "cached %d: the first token after the prefill", cached)
				assert.GreaterOrEqual(t, r.end, first+n*time.Millisecond, "cached %d: the rest shifted alike", cached)
				if path == ollamaPath {
					assert.Equal(t, int64(prefill(p-cached, rate)), r.promptEvalDuration, "cached %d", cached)
					assert.Equal(t, int64(n*time.Millisecond), r.evalDuration)
				} else {
					assert.Equal(t, cached, r.cached)
				}
			}
		})
	}
}

// What the client measures: a prompt 200 times longer waits its prefill
// before its first token, a short one does not; Ollama's prompt eval
// durations are in the prompts' proportion.
func TestPrefillClient(t *testing.T) {
	const rate = 10000.0
	ttft := 2 * time.Millisecond
	srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: 1000, PrefillTPS: rate})
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			short := fmt.Sprintf("%s short prompt", kind) // distinct from the other kind's: nothing cached
			tag := map[runtimes.Kind]string{runtimes.KindOllama: "x", runtimes.KindOpenAI: "y"}[kind]
			longer := long(tag, 1000) // 2005 tokens: 200.5 ms
			ps, pl := sim.PromptTokens(short), sim.PromptTokens(longer)

			rl := rt.Do(context.Background(), runtimes.Request{Prompt: longer, MaxTokens: 3})
			rs := rt.Do(context.Background(), runtimes.Request{Prompt: short, MaxTokens: 3})
			require.NoError(t, rl.Err)
			require.NoError(t, rs.Err)
			assert.Equal(t, pl, rl.PromptTokens)
			assert.Equal(t, ps, rs.PromptTokens)
			assert.GreaterOrEqual(t, rl.TTFT, ttft+prefill(pl, rate), "the long prompt's prefill")
			assert.GreaterOrEqual(t, rs.TTFT, ttft+prefill(ps, rate))
			assert.Less(t, rs.TTFT, ttft+prefill(pl, rate), "the short one does not wait the long one's")
			if kind == runtimes.KindOllama {
				assert.Equal(t, prefill(pl, rate), rl.PromptEval)
				assert.Equal(t, prefill(ps, rate), rs.PromptEval)
				assert.InDelta(t, float64(pl)/float64(ps), float64(rl.PromptEval)/float64(rs.PromptEval), 1e-3, "in proportion")
			} else {
				assert.True(t, rl.CachedReported)
				assert.Zero(t, rl.CachedTokens)
			}

			// Again: cached but for the last token, so no prefill to speak of.
			again := rt.Do(context.Background(), runtimes.Request{Prompt: longer, MaxTokens: 3})
			require.NoError(t, again.Err)
			assert.Less(t, again.TTFT, ttft+prefill(pl, rate), "cached: no long prefill")
			if kind == runtimes.KindOpenAI {
				assert.Equal(t, pl-1, again.CachedTokens, "cached tokens reported in tokens")
			} else {
				assert.Equal(t, prefill(1, rate), again.PromptEval)
			}
		})
	}
}

// Off (the default): Ollama's prompt_eval_duration is TTFT·(P−C)/P, and
// the first token comes at TTFT whatever the prompt (how late is the
// timing tests' business).
func TestPrefillOff(t *testing.T) {
	srv := startEnv(t, "SIM_TTFT", "10ms")
	c := newClient(t, 1)
	prompt := long("q", 2000)
	body := fmt.Sprintf(`{"messages":[{"content":%q}],"options":{"num_ctx":8192,"num_predict":2}}`, prompt)
	r := parseReply(t, ollamaPath, do(context.Background(), c, srv.URL, ollamaPath, body))
	assert.Equal(t, sim.PromptTokens(prompt), r.prompt)
	assert.Equal(t, int64(10*time.Millisecond), r.promptEvalDuration)
	assert.GreaterOrEqual(t, r.pieces[0].at, 10*time.Millisecond)
}
