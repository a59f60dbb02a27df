package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// An unstreamed OpenAI chat: one chat.completion object with the whole
// reply, its log-probabilities if asked, its usage; the text the
// streamed reply's.
func TestUnstreamedOpenAIChat(t *testing.T) {
	const prompt, n = "Say it at once.", 6
	srv := start(t, fast)
	c := newClient(t, 1)
	for _, lp := range []bool{false, true} {
		body := fmt.Sprintf(`{"messages":[{"role":"user","content":%q}],"max_tokens":%d,"logprobs":%v,"top_logprobs":3}`, prompt, n, lp)
		res := do(context.Background(), c, srv.URL, "/v1/chat/completions", body)
		require.NoError(t, res.err)
		require.Equal(t, http.StatusOK, res.status)
		require.Len(t, res.lines, 1)
		var got struct {
			Object  string `json:"object"`
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
				Logprobs *struct {
					Content []struct {
						Token       string  `json:"token"`
						Logprob     float64 `json:"logprob"`
						TopLogprobs []struct {
							Token string `json:"token"`
						} `json:"top_logprobs"`
					} `json:"content"`
				} `json:"logprobs"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.lines[0].text), &got))
		assert.Equal(t, "chat.completion", got.Object)
		require.Len(t, got.Choices, 1)
		ch := got.Choices[0]
		assert.Equal(t, sim.ReplyText(prompt, 0, n), ch.Message.Content)
		assert.Equal(t, "length", ch.FinishReason)
		assert.Equal(t, n, got.Usage.CompletionTokens)
		if !lp {
			assert.Nil(t, ch.Logprobs)
			continue
		}
		require.NotNil(t, ch.Logprobs)
		require.Len(t, ch.Logprobs.Content, n)
		for i, e := range ch.Logprobs.Content {
			assert.Equal(t, sim.Token(prompt, i), e.Token)
			assert.Len(t, e.TopLogprobs, 3)
		}
	}
}

// The distribution: every word once, probabilities summing to 1, most
// likely first, the first the reply's word; at SIM_PERTURB p the first
// two swapped exactly where PerturbedAt says, and PerturbKL is the KL
// divergence of the two distributions, 0 between equal settings.
func TestCandidates(t *testing.T) {
	const last = "What is the distribution?"
	swapped := 0
	for i := range 400 {
		c0 := sim.Candidates(last, i, 0)
		c := sim.Candidates(last, i, 0.3)
		var sum float64
		seen := map[string]bool{}
		for r, x := range c {
			sum += math.Exp(x.LogProb)
			seen[x.Text] = true
			if r > 0 {
				require.Less(t, x.LogProb, c[r-1].LogProb, "token %d, rank %d", i, r)
			}
		}
		require.InDelta(t, 1, sum, 1e-12)
		require.Len(t, seen, len(c), "every word once")
		assert.Equal(t, sim.Token(last, i), c0[0].Text)
		if sim.PerturbedAt(last, i, 0.3) {
			swapped++
			assert.Equal(t, c0[1].Text, c[0].Text, "token %d: the second word first", i)
		} else {
			assert.Equal(t, c0[0].Text, c[0].Text, "token %d", i)
		}
		assert.Equal(t, c0[2:], c[2:], "token %d: the others unchanged", i)
		var kl float64
		for r := range 2 {
			q := c0[r].LogProb
			if c[r].Text != c0[r].Text {
				q = c0[1-r].LogProb
			}
			kl += math.Exp(c[r].LogProb) * (c[r].LogProb - q)
		}
		assert.InDelta(t, kl, sim.PerturbKL(last, i, 0.3, 0), 1e-12)
		assert.Zero(t, sim.PerturbKL(last, i, 0.3, 0.3))
	}
	// 400 draws at 0.3: 120 ± 4 sd (9.2).
	assert.InDelta(t, 120, swapped, 37)
}
