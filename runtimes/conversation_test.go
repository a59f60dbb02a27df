package runtimes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// convFast is a schedule on which a conversation's turns take a few
// milliseconds.
var convFast = sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000}

// wireMessage is a message of a chat request as the server received it.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// received records the messages of every chat request a server was sent,
// in the order their bodies were read.
type received struct {
	mu   sync.Mutex
	reqs [][]wireMessage
}

func (rc *received) body(_ *http.Request, body []byte) {
	var req struct {
		Messages []wireMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return // not a chat: the test fails on the count
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, req.Messages)
}

func (rc *received) all() [][]wireMessage {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]wireMessage(nil), rc.reqs...)
}

// startConv starts a simulator with cfg whose chat requests' messages rc
// (if not nil) records, and a runtime of kind on it.
func startConv(t *testing.T, cfg sim.Config, kind runtimes.Kind, rc *received) (*sim.Server, *runtimes.Runtime) {
	t.Helper()
	var tap sim.Tap
	if rc != nil {
		tap.Body = rc.body
	}
	srv, err := sim.StartTapped(cfg, tap)
	require.NoError(t, err)
	client := &http.Client{Transport: runtimes.NewTransport(4)}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.Close()
	})
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second, Client: client})
	require.NoError(t, err)
	return srv, rt
}

// convPrompts are a conversation's user messages: the first, then the
// follow-ups, all different so that every reply is.
var convPrompts = []string{"Name a colour.", "Why that one?", "Name another.", "Which is warmer?"}

// wantMessages is what turn k (from 1) of a conversation of prompts sends,
// system first if set, when each reply was the n tokens the simulator
// writes for its prompt, reasoning (the first think) left out.
func wantMessages(system string, prompts []string, k, n, think int) []wireMessage {
	var msgs []wireMessage
	if system != "" {
		msgs = append(msgs, wireMessage{"system", system})
	}
	for j := range k - 1 {
		msgs = append(msgs, wireMessage{"user", prompts[j]}, wireMessage{"assistant", sim.ReplyText(prompts[j], think, n)})
	}
	return append(msgs, wireMessage{"user", prompts[k-1]})
}

// Turn k of a conversation sends 2k−1 messages (and the system one first,
// if set): every earlier user message and every reply's answer text
// exactly as the server streamed it, then the new user message; the
// results are in turn order, numbered, with the conversation's id.
func TestConverseSendsHistory(t *testing.T) {
	const n = 8
	for _, kind := range kinds {
		for _, system := range []string{"", "You are terse."} {
			t.Run(fmt.Sprintf("%s/system=%t", kind, system != ""), func(t *testing.T) {
				var rc received
				_, rt := startConv(t, convFast, kind, &rc)
				first := runtimes.Request{Prompt: convPrompts[0], MaxTokens: n, System: system, Conversation: 7}
				results := rt.Converse(context.Background(), first, convPrompts[1:])
				require.Len(t, results, len(convPrompts))
				for k, r := range results {
					require.NoError(t, r.Err, "turn %d", k+1)
					assert.Equal(t, k+1, r.Turn)
					assert.Equal(t, 7, r.Conversation)
					assert.Equal(t, n, r.OutputTokens)
					assert.Empty(t, r.Text, "turn %d: kept in the history, not in the record", k+1)
				}
				reqs := rc.all()
				require.Len(t, reqs, len(convPrompts))
				for k := 1; k <= len(convPrompts); k++ {
					msgs := reqs[k-1]
					wantLen := 2*k - 1
					if system != "" {
						wantLen++
					}
					assert.Len(t, msgs, wantLen, "turn %d", k)
					assert.Equal(t, wantMessages(system, convPrompts, k, n, 0), msgs, "turn %d", k)
				}
			})
		}
	}
}

// With KeepText on the first request (BENCH_RECORD_TEXT), every turn's
// result keeps its reply, the one the next turn sent back.
func TestConverseKeepsEveryText(t *testing.T) {
	const n = 8
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			_, rt := startConv(t, convFast, kind, nil)
			results := rt.Converse(context.Background(), runtimes.Request{Prompt: convPrompts[0], MaxTokens: n, KeepText: true}, convPrompts[1:])
			require.Len(t, results, len(convPrompts))
			for k, r := range results {
				require.NoError(t, r.Err)
				assert.Equal(t, sim.ReplyText(convPrompts[k], 0, n), r.Text, "turn %d", k+1)
			}
		})
	}
}

