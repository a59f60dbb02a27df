package sim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// chatMsgs posts a chat of the messages msgs (a JSON list) for n tokens
// and reads the reply; OpenAI requests ask for usage.
func chatMsgs(t *testing.T, url, path, msgs string, n int) parsed {
	t.Helper()
	var body string
	if path == ollamaPath {
		body = fmt.Sprintf(`{"model":"m","messages":%s,"options":{"num_predict":%d}}`, msgs, n)
	} else {
		body = fmt.Sprintf(`{"model":"m","messages":%s,"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}}`, msgs, n)
	}
	return parseReply(t, path, do(context.Background(), newClient(t, 1), url, path, body))
}

// A reply's text is ReplyText of its chat's last message: the same for the
// same last message whatever comes before it, another for another; a
// message of parts counts its text parts, one after the other.
func TestReplyDependsOnPrompt(t *testing.T) {
	const n = 12
	srv := start(t, fast)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			a := chatMsgs(t, srv.URL, path, `[{"role":"user","content":"Name a colour."}]`, n)
			assert.Equal(t, sim.ReplyText("Name a colour.", 0, n), a.text(false))
			b := chatMsgs(t, srv.URL, path, `[{"role":"user","content":"Name a number."}]`, n)
			assert.Equal(t, sim.ReplyText("Name a number.", 0, n), b.text(false))
			assert.NotEqual(t, a.text(false), b.text(false))
			again := chatMsgs(t, srv.URL, path, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Name a colour."}]`, n)
			assert.Equal(t, a.text(false), again.text(false), "the last message's reply")
			parts := chatMsgs(t, srv.URL, path, `[{"role":"user","content":[{"type":"text","text":"Name a"},{"type":"text","text":" colour."}]}]`, n)
			assert.Equal(t, a.text(false), parts.text(false), "the parts' text")
			for i, p := range a.pieces {
				assert.Equal(t, sim.Token("Name a colour.", i), p.text, "one token a chunk")
			}
		})
	}
}

// SIM_PREFIX_CACHE=off: nothing is cached, a prompt sent again is
// evaluated whole: OpenAI's cached_tokens 0, Ollama's
// prompt_eval_duration TTFT (or, with SIM_PREFILL_TPS, P/rate), and with a
// prompt cost the first token comes after the whole prompt's prefill every
// time.
func TestPrefixCacheOff(t *testing.T) {
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			srv := startEnv(t, "SIM_PREFIX_CACHE", "off", "SIM_TTFT", "10ms")
			c := newClient(t, 1)
			for range 2 {
				r := chat(t, c, srv.URL, path, "the same prompt", 2, "")
				require.True(t, r.ended)
				if path == openaiPath {
					assert.Zero(t, r.cached)
				} else {
					assert.Equal(t, int64(10*time.Millisecond), r.promptEvalDuration)
				}
			}
		})
		t.Run(path+"/prefill", func(t *testing.T) {
			const rate = 20000.0
			srv := startEnv(t, "SIM_PREFIX_CACHE", "off", "SIM_PREFILL_TPS", "20000")
			c := newClient(t, 1)
			prompt := long("c", 500) // 1005 tokens: 50 ms
			p := sim.PromptTokens(prompt)
			for range 2 {
				r := chat(t, c, srv.URL, path, prompt, 2, "")
				require.True(t, r.ended)
				assert.GreaterOrEqual(t, r.pieces[0].at, srv.Config().TTFT+prefill(p, rate), "the whole prompt's prefill")
				if path == openaiPath {
					assert.Zero(t, r.cached)
				} else {
					assert.Equal(t, int64(prefill(p, rate)), r.promptEvalDuration)
				}
			}
		})
	}
	// On, the default, the same prompt is cached but for its last token.
	srv := startEnv(t, "SIM_PREFIX_CACHE", "on")
	c := newClient(t, 1)
	chat(t, c, srv.URL, openaiPath, "the same prompt", 2, "")
	r := chat(t, c, srv.URL, openaiPath, "the same prompt", 2, "")
	assert.Equal(t, sim.PromptTokens("the same prompt")-1, r.cached)
}

// A conversation's turns, as a client sends them: each finds the whole of
// the turn before cached, and Ollama's prompt_eval_duration (with
// SIM_PREFILL_TPS) is the new tokens' only.
func TestConversationCached(t *testing.T) {
	const n, rate = 6, 100000.0
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			srv := startEnv(t, "SIM_PREFILL_TPS", "100000")
			msgs := `{"role":"system","content":"Be brief."}`
			contents := []string{"Be brief."}
			prev := 0
			for k, q := range []string{"Name a colour.", "Why?", "Another?"} {
				msgs += fmt.Sprintf(`,{"role":"user","content":%q}`, q)
				contents = append(contents, q)
				r := chatMsgs(t, srv.URL, path, "["+msgs+"]", n)
				p := sim.PromptTokens(contents...)
				assert.Equal(t, p, r.prompt, "turn %d", k+1)
				if path == openaiPath {
					assert.Equal(t, prev, r.cached, "turn %d: the turn before", k+1)
				} else {
					assert.Equal(t, int64(prefill(p-prev, rate)), r.promptEvalDuration, "turn %d: the new tokens", k+1)
				}
				reply := r.text(false)
				msgs += fmt.Sprintf(`,{"role":"assistant","content":%q}`, reply)
				contents = append(contents, reply)
				prev = p
			}
		})
	}
}
