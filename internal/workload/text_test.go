package workload

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceText reads the trace in content and returns its texts at 1.25
// tokens a word (410 words a block of 512).
func traceText(t *testing.T, content string, opts Options) (*Workload, *TraceText) {
	t.Helper()
	w, err := Read(write(t, "t.jsonl", content), opts)
	require.NoError(t, err)
	tt, err := NewTraceText(w, PerWord(1.25))
	require.NoError(t, err)
	return w, tt
}

// firstWord is the first word of s.
func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Requests that share hash ids share the text of those blocks, and differ
// from the first word after them.
func TestTraceTextSharesPrefixes(t *testing.T) {
	w, tt := traceText(t, strings.Join([]string{
		`{"timestamp": 0, "input_length": 1536, "output_length": 5, "hash_ids": [0, 1, 2]}`,
		`{"timestamp": 1, "input_length": 1400, "output_length": 5, "hash_ids": [0, 1, 3]}`,
		`{"timestamp": 2, "input_length": 2000, "output_length": 5, "hash_ids": [0, 1, 2, 7]}`,
		`{"timestamp": 3, "input_length": 1024, "output_length": 5, "hash_ids": [5, 1]}`,
		`{"timestamp": 4, "input_length": 1200, "output_length": 5, "hash_ids": [0, 1]}`,
	}, "\n"), Options{})
	p := make([]string, len(w.Requests))
	for i, r := range w.Requests {
		p[i] = tt.Prompt(r)
	}
	shared := tt.Block(0, 410) + " " + tt.Block(1, 410)
	for _, i := range []int{0, 1, 2, 4} {
		assert.True(t, strings.HasPrefix(p[i], shared), "request %d starts with blocks 0 and 1", i)
	}
	after := func(i int) string { return p[i][len(shared):] }
	assert.NotEqual(t, firstWord(after(0)), firstWord(after(1)), "blocks 2 and 3 differ from their first word")
	assert.True(t, strings.HasPrefix(p[2], p[0]), "request 2 repeats request 0's three whole blocks, then goes on")
	assert.NotEqual(t, firstWord(p[3]), firstWord(p[0]), "request 3 starts with block 5: nothing in common with block 0")
	assert.Contains(t, p[3], tt.Block(1, 410), "block 1's text is the same after another block")
	assert.NotEqual(t, firstWord(after(4)), firstWord(after(0)), "request 4's tail (1200 - 1024 tokens) is its own")

	// The same request, the same text; AppendPrompt agrees with Prompt.
	assert.Equal(t, p[1], tt.Prompt(w.Requests[1]))
	buf := tt.AppendPrompt([]byte("x"), w.Requests[1])
	assert.Equal(t, "x"+p[1], string(buf))
}

// A request's words are WordsFor of each block's tokens, the last block
// cut to what is left of input_length, and of its tail.
func TestTraceTextSizes(t *testing.T) {
	w, tt := traceText(t, strings.Join([]string{
		`{"timestamp": 0, "input_length": 1300, "output_length": 5, "hash_ids": [3, 4, 5]}`,
		`{"timestamp": 0, "input_length": 1300, "output_length": 5, "hash_ids": [3]}`,
		`{"timestamp": 0, "input_length": 100, "output_length": 5}`,
		`{"timestamp": 0, "input_length": 1, "output_length": 5}`,
		`{"timestamp": 0, "input_length": 1024, "output_length": 5, "hash_ids": [3, 4]}`,
	}, "\n"), Options{})
	for i, want := range []int{
		410 + 410 + 221, // 276 tokens of block 5: 220.8 words
		410 + 630,       // a tail of 788 tokens: 630.4 words
		80,
		1, // at least a word
		820,
	} {
		r := w.Requests[i]
		p := tt.Prompt(r)
		assert.Equal(t, want, tt.Words(r), "request %d", i)
		assert.Len(t, strings.Fields(p), want, "request %d: its text has the words Words says", i)
		assert.NotContains(t, p, "  ", "request %d: one space between segments", i)
		assert.Equal(t, strings.TrimSpace(p), p, "request %d", i)
	}
	// The cut block is the start of the whole one: a request that ends
	// inside block 5 shares what it has of it with one that has it whole.
	assert.True(t, strings.HasPrefix(tt.Block(5, 410), tt.Block(5, 221)))
	assert.True(t, strings.HasSuffix(tt.Prompt(w.Requests[0]), " "+tt.Block(5, 221)))
	assert.Equal(t, tt.Prompt(w.Requests[4]), tt.Block(3, 410)+" "+tt.Block(4, 410), "two whole blocks and no tail")
}

