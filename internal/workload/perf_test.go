package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// perfRequests is the length of the traces of the performance tests: the
// bound is for reading 100,000 requests and building them.
const perfRequests = 100_000

// perfShape is the trace of the timing test: 100,000 requests whose
// prompts are 8,000 tokens on average (sessions of up to 64 blocks of
// 512), 3.8 GiB of text at 1.3 tokens a word.
var perfShape = traceShape{n: perfRequests, gapMs: 540, seed: 7, newBlocks: 16, maxBlocks: 64}

// writeTraceShape writes genTraceShape's trace to a temporary folder.
func writeTraceShape(t testing.TB, shape traceShape) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, genTraceShape(f, shape))
	require.NoError(t, f.Close())
	return path
}

// perfFigures are what reading a trace and building its requests' texts
// cost.
type perfFigures struct {
	read, build time.Duration
	// peakInUse is the most heap in use (MemStats.HeapInuse, the whole
	// test binary's) seen: after Read, and every 10,000 texts built.
	// retained is what the heap in use grew by, after a GC, with the
	// workload and its TraceText still held.
	peakInUse, retained uint64
	allocated           uint64 // bytes allocated, garbage included
	built, bytes        int    // texts built and their bytes
	words, tokens       int    // every request's words (Words) and input_length
}

func (f perfFigures) String() string {
	const mib = 1 << 20
	return fmt.Sprintf("read %v, build %v, total %v; peak heap in use %d MiB, retained %d MiB, allocated %d MiB; %d texts of %d MiB; %d words for %d tokens",
		f.read.Round(time.Millisecond), f.build.Round(time.Millisecond), (f.read + f.build).Round(time.Millisecond),
		f.peakInUse/mib, f.retained/mib, f.allocated/mib, f.built, f.bytes/mib, f.words, f.tokens)
}

// measurePerf reads the trace at path and builds the text of every
// every-th request with Prompt, a string each, dropped once measured: as
// the driver would send them.
func measurePerf(t testing.TB, path string, every int) (*Workload, perfFigures) {
	t.Helper()
	var f perfFigures
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base, alloc0 := m.HeapInuse, m.TotalAlloc
	sample := func() {
		runtime.ReadMemStats(&m)
		f.peakInUse = max(f.peakInUse, m.HeapInuse)
	}

	start := time.Now()
	w, err := Read(path, Options{})
	require.NoError(t, err)
	tt, err := NewTraceText(w, PerWord(1.3))
	require.NoError(t, err)
	f.read = time.Since(start)
	sample()

	start = time.Now()
	for i := 0; i < len(w.Requests); i += every {
		f.bytes += len(tt.Prompt(w.Requests[i]))
		f.built++
		if i%10_000 == 0 {
			sample()
		}
	}
	f.build = time.Since(start)
	sample()
	f.allocated = m.TotalAlloc - alloc0
	for _, r := range w.Requests {
		f.words += tt.Words(r)
		f.tokens += r.InputTokens
	}
	runtime.GC()
	runtime.ReadMemStats(&m)
	f.retained = m.HeapInuse - min(base, m.HeapInuse)
	runtime.KeepAlive(tt)
	return w, f
}

// A trace of 100,000 requests is read whole and right, and their texts
// built (every one; every 10th under the race detector, which makes each
// copy slow). The time and memory bounds are perf_timing_test.go's.
func TestLargeTrace(t *testing.T) {
	every := 1
	if raceEnabled {
		every = 10
	}
	path := writeTrace(t, perfRequests)
	w, f := measurePerf(t, path, every)
	t.Logf("%d requests: %v", w.Len(), f)
	require.Len(t, w.Requests, perfRequests)
	assert.Equal(t, perfRequests, w.Total)
	assert.Equal(t, perfRequests/every, f.built)
	for i, r := range w.Requests {
		if r.Line != i+1 || i > 0 && r.Arrival < w.Requests[i-1].Arrival {
			t.Fatalf("request %d: line %d at %v, after %v", i, r.Line, r.Arrival, w.Requests[i-1].Arrival)
		}
	}
	// 540 ms gaps, a quarter of them 0 and each rounded down to a
	// millisecond: about 405 ms a request.
	assert.InDelta(t, 0.405*perfRequests, w.Duration().Seconds(), 0.02*perfRequests)
	// At 1.3 tokens a word the words are the tokens / 1.3, within the
	// rounding of each block and tail, half a word each (the trace has
	// at most 33 a request, 5 on average).
	assert.InDelta(t, float64(f.tokens)/1.3, float64(f.words), float64(perfRequests*5)/2)
	assert.InDelta(t, float64(f.bytes)/float64(f.built), float64(f.tokens)/perfRequests/1.3*6.5, float64(f.tokens)/perfRequests, "about 6.5 bytes a word")

	// The same hash ids, the same text: consecutive requests whose first
	// two blocks are the same start with the same text, of both blocks.
	tt, err := NewTraceText(w, PerWord(1.3))
	require.NoError(t, err)
	pairs := 0
	for i := 1; i < 5000; i++ {
		a, b := w.Requests[i-1], w.Requests[i]
		if len(a.HashIDs) >= 3 && len(b.HashIDs) >= 3 && a.HashIDs[0] == b.HashIDs[0] && a.HashIDs[1] == b.HashIDs[1] {
			prefix := tt.Block(a.HashIDs[0], 394) + " " + tt.Block(a.HashIDs[1], 394)
			assert.True(t, strings.HasPrefix(tt.Prompt(a), prefix), "line %d", a.Line)
			assert.True(t, strings.HasPrefix(tt.Prompt(b), prefix), "line %d", b.Line)
			pairs++
		}
	}
	assert.Greater(t, pairs, 50)
}