// Conversations run at once each send their own history.
func TestChatsSendTheirOwnHistory(t *testing.T) {
	const n, convs = 6, 3
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			var rc received
			_, rt := startConv(t, convFast, kind, &rc)
			followUps := []string{"And then?", "Why?"}
			firsts := make([]runtimes.Request, convs)
			for i := range firsts {
				firsts[i] = runtimes.Request{Prompt: fmt.Sprintf("Tell story %d.", i), MaxTokens: n, Conversation: i}
			}
			_, results := rt.Chats(context.Background(), firsts, followUps)
			require.Len(t, results, convs)
			for i, chat := range results {
				require.Len(t, chat, 1+len(followUps))
				for k, r := range chat {
					require.NoError(t, r.Err)
					assert.Equal(t, i, r.Conversation)
					assert.Equal(t, k+1, r.Turn)
				}
			}
			// Each request, whichever conversation it is of, carries that
			// conversation's history.
			reqs := rc.all()
			require.Len(t, reqs, convs*(1+len(followUps)))
			seen := map[string]int{}
			for _, msgs := range reqs {
				prompts := append([]string{msgs[0].Content}, followUps...)
				k := (len(msgs) + 1) / 2
				assert.Equal(t, wantMessages("", prompts, k, n, 0), msgs)
				seen[fmt.Sprint(msgs[0].Content, k)]++
			}
			assert.Len(t, seen, convs*(1+len(followUps)), "every turn of every conversation once")
		})
	}
}

// SIM_TEXT_SEED gives every chat another reply, the same each time, of
// the same length: what a canary sees when a model changes.
func TestTextSeed(t *testing.T) {
	const n = 12
	prompt := "Say something."
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			cfg := convFast
			cfg.TextSeed = 7
			_, rt := startConv(t, cfg, kind, nil)
			r := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: n, KeepText: true})
			require.NoError(t, r.Err)
			again := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: n, KeepText: true})
			require.NoError(t, again.Err)
			assert.Equal(t, r.Text, again.Text, "the same chat, the same reply")
			assert.NotEqual(t, sim.ReplyText(prompt, 0, n), r.Text, "another reply than without a seed")
			assert.Equal(t, n, r.OutputTokens)
		})
	}
}

// Result.Text is empty unless the request asks for it with KeepText; then
// it is the answer as streamed, reasoning left out, however many tokens a
// chunk carries; and a conversation's history holds that text.
func TestKeepText(t *testing.T) {
	const n, think = 9, 3
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			_, rt := startConv(t, convFast, kind, nil)
			prompt := "Say something."
			r := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: n})
			require.NoError(t, r.Err)
			assert.Empty(t, r.Text, "not asked for")
			r = rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: n, KeepText: true})
			require.NoError(t, r.Err)
			assert.Equal(t, sim.ReplyText(prompt, 0, n), r.Text)
			other := rt.Do(context.Background(), runtimes.Request{Prompt: "Say something else.", MaxTokens: n, KeepText: true})
			require.NoError(t, other.Err)
			assert.NotEqual(t, r.Text, other.Text, "the reply depends on the prompt")
		})
		t.Run(string(kind)+"/reasoning", func(t *testing.T) {
			cfg := convFast
			cfg.ReasoningTokens, cfg.TokensPerChunk = think, 2
			var rc received
			_, rt := startConv(t, cfg, kind, &rc)
			prompt := "Think first."
			r := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: n, KeepText: true})
			require.NoError(t, r.Err)
			assert.Equal(t, n, r.OutputTokens)
			assert.Equal(t, sim.ReplyText(prompt, think, n), r.Text, "the answer, not the reasoning")
			results := rt.Converse(context.Background(), runtimes.Request{Prompt: convPrompts[0], MaxTokens: n}, convPrompts[1:3])
			require.Len(t, results, 3)
			for _, r := range results {
				require.NoError(t, r.Err)
			}
			reqs := rc.all()
			require.Len(t, reqs, 4)
			for k := 1; k <= 3; k++ {
				assert.Equal(t, wantMessages("", convPrompts, k, n, think), reqs[k], "turn %d: the answers only", k)
			}
		})
	}
}

