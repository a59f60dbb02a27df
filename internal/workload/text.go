package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/inferencebench/inferencebench/prompts"
)

// WordsFor is how many words of the suite's generated text a runtime
// counts as tokens tokens: the driver's calibration for one runtime (a
// tokenizer's tokens per word differ). It must not decrease as tokens
// grows, so that a shorter text of a block is a prefix of a longer one.
type WordsFor func(tokens int) int

// PerWord is the WordsFor of a fixed ratio: tokens/tokensPerWord words,
// rounded, and at least 1 for 1 token or more.
func PerWord(tokensPerWord float64) WordsFor {
	return func(tokens int) int {
		if tokens <= 0 {
			return 0
		}
		return max(1, int(math.Round(float64(tokens)/tokensPerWord)))
	}
}

// TraceText makes the prompt texts of a trace's requests for one runtime.
// A request with hash_ids h1…hk and input_length L is the texts of blocks
// h1…hk, each of the words WordsFor gives for BlockTokens tokens (the last
// one cut to what is left of L, if L ends inside it), then, if the blocks
// hold less than L, a tail of its own for the rest; one space between
// them.
//
// A block's text depends on its hash id alone: the same hash id is the same
// text in every request, so the servers' prefix caches find in a request
// what an earlier one with the same first blocks left. Each block and
// each tail starts with a tag of a few words that spell its key (the hash
// id, or the request's line for a tail) in a base of the generated text's
// words, least significant first, so two different blocks or tails differ
// within their first few words and no cache finds one in another; the rest
// is the suite's generated text (prompts.Words) from a word drawn by a PCG
// seeded with the key, wrapping around at the end.
//
// The texts are made when asked for, not kept: a trace of 100,000 requests
// of 10,000 tokens would be gigabytes. TraceText is safe for concurrent
// use.
type TraceText struct {
	blockTokens int
	blockWords  int
	wordsFor    WordsFor
	width       int
	c           *corpus
}

// NewTraceText returns the texts of w's requests (a Trace workload) sized
// by wordsFor.
func NewTraceText(w *Workload, wordsFor WordsFor) (*TraceText, error) {
	if w.Kind != Trace {
		return nil, errors.New("workload " + w.Path + ": not a trace, so no trace texts")
	}
	if wordsFor == nil {
		return nil, errors.New("trace text: no WordsFor")
	}
	c := theCorpus()
	width := 1
	for v, k := uint64(len(c.vocab)), w.maxKey; k >= v; k /= v {
		width++
	}
	return &TraceText{blockTokens: w.BlockTokens, blockWords: max(0, wordsFor(w.BlockTokens)), wordsFor: wordsFor, width: width, c: c}, nil
}

// Prompt is the text of request r.
func (t *TraceText) Prompt(r TraceRequest) string {
	n := 0
	t.pieces(r, func(s string) { n += len(s) })
	var b strings.Builder
	b.Grow(n)
	t.pieces(r, func(s string) { b.WriteString(s) })
	return b.String()
}

// AppendPrompt appends the text of request r to dst: Prompt without an
// allocation when dst has room.
func (t *TraceText) AppendPrompt(dst []byte, r TraceRequest) []byte {
	t.pieces(r, func(s string) { dst = append(dst, s...) })
	return dst
}

// Words is the number of words of request r's text.
func (t *TraceText) Words(r TraceRequest) int {
	n := 0
	t.segments(r, func(_ uint64, words int) { n += words })
	return n
}

// Block is the first words words of the text of block hash: what a
// request that starts with that block starts with, for calibrating
// WordsFor on a runtime.
func (t *TraceText) Block(hash, words int) string {
	var b strings.Builder
	t.c.segment(2*uint64(hash), t.width, words, func(s string) { b.WriteString(s) })
	return b.String()
}

// segments calls f with each segment of r's text: its key (2×hash id for
// a block, 2×line+1 for the tail) and its words.
func (t *TraceText) segments(r TraceRequest, f func(key uint64, words int)) {
	for i, h := range r.HashIDs {
		n := t.blockWords
		if left := r.InputTokens - i*t.blockTokens; left < t.blockTokens {
			n = max(0, t.wordsFor(left))
		}
		if n > 0 {
			f(2*uint64(h), n)
		}
	}
	if left := r.InputTokens - len(r.HashIDs)*t.blockTokens; left > 0 {
		if n := max(0, t.wordsFor(left)); n > 0 {
			f(2*uint64(r.Line)+1, n)
		}
	}
}

func (t *TraceText) pieces(r TraceRequest, emit func(string)) {
	first := true
	t.segments(r, func(key uint64, words int) {
		if !first {
			emit(" ")
		}
		first = false
		t.c.segment(key, t.width, words, emit)
	})
}

// corpus is the text the segments are drawn from: the first corpusWords
// words of prompts.Words, with where each word starts and ends, and its
// distinct words (lower case, no punctuation) for the tags.
type corpus struct {
	text         string
	starts, ends []int32
	vocab        []string
}

const (
	corpusWords = 1 << 15
	// textSeed seeds, with a segment's key, the word its text starts at.
	textSeed = 0x7e47_b10c
)

var theCorpus = sync.OnceValue(func() *corpus {
	c := &corpus{text: prompts.Words(corpusWords)}
	seen := map[string]bool{}
	in := false
	for i := 0; i <= len(c.text); i++ {
		space := i == len(c.text) || c.text[i] == ' ' || c.text[i] == '\n'
		switch {
		case !space && !in:
			c.starts = append(c.starts, int32(i))
			in = true
		case space && in:
			c.ends = append(c.ends, int32(i))
			in = false
			w := strings.ToLower(strings.Trim(c.text[c.starts[len(c.starts)-1]:i], ".,"))
			if !seen[w] {
				seen[w] = true
				c.vocab = append(c.vocab, w)
			}
		}
	}
	slices.Sort(c.vocab)
	return c
})

// segment emits the first n words of key's text: its tag of width words,
// then the corpus from the word key's PCG draws.
func (c *corpus) segment(key uint64, width, n int, emit func(string)) {
	v := uint64(len(c.vocab))
	k := key
	for i := 0; i < width && n > 0; i++ {
		if i > 0 {
			emit(" ")
		}
		emit(c.vocab[k%v])
		k /= v
		n--
	}
	if n == 0 {
		return
	}
	emit(" ")
	size := len(c.starts)
	o := int(rand.NewPCG(textSeed, key).Uint64() % uint64(size))
	for n > 0 {
		run := min(n, size-o)
		emit(c.text[c.starts[o]:c.ends[o+run-1]])
		n -= run
		o = 0
		if n > 0 {
			emit(" ")
		}
	}
}
