package driver

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A run keeps what its figures need of a request, not the request: its
// memory stays flat in the length of the run. 20,000 requests of 512-token
// replies (their gaps alone were 2 KiB a request) go through an
// open-loop leaf run, its records and the run's figures, and the heap they
// leave in use must be under 1 KiB a request (BenchmarkMillionRequests
// measures about 220 bytes against the simulator). The replies are made
// here, not streamed, so that the test is quick and measures no network.
func TestRetainedPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's bookkeeping would be measured, not the run")
	}
	const requests, tokens = 20000, 512
	d, err := setup(context.Background(), memEnv(t.TempDir()), io.Discard, Options{})
	require.NoError(t, err)
	defer d.Close()
	k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1, Rate: 1e9}
	before := heapInUse()
	l, err := d.newLeaf(context.Background(), k, d.runtime("sim"), 1, requests, k.Levels())
	require.NoError(t, err)
	send := func(req runtimes.Request) []runtimes.Result {
		res := runtimes.Result{
			Start: time.Now(), TTFT: time.Millisecond, TTFC: time.Millisecond, Total: time.Second,
			Gaps: make([]float32, tokens-1), OutputTokens: tokens, Chunks: tokens, PromptTokens: 20,
			// As a decoder makes them: a string of each reply's own.
			FinishReason: string([]byte("length")), ServedModel: string([]byte("sim-model")),
			Conversation: req.Conversation, Turn: 1,
		}
		for i := range res.Gaps {
			res.Gaps[i] = float32(i%7+1) / 1000
		}
		return []runtimes.Result{res}
	}
	for range requests {
		l.open.arrive(send, l.req)
	}
	o := l.End()
	require.NoError(t, o.SaveErr)
	require.Equal(t, requests, o.Metrics.Successes)
	require.Equal(t, requests*(tokens-1), o.Metrics.ITL.N, "every gap is counted")
	after := heapInUse()
	runtime.KeepAlive(d)
	per := (float64(after) - float64(before)) / requests
	t.Logf("%.0f bytes a request", per)
	assert.Less(t, per, 1024.0, "bytes of heap a request leaves in use")
}