// With the prefix cache (the default), each turn finds the whole of the
// turn before cached: OpenAI's cached_tokens grow turn by turn, each at
// least the last turn's prompt; Ollama evaluates only what is new, which
// its prompt_eval_duration (SIM_PREFILL_TPS) says.
func TestConverseCachedTokensGrow(t *testing.T) {
	const n, rate = 16, 100000.0
	cfg := convFast
	cfg.PrefillTPS = rate
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			_, rt := startConv(t, cfg, kind, nil)
			first := runtimes.Request{Prompt: convPrompts[0], MaxTokens: n, System: "You are terse."}
			results := rt.Converse(context.Background(), first, convPrompts[1:])
			require.Len(t, results, len(convPrompts))
			for k, r := range results {
				require.NoError(t, r.Err, "turn %d", k+1)
				if kind == runtimes.KindOpenAI {
					require.True(t, r.CachedReported)
				}
				if k == 0 {
					assert.Zero(t, r.CachedTokens, "nothing sent before")
					if kind == runtimes.KindOllama {
						assert.Equal(t, prefill(r.PromptTokens, rate), r.PromptEval, "the whole prompt evaluated")
					}
					continue
				}
				prev := results[k-1]
				assert.Greater(t, r.PromptTokens, prev.PromptTokens, "turn %d: the history grows", k+1)
				if kind == runtimes.KindOpenAI {
					assert.Greater(t, r.CachedTokens, prev.CachedTokens, "turn %d: cached tokens grow", k+1)
					assert.GreaterOrEqual(t, r.CachedTokens, prev.PromptTokens-3, "turn %d: the last turn's prompt, a few tokens aside", k+1)
					assert.Equal(t, prev.PromptTokens, r.CachedTokens, "turn %d: the simulator's cache: all of the last turn's prompt", k+1)
				} else {
					// Only the reply and the new message are evaluated.
					assert.Equal(t, prefill(r.PromptTokens-prev.PromptTokens, rate), r.PromptEval, "turn %d", k+1)
				}
			}
		})
	}
}

// prefill is p tokens at rate, as the simulator rounds it.
func prefill(p int, rate float64) time.Duration {
	return time.Duration(math.Round(float64(p) * 1e9 / rate))
}

// A second conversation with the same system message finds it cached on
// its first turn.
func TestSharedSystemPromptCached(t *testing.T) {
	const rate = 100000.0
	system := strings.Repeat("You answer in one short sentence and never apologise. ", 20)
	sysTokens := sim.PromptTokens(system) - sim.ReplyTokens // the system message's
	cfg := convFast
	cfg.PrefillTPS = rate
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			_, rt := startConv(t, cfg, kind, nil)
			a := rt.Converse(context.Background(), runtimes.Request{Prompt: "Name a colour.", MaxTokens: 4, System: system}, []string{"Why?"})
			require.Len(t, a, 2)
			require.NoError(t, a[1].Err)
			b := rt.Do(context.Background(), runtimes.Request{Prompt: "Count to three.", MaxTokens: 4, System: system})
			require.NoError(t, b.Err)
			// The system message and the user's header (2 tokens).
			cached := sysTokens + 2
			if kind == runtimes.KindOpenAI {
				assert.GreaterOrEqual(t, b.CachedTokens, sysTokens, "at least the system message")
				assert.Equal(t, cached, b.CachedTokens)
			} else {
				assert.Equal(t, prefill(b.PromptTokens-cached, rate), b.PromptEval, "only what follows the system message evaluated")
			}
			// Without a system message, nothing is shared.
			c := rt.Do(context.Background(), runtimes.Request{Prompt: "Count to four.", MaxTokens: 4})
			require.NoError(t, c.Err)
			if kind == runtimes.KindOpenAI {
				assert.Zero(t, c.CachedTokens)
			}
		})
	}
}

// convTTFTs runs a 4-turn conversation (a first message of 210 tokens,
// follow-ups of 90, replies of 50 words) on a server with prefill at rate
// and the prefix cache on or off, and returns each turn's TTFT, prompt
// tokens and cached tokens (OpenAI's; 0 for Ollama).
func convTTFTs(t *testing.T, kind runtimes.Kind, mode sim.PrefixCacheMode, rate float64) (ttft []time.Duration, p, c []int) {
	t.Helper()
	cfg := sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, PrefillTPS: rate, PrefixCache: mode}
	_, rt := startConv(t, cfg, kind, nil)
	first := runtimes.Request{Prompt: strings.Repeat("Tell me about the river. ", 30), MaxTokens: 50}
	followUps := []string{
		strings.Repeat("And the bridge over it? ", 15),
		strings.Repeat("And the town beside it? ", 15),
		strings.Repeat("And the hills above it? ", 15),
	}
	results := rt.Converse(context.Background(), first, followUps)
	require.Len(t, results, 4)
	for _, r := range results {
		require.NoError(t, r.Err)
		ttft = append(ttft, r.TTFT)
		p = append(p, r.PromptTokens)
		c = append(c, r.CachedTokens)
	}
	return ttft, p, c
}

