package e2e

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
)

func TestClientDecode(t *testing.T) {
	r := runtimes.Result{TTFT: 20 * ms, Total: 1020 * ms, OutputTokens: 128}
	assert.InDelta(t, 128.0, clientDecode(r), 1e-9, "tokens / (total - TTFT)")
	for name, r := range map[string]runtimes.Result{
		"no text":          {Total: time.Second, OutputTokens: 128},
		"ended with TTFT":  {TTFT: time.Second, Total: time.Second, OutputTokens: 128},
		"total below TTFT": {TTFT: time.Second, Total: 900 * ms, OutputTokens: 128},
	} {
		assert.True(t, math.IsNaN(clientDecode(r)), name)
	}
}

func TestServerDecode(t *testing.T) {
	assert.InDelta(t, 200.0, serverDecode(runtimes.Result{OutputTokens: 128, Eval: 640 * ms}), 1e-9)
	assert.True(t, math.IsNaN(serverDecode(runtimes.Result{OutputTokens: 128})), "no eval_duration")
}

func TestCheckTokens(t *testing.T) {
	assert.Empty(t, checkTokens(request(128), 128))
	short := request(100)
	short.FinishReason = "stop"
	assert.Equal(t, []string{`100 output tokens, want 128 (finish reason "stop")`, `finish reason "stop", want "length"`},
		checkTokens(short, 128))
	approx := request(128)
	approx.TokensApprox, approx.Chunks = true, 128
	assert.Equal(t, []string{"the server gave no token count (128 chunks counted)"}, checkTokens(approx, 128))
}

func TestCheckAgainstServer(t *testing.T) {
	// 128 tokens in 1 s after the first: 128 tok/s on the client's clock.
	at := func(eval, ttft, promptEval time.Duration) runtimes.Result {
		return runtimes.Result{TTFT: ttft, Total: ttft + time.Second, OutputTokens: 128, Eval: eval, PromptEval: promptEval, PromptTokens: 20}
	}
	for _, tc := range []struct {
		name string
		r    runtimes.Result
		want string // "" passes
	}{
		{"same clock", at(time.Second, 20*ms, 10*ms), ""},
		// client / server = (128 / 1 s) / (128 / eval) = eval / 1 s
		{"client 14% slow", at(860*ms, 20*ms, 10*ms), ""},
		{"client 16% slow", at(840*ms, 20*ms, 10*ms), "client-side decode 128.0 tok/s is -16.0% off the server's eval rate 152.4 tok/s (limit ±15%)"},
		{"client 14% fast", at(1140*ms, 20*ms, 10*ms), ""},
		{"client 22% fast", at(1220*ms, 20*ms, 10*ms), "client-side decode 128.0 tok/s is +22.0% off the server's eval rate 104.9 tok/s (limit ±15%)"},
		{"TTFT equals prompt eval", at(time.Second, 10*ms, 10*ms), ""},
		{"TTFT below prompt eval", at(time.Second, 9*ms, 10*ms), "TTFT 9.00 ms is below the server's prompt evaluation time 10.00 ms"},
		{"no eval", at(0, 20*ms, 10*ms), "the server reported eval_duration 0s, prompt_eval_duration 10ms"},
		{"no prompt eval", at(time.Second, 20*ms, 0), "the server reported eval_duration 1s, prompt_eval_duration 0s"},
		{"no text", at(time.Second, 0, 10*ms), "client-side decode NaN tok/s"},
	} {
		fails := checkAgainstServer(tc.r, 0.15)
		if tc.want == "" {
			assert.Empty(t, fails, tc.name)
			continue
		}
		assert.Contains(t, strings.Join(fails, "\n"), tc.want, tc.name)
	}
}
