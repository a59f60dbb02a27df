package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// serveText serves a one-message prompt and returns its words and how
// many of them an earlier prompt began with.
func serveText(c *promptCache, text string) (words, shared int) {
	pr := c.measure([][]string{{text}})
	return len(pr.prefixes), c.serve(pr)
}

// The cache is bounded: a prompt that would take it past cacheCap empties
// it before it is remembered.
func TestPromptCacheBounded(t *testing.T) {
	c := newPromptCache()
	long := make([]string, cacheCap-10)
	for i := range long {
		long[i] = fmt.Sprint("w", i)
	}
	text := strings.Join(long, " ")
	w, shared := serveText(c, text)
	assert.Equal(t, cacheCap-10, w)
	assert.Zero(t, shared)
	assert.Len(t, c.seen, cacheCap-10)
	_, shared = serveText(c, "w0 w1 w2 other")
	assert.Equal(t, 3, shared, "remembered")
	assert.Len(t, c.seen, cacheCap-9, "one new prefix")
	// A repeat adds nothing, so it fits.
	_, shared = serveText(c, text)
	assert.Equal(t, cacheCap-10, shared)
	assert.Len(t, c.seen, cacheCap-9)
	// 20 new prefixes do not: the cache is emptied, then this one kept.
	w, shared = serveText(c, strings.Repeat("x ", 20))
	assert.Equal(t, 20, w)
	assert.Zero(t, shared)
	assert.Len(t, c.seen, 20)
	_, shared = serveText(c, "w0 w1 w2 other")
	assert.Zero(t, shared, "forgotten")

	// A prompt longer than the cap: its first cacheCap prefixes are kept.
	c = newPromptCache()
	huge := strings.Repeat("y ", cacheCap+5)
	w, _ = serveText(c, huge)
	assert.Equal(t, cacheCap+5, w)
	assert.Len(t, c.seen, cacheCap)
	_, shared = serveText(c, huge)
	assert.Equal(t, cacheCap, shared, "found before the cache is emptied for the 5 more")
	assert.Len(t, c.seen, cacheCap)
}

// C in tokens: 0 with no word shared, the template's tokens up to the last
// shared word, P-1 when every word is.
func TestPromptCached(t *testing.T) {
	c := newPromptCache()
	// Two messages: 3 + "abcdefgh"(2) + "x"(1), 3 + "hello"(2) "world"(2), 2.
	pr := c.measure([][]string{{"abcdefgh x"}, {"hello", "world"}})
	assert.Equal(t, 15, pr.p)
	assert.Equal(t, PromptTokens("abcdefgh x", "hello world"), pr.p)
	assert.Equal(t, []int{5, 6, 11, 13}, pr.ends)
	for shared, want := range []int{0, 5, 6, 11, 14} {
		assert.Equal(t, want, pr.cached(shared), "%d words shared", shared)
	}
	// No words: P is the template's, C 0.
	pr = c.measure([][]string{{""}})
	assert.Equal(t, MessageTokens+ReplyTokens, pr.p)
	assert.Zero(t, pr.cached(0))
	// clear says what the last prompt was, once.
	c.serve(c.measure([][]string{{"a b"}}))
	assert.Equal(t, 7, c.clear())
	assert.Zero(t, c.clear())
	assert.Empty(t, c.seen)
}

func TestEvaluated(t *testing.T) {
	assert.Equal(t, 50*time.Millisecond, evaluated(50*time.Millisecond, 7, 0))
	assert.Equal(t, time.Duration(333333), evaluated(time.Millisecond, 3, 2))
	assert.Equal(t, 25*time.Millisecond, evaluated(50*time.Millisecond, 4, 2))
	// No overflow at the extremes.
	assert.Equal(t, time.Duration(1<<62), evaluated(1<<62, 1<<40, 0))
	assert.Equal(t, time.Duration((1<<62)/(1<<40)), evaluated(1<<62, 1<<40, 1<<40-1))
}

func TestWords(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a b\tc\n", "héllo wörld", "a\u00a0b", "a\u2003b\u3000c", "x\x85y", "日本語 テキスト", "a\x00b c"} {
		got := []string{}
		for w := range words(s) {
			got = append(got, w)
		}
		assert.Equal(t, strings.Fields(s), got, "%q", s)
	}
}
