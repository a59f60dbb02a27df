package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// genTrace writes a Mooncake-style trace of n requests, made up for the
// suite (no recorded trace is copied): arrivals with exponential gaps of
// mean gapMs, a quarter of them in bursts at the same millisecond; four
// shared system prompts of 1 to 4 blocks of 512 tokens that most sessions
// start with; sessions that come back with their history (all but its
// last, partial block) and 1 to 3 new blocks, up to 32 blocks; and a few
// requests with no hash_ids. Each request lists ceil(input_length/512)
// hash ids, as Mooncake's do.
func genTrace(w io.Writer, n int, gapMs float64, seed uint64) error {
	return genTraceShape(w, traceShape{n: n, gapMs: gapMs, seed: seed, newBlocks: 3, maxBlocks: 32})
}

// traceShape is what genTraceShape makes: n requests, gaps of mean gapMs,
// sessions that start with 1 to newBlocks blocks of their own (after a
// shared system prompt or not) and come back with 1 to newBlocks more,
// up to maxBlocks.
type traceShape struct {
	n                    int
	gapMs                float64
	seed                 uint64
	newBlocks, maxBlocks int
}

func genTraceShape(w io.Writer, shape traceShape) error {
	n, gapMs, seed := shape.n, shape.gapMs, shape.seed
	r := rand.New(rand.NewPCG(seed, seed))
	next := 0
	fresh := func(k int) []int {
		ids := make([]int, k)
		for i := range ids {
			ids[i] = next
			next++
		}
		return ids
	}
	roots := [][]int{fresh(2), fresh(3), fresh(1), fresh(4)}
	var sessions [][]int
	bw := bufio.NewWriter(w)
	t := 0.0
	for i := range n {
		if i > 0 && r.Float64() >= 0.25 {
			t += float64(int(r.ExpFloat64() * gapMs))
		}
		var ids []int
		switch p := r.Float64(); {
		case p < 0.05:
			// No shared blocks: a short prompt of its own.
		case p < 0.5 && len(sessions) > 0:
			s := r.IntN(len(sessions))
			prev := sessions[s]
			ids = append(append([]int(nil), prev[:len(prev)-1]...), fresh(1+r.IntN(shape.newBlocks))...)
			if len(ids) > shape.maxBlocks {
				ids = append(append([]int(nil), roots[r.IntN(len(roots))]...), fresh(1+r.IntN(shape.newBlocks))...)
			}
			sessions[s] = ids
		default:
			if r.Float64() < 0.8 {
				ids = append(ids, roots[r.IntN(len(roots))]...)
			}
			ids = append(ids, fresh(1+r.IntN(shape.newBlocks))...)
			if len(sessions) < 64 {
				sessions = append(sessions, ids)
			} else {
				sessions[r.IntN(len(sessions))] = ids
			}
		}
		input := 1 + r.IntN(511)
		if len(ids) > 0 {
			input = (len(ids)-1)*512 + 1 + r.IntN(512)
		}
		fmt.Fprintf(bw, `{"timestamp": %d, "input_length": %d, "output_length": %d`, int(t), input, 16+r.IntN(480))
		if len(ids) > 0 {
			bw.WriteString(`, "hash_ids": [`)
			for j, id := range ids {
				if j > 0 {
					bw.WriteString(", ")
				}
				fmt.Fprint(bw, id)
			}
			bw.WriteString("]")
		}
		bw.WriteString("}\n")
	}
	return bw.Flush()
}

// testdata/trace.jsonl is genTrace's 50 requests over about 20 s; -update
// writes it again.
func TestTraceFixture(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, genTrace(&b, 50, 540, 7))
	testkit.Golden(t, "testdata/trace.jsonl", b.Bytes(), "go test ./internal/workload -run TestTraceFixture -update")
}

// writeTrace writes genTrace's n requests to a file in a temporary folder.
func writeTrace(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, genTrace(f, n, 540, 7))
	require.NoError(t, f.Close())
	return path
}
