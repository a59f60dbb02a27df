package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The cache is bounded: a prompt that would take it past cacheCap empties
// it before it is remembered.
func TestPromptCacheBounded(t *testing.T) {
	c := newPromptCache()
	long := make([]string, cacheCap-10)
	for i := range long {
		long[i] = fmt.Sprint("w", i)
	}
	text := strings.Join(long, " ")
	p, cached := c.serve([]string{text})
	assert.Equal(t, cacheCap-10, p)
	assert.Zero(t, cached)
	assert.Len(t, c.seen, cacheCap-10)
	_, cached = c.serve([]string{"w0 w1 w2 other"})
	assert.Equal(t, 3, cached, "remembered")
	assert.Len(t, c.seen, cacheCap-9, "one new prefix")
	// A repeat adds nothing, so it fits.
	_, cached = c.serve([]string{text})
	assert.Equal(t, cacheCap-11, cached)
	assert.Len(t, c.seen, cacheCap-9)
	// 20 new prefixes do not: the cache is emptied, then this one kept.
	p, cached = c.serve([]string{strings.Repeat("x ", 20)})
	assert.Equal(t, 20, p)
	assert.Zero(t, cached)
	assert.Len(t, c.seen, 20)
	_, cached = c.serve([]string{"w0 w1 w2 other"})
	assert.Zero(t, cached, "forgotten")

	// A prompt longer than the cap: its first cacheCap prefixes are kept.
	c = newPromptCache()
	huge := strings.Repeat("y ", cacheCap+5)
	p, _ = c.serve([]string{huge})
	assert.Equal(t, cacheCap+5, p)
	assert.Len(t, c.seen, cacheCap)
	_, cached = c.serve([]string{huge})
	assert.Equal(t, cacheCap, cached, "found before the cache is emptied for the 5 more")
	assert.Len(t, c.seen, cacheCap)
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