// With the cache off and a prompt cost (SIM_PREFILL_TPS), every turn
// evaluates its whole history: TTFT grows turn by turn. With it on, each
// turn evaluates only the last reply and the new message: TTFT stays near
// the first turn's. The bounds leave a busy machine a wide margin: lower
// bounds are the schedule's (a token never comes early); the ratios are
// half or twice what the schedule gives, and a miss is measured again, up
// to 3 times. The tight bounds are runtimes/sim's timing tests'
// (TestConversationTTFTTiming).
func TestConverseTTFTByTurn(t *testing.T) {
	const rate = 4000.0
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			for try := 1; ; try++ {
				off, pOff, cOff := convTTFTs(t, kind, sim.PrefixCacheOff, rate)
				on, pOn, cOn := convTTFTs(t, kind, sim.PrefixCacheOn, rate)
				t.Logf("try %d: TTFT by turn, cache off: %v (prompt %v); on: %v (cached %v)", try, off, pOff, on, cOn)
				require.Equal(t, pOff, pOn, "the same conversation")
				for k := range off {
					assert.Zero(t, cOff[k], "off: nothing cached")
					// The schedule's: 1 ms + the uncached tokens' prefill.
					assert.GreaterOrEqual(t, off[k], time.Millisecond+prefill(pOff[k], rate), "off, turn %d: the whole prompt's prefill", k+1)
					if k > 0 {
						assert.Greater(t, pOff[k], pOff[k-1])
						if kind == runtimes.KindOpenAI {
							assert.Equal(t, pOn[k-1], cOn[k], "on, turn %d: the last turn cached", k+1)
						}
						assert.GreaterOrEqual(t, on[k], time.Millisecond+prefill(pOn[k]-pOn[k-1], rate), "on, turn %d: the new tokens' prefill", k+1)
					}
				}
				// On schedule (prompts of 215, 404, 588, 794 tokens): off
				// 55, 102, 148, 200 ms; on 55, 48, 47, 53 ms.
				var missed []string
				if float64(off[3]) < 2*float64(off[0]) {
					missed = append(missed, fmt.Sprintf("off: turn 4's TTFT %v not twice turn 1's %v (3.6× on schedule)", off[3], off[0]))
				}
				for k := 1; k < len(on); k++ {
					if float64(on[k]) > 2*float64(on[0]) {
						missed = append(missed, fmt.Sprintf("on: turn %d's TTFT %v above twice turn 1's %v (about 1× on schedule)", k+1, on[k], on[0]))
					}
				}
				if float64(off[3]) < 2*float64(on[3]) {
					missed = append(missed, fmt.Sprintf("turn 4: TTFT %v off not twice %v on (3.8× on schedule)", off[3], on[3]))
				}
				if len(missed) == 0 {
					return
				}
				if try == 3 {
					t.Errorf("%s", strings.Join(missed, "; "))
					return
				}
				t.Logf("try %d missed: %s; measuring again", try, strings.Join(missed, "; "))
			}
		})
	}
}

// A turn that fails ends the conversation: the turns after it are not
// sent and have no result; the last result holds the error.
func TestConverseStopsAtAFailedTurn(t *testing.T) {
	for _, f := range []sim.Fault{sim.FaultError, "http-503"} {
		for _, kind := range kinds {
			t.Run(fmt.Sprintf("%s/%s", f, kind), func(t *testing.T) {
				cfg := convFast
				cfg.Fault, cfg.FaultEvery = f, 3 // the third request
				var rc received
				_, rt := startConv(t, cfg, kind, &rc)
				results := rt.Converse(context.Background(), runtimes.Request{Prompt: convPrompts[0], MaxTokens: 8}, convPrompts[1:])
				require.Len(t, results, 3, "turn 4 not sent")
				assert.NoError(t, results[0].Err)
				assert.NoError(t, results[1].Err)
				require.Error(t, results[2].Err)
				assert.Contains(t, results[2].Err.Error(), "simulated fault")
				assert.Equal(t, 3, results[2].Turn)
				assert.Len(t, rc.all(), 3, "the server was sent 3 requests")
			})
		}
	}
}
