package prompts

import (
	"fmt"
	"hash/fnv"
)

// Marker names one request of a run for a cold prompt: the run, the leaf
// run (counted from 1 across the run, -count repetitions included), the
// round (warm-up or timed) and the request's place in it.
type Marker struct {
	Run     string // the run's id
	Salt    int64  // something no other run shares, e.g. its start in ns
	Leaf    int
	Warmup  bool
	Round   int // from 1
	Request int // from 0
}

// String is the marker line, e.g. "[5d1e3f2a9c1e run 20261202T114519Z L7
// r3 i2]" ("w3" for a warm-up round). The first word is a hash of every field
// and the salt, so two markers differ from their first token on: a server
// that caches prompts by prefix (llama.cpp token by token, vLLM by blocks)
// finds nothing of one request's prompt in another's.
func (m Marker) String() string {
	kind := "r"
	if m.Warmup {
		kind = "w"
	}
	label := fmt.Sprintf("run %s L%d %s%d i%d", m.Run, m.Leaf, kind, m.Round, m.Request)
	h := fnv.New64a()
	fmt.Fprintf(h, "%d %s", m.Salt, label)
	return fmt.Sprintf("[%012x %s]", h.Sum64()>>16, label)
}

// Cold is text as a cold request sends it: the marker on a line of its own,
// then the prompt, unchanged.
func Cold(text string, m Marker) string { return m.String() + "\n" + text }
