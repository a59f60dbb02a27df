package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/runtimes"
)

// A reply of 32 tokens that came whole, in one chunk, 0.1 ms before the
// stream's end (Ollama 0.6.5's /v1 with tools, measured: one data: chunk,
// then [DONE]) gives no client-side decode rate or TPOT — out/(Total−TTFT)
// was 238,179 tok/s on the real server — and a note says why; the
// server's own eval time (Ollama's native API) still gives its own rate.
func TestWholeReplyHasNoClientDecode(t *testing.T) {
	whole := runtimes.Result{TTFT: 400 * time.Millisecond, Total: 400*time.Millisecond + 100*time.Microsecond, OutputTokens: 32, Chunks: 1, Turn: 1}
	m := Compute([]Round{{Wall: time.Second, MaxTokens: 32, Results: []runtimes.Result{whole, whole}}}, SLO{})
	assert.Zero(t, m.Decode.N, "no decode rate from a reply that came whole")
	assert.Zero(t, m.TPOT.N, "no TPOT either")
	assert.Equal(t, 2, m.Whole)
	assert.Contains(t, m.Notes("", NoteSettings{}), "2 of 2 replies of several tokens came whole, in one chunk (Ollama before 0.8 holds back the reply of a request with tools): their TTFT is the whole reply's time, and they give no client-side decode rate or TPOT")

	native := whole
	native.Eval = 118 * time.Millisecond // the server's own decode time
	m = Compute([]Round{{Wall: time.Second, MaxTokens: 32, Results: []runtimes.Result{native}}}, SLO{})
	assert.Zero(t, m.Decode.N, "the client's decode rate is the same on every runtime: none from a whole reply")
	assert.Equal(t, 1, m.ServerDecode.N, "the server's own rate is a figure apart")
	assert.InDelta(t, 32/0.118, m.ServerDecode.Mean, 1e-6)

	streamed := whole
	streamed.Chunks, streamed.Total = 32, 600*time.Millisecond
	m = Compute([]Round{{Wall: time.Second, MaxTokens: 32, Results: []runtimes.Result{streamed}}}, SLO{})
	assert.Equal(t, 1, m.Decode.N, "a streamed reply keeps its client-side decode rate")
	assert.Zero(t, m.Whole)
	assert.Empty(t, m.Notes("", NoteSettings{}))
}