// Two requests with no hash ids and the same length have texts of their
// own; a block's text does not depend on the request or the sample.
func TestTraceTextTails(t *testing.T) {
	w, tt := traceText(t, strings.Repeat(`{"timestamp": 0, "input_length": 300, "output_length": 5}`+"\n", 3)+
		`{"timestamp": 9, "input_length": 600, "output_length": 5, "hash_ids": [1, 0]}`+"\n", Options{})
	a, b, c := tt.Prompt(w.Requests[0]), tt.Prompt(w.Requests[1]), tt.Prompt(w.Requests[2])
	assert.NotEqual(t, firstWord(a), firstWord(b), "tails differ from their first word")
	assert.NotEqual(t, firstWord(b), firstWord(c))
	assert.Len(t, strings.Fields(a), 240)

	// A window of the trace gives its requests the same texts as the
	// whole: a tail is keyed by its line, a block by its hash id.
	s, err := Read(w.Path, Options{N: 2, Seed: 3})
	require.NoError(t, err)
	st, err := NewTraceText(s, PerWord(1.25))
	require.NoError(t, err)
	for _, r := range s.Requests {
		assert.Equal(t, tt.Prompt(w.Requests[r.Line-1]), st.Prompt(r), "line %d", r.Line)
	}
}

// Tags are long enough for the largest key, and distinct: hash ids that
// are equal in their low digits in the tags' base still differ.
func TestTraceTextTags(t *testing.T) {
	v := len(theCorpus().vocab)
	require.Greater(t, v, 100, "the generated text's distinct words")
	big := 2 * v * v // key 4v²: three tag words
	w, tt := traceText(t, fmt.Sprintf(`{"timestamp": 0, "input_length": 2048, "output_length": 5, "hash_ids": [0, %d, %d, %d]}`, v/2, v*v/2, big), Options{})
	assert.Equal(t, 3, tt.width, "the largest key, 4v², is three digits in base v")
	assert.Equal(t, 1, w.Total)
	blocks := []string{tt.Block(0, 410), tt.Block(v/2, 410), tt.Block(v*v/2, 410), tt.Block(big, 410)}
	seen := map[string]bool{}
	for i, b := range blocks {
		tag := strings.Join(strings.Fields(b)[:tt.width], " ")
		assert.False(t, seen[tag], "block %d's tag %q is another's", i, tag)
		seen[tag] = true
	}
	// The trace's first request: tags of 1 word would do for hash 0, but
	// the width is the file's.
	_, small := traceText(t, `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [3]}`, Options{})
	assert.Equal(t, 1, small.width)
}

// A text that wraps around the end of the generated text.
func TestTraceTextWraps(t *testing.T) {
	w, tt := traceText(t, `{"timestamp": 0, "input_length": 100000, "output_length": 5}`, Options{})
	p := tt.Prompt(w.Requests[0])
	assert.Len(t, strings.Fields(p), 80000, "more words than the 32768 of the generated text")
	assert.NotContains(t, p, "  ")
}

func TestTraceTextErrors(t *testing.T) {
	w, err := Read("testdata/messages.jsonl", Options{})
	require.NoError(t, err)
	_, err = NewTraceText(w, PerWord(1))
	assert.EqualError(t, err, "workload testdata/messages.jsonl: not a trace, so no trace texts")
	w, err = Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	_, err = NewTraceText(w, nil)
	assert.Error(t, err)
}

func TestPerWord(t *testing.T) {
	f := PerWord(1.3)
	assert.Equal(t, 0, f(0))
	assert.Equal(t, 1, f(1))
	assert.Equal(t, 394, f(512))
	assert.Equal(t, 7692, f(10000))
}

// Prompt is safe for concurrent use (go test -race).
func TestTraceTextConcurrent(t *testing.T) {
	w, err := Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	tt, err := NewTraceText(w, PerWord(1.3))
	require.NoError(t, err)
	want := make([]string, len(w.Requests))
	for i, r := range w.Requests {
		want[i] = tt.Prompt(r)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range w.Requests {
				j := (i + g*7) % len(w.Requests)
				if got := tt.Prompt(w.Requests[j]); got != want[j] {
					t.Errorf("request %d: another text on goroutine %d", j, g)
				}
			}
		})
	}
	wg.Wait()
}
