package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// user is a one-message prompt of a user's.
func user(text string) []chatMessage { return []chatMessage{{role: "user", texts: []string{text}}} }

// serveMsgs serves a prompt and returns its pieces, how many of them an
// earlier prompt began with, and C.
func serveMsgs(c *promptCache, msgs []chatMessage) (pieces, shared, cached int) {
	pr := c.measure(msgs)
	shared = c.serve(pr)
	return len(pr.prefixes), shared, pr.cached(shared)
}

// The pieces of a prompt, their tokens, and C in tokens: 0 with no word
// shared, the tokens of the shared pieces, P-1 when every piece is.
func TestPromptCached(t *testing.T) {
	c := newPromptCache(cacheCap, false)
	// Two messages: header 2 + "abcdefgh"(2) + "x"(1) + end 1, header 2 +
	// "hello"(2) "world"(2) + end 1, reply header 2.
	msgs := []chatMessage{{role: "system", texts: []string{"abcdefgh x"}}, {role: "user", texts: []string{"hello", "world"}}}
	pr := c.measure(msgs)
	assert.Equal(t, 15, pr.p)
	assert.Equal(t, PromptTokens("abcdefgh x", "hello world"), pr.p)
	assert.Equal(t, []int{2, 4, 5, 6, 8, 10, 12, 13, 15}, pr.ends)
	assert.Equal(t, 1, pr.text)
	for shared, want := range []int{0, 0, 4, 5, 6, 8, 10, 12, 13, 14} {
		assert.Equal(t, want, pr.cached(shared), "%d pieces shared", shared)
	}
	// No words: P is the template's, C 0 whatever is shared.
	pr = c.measure([]chatMessage{{role: "user"}})
	assert.Equal(t, MessageTokens+ReplyTokens, pr.p)
	assert.Equal(t, len(pr.prefixes), pr.text)
	for shared := range len(pr.prefixes) + 1 {
		assert.Zero(t, pr.cached(shared))
	}
	// clear says what the last prompt was, once.
	c.serve(c.measure(user("a b")))
	assert.Equal(t, 7, c.clear())
	assert.Zero(t, c.clear())
	assert.Zero(t, c.size())
}

// The longest prefix, piece by piece, across messages: roles and message
// boundaries count, the template's tokens alone are no hit, and a later
// turn of a conversation shares all of the turn before.
func TestPromptCachePrefix(t *testing.T) {
	c := newPromptCache(cacheCap, false)
	sys := chatMessage{role: "system", texts: []string{"You are terse."}}
	turn1 := []chatMessage{sys, {role: "user", texts: []string{"Name a colour."}}}
	p1 := PromptTokens("You are terse.", "Name a colour.")
	_, shared, cached := serveMsgs(c, turn1)
	assert.Zero(t, shared)
	assert.Zero(t, cached)

	_, _, cached = serveMsgs(c, turn1)
	assert.Equal(t, p1-1, cached, "again: all but the last token")

	// Turn 2: turn 1's messages, the reply, a new question. Turn 1's
	// prompt ended with the assistant's header, which the reply's message
	// begins with: all of it is shared.
	turn2 := append(turn1[:2:2], chatMessage{role: "assistant", texts: []string{" lorem ipsum"}}, chatMessage{role: "user", texts: []string{"Another."}})
	_, _, cached = serveMsgs(c, turn2)
	assert.Equal(t, p1, cached)
	p2 := PromptTokens("You are terse.", "Name a colour.", " lorem ipsum", "Another.")
	turn3 := append(turn2[:4:4], chatMessage{role: "assistant", texts: []string{" dolor"}}, chatMessage{role: "user", texts: []string{"More."}})
	_, _, cached = serveMsgs(c, turn3)
	assert.Equal(t, p2, cached)

	// The same system message, another question: the system message and
	// the user's header.
	_, _, cached = serveMsgs(c, []chatMessage{sys, {role: "user", texts: []string{"Count to three."}}})
	assert.Equal(t, MessageTokens+Tokens("You are terse.")+headerTokens, cached)

	// The same text in another role shares nothing: not even the header.
	_, shared, cached = serveMsgs(c, []chatMessage{{role: "user", texts: []string{"You are terse."}}, {role: "user", texts: []string{"Name a colour."}}})
	assert.Zero(t, shared)
	assert.Zero(t, cached)
	// Nor as the system's, after another role's message.
	_, _, cached = serveMsgs(c, []chatMessage{sys, {role: "assistant", texts: []string{"Name a colour."}}})
	assert.Equal(t, MessageTokens+Tokens("You are terse."), cached, "the system message, not the next")

	// Message boundaries count: the same words cut otherwise.
	_, _, cached = serveMsgs(c, []chatMessage{{role: "system", texts: []string{"You are"}}, {role: "user", texts: []string{"terse. Name a colour."}}})
	assert.Equal(t, headerTokens+Tokens("You are"), cached)

	// Words are whole: one that differs after its first 4 bytes is not
	// shared.
	_, _, cached = serveMsgs(c, []chatMessage{{role: "system", texts: []string{"You are tersely."}}})
	assert.Equal(t, headerTokens+Tokens("You are"), cached)

	// A prompt whose first word no other has shares nothing, though the
	// template's first tokens are the same.
	_, shared, cached = serveMsgs(c, []chatMessage{{role: "system", texts: []string{"[marker] You are terse."}}, {role: "user", texts: []string{"Name a colour."}}})
	assert.Equal(t, 1, shared, "the header")
	assert.Zero(t, cached)

	// Parts are one text.
	_, _, cached = serveMsgs(c, []chatMessage{{role: "system", texts: []string{"You ", "are terse."}}, {role: "user", texts: []string{"Name a colour."}}})
	assert.Equal(t, p1-1, cached)
}

// The cache keeps two generations of at most gen prefixes each: a prompt
// that would take the current one past gen makes it the old one, and the
// old one is forgotten. A prompt is remembered while the prompts after it
// add fewer than gen prefixes.
func TestPromptCacheGenerations(t *testing.T) {
	c := newPromptCache(40, false) // two generations of 20
	text := func(tag string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprint(tag, i)
		}
		return strings.Join(w, " ")
	}
	// user prompts of 5 words: 8 pieces (header, words, end, reply
	// header), the first, the user's header, the same for all.
	a := user(text("a", 5))
	pieces, _, _ := serveMsgs(c, a)
	require.Equal(t, 8, pieces)
	assert.Equal(t, 8, c.size())
	// Again: nothing new, all shared.
	_, shared, _ := serveMsgs(c, a)
	assert.Equal(t, 8, shared)
	assert.Equal(t, 8, c.size())
	// b shares a's header and first 2 words: 5 new prefixes.
	b := user(text("a", 2) + " " + text("b", 3))
	_, shared, _ = serveMsgs(c, b)
	assert.Equal(t, 3, shared)
	assert.Equal(t, 13, c.size())
	// d: 7 new, cur is full.
	d := user(text("d", 5))
	_, shared, _ = serveMsgs(c, d)
	assert.Equal(t, 1, shared, "the header")
	assert.Equal(t, 20, c.cur.n)
	// e: 7 new do not fit: cur becomes old.
	_, shared, _ = serveMsgs(c, user(text("e", 5)))
	assert.Equal(t, 1, shared)
	assert.Equal(t, 20, c.old.n)
	assert.Equal(t, 8, c.cur.n)
	// a is in old, still found; served, it goes into cur again.
	_, shared, _ = serveMsgs(c, a)
	assert.Equal(t, 8, shared)
	assert.Equal(t, 15, c.cur.n)
	// f: 7 new do not fit: the old generation (b, d) is forgotten, e and
	// a are old now.
	_, shared, _ = serveMsgs(c, user(text("f", 5)))
	assert.Equal(t, 1, shared)
	assert.Equal(t, 15, c.old.n)
	_, shared, _ = serveMsgs(c, a)
	assert.Equal(t, 8, shared, "a remembered: 7 prefixes came after it")
	_, shared, _ = serveMsgs(c, d)
	assert.Equal(t, 1, shared, "d forgotten: 21 came after it")
	_, shared, _ = serveMsgs(c, b)
	assert.Equal(t, 3, shared, "b forgotten, but a's first words")
	assert.LessOrEqual(t, c.size(), 40)

	// A prompt longer than a generation: its first gen prefixes are kept.
	c = newPromptCache(40, false)
	long := user(text("y", 30))
	pieces, _, _ = serveMsgs(c, long)
	assert.Equal(t, 33, pieces)
	assert.Equal(t, 20, c.size())
	_, shared, _ = serveMsgs(c, long)
	assert.Equal(t, 20, shared)
	assert.LessOrEqual(t, c.size(), 40)
}

// Off, nothing is remembered: every prompt is evaluated whole.
func TestPromptCacheOff(t *testing.T) {
	c := newPromptCache(cacheCap, true)
	for range 2 {
		_, shared, cached := serveMsgs(c, user("the same prompt"))
		assert.Zero(t, shared)
		assert.Zero(t, cached)
	}
	assert.Zero(t, c.size())
	assert.Equal(t, PromptTokens("the same prompt"), c.clear(), "the last prompt served")
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

// A reply's tokens depend on its chat's last message only, are the same
// for the same one, and are words of the vocabulary.
func TestReplyText(t *testing.T) {
	a, b := ReplyText("Say something.", 0, 32), ReplyText("Say something else.", 0, 32)
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, ReplyText("Say something.", 0, 32))
	assert.Equal(t, ReplyText("Say something.", 0, 10)+ReplyText("Say something.", 10, 32), a)
	assert.Equal(t, Token("Say something.", 3), ReplyText("Say something.", 3, 4))
	assert.Equal(t, replySeed("Say something."), replySeed("Say ", "something."), "parts are one text")
	seen := map[string]bool{}
	for i := range 1000 {
		w := Token("x", i)
		assert.Contains(t, vocab, w)
		seen[w] = true
	}
	assert.Len(t, seen, len(vocab), "every word comes up")
}

// A generation's set: found what it was given, probes past colliding
// hashes (the same low bits), wrapping at the table's end, holds at most
// size, and keeps the one table it made whatever it is given or forgets.
func TestPrefixSet(t *testing.T) {
	s := prefixSet{size: 4}
	assert.False(t, s.has(7), "before ready")
	s.ready()
	require.Len(t, s.slots, 8, "twice size, a power of two")
	table := &s.slots[0]
	// 7, 15 and 23 all start at slot 7: the last two wrap to slots 0, 1.
	for _, x := range []uint64{7, 15, 23, 15} {
		s.add(x)
	}
	assert.Equal(t, 3, s.n, "15 twice is one hash")
	for _, x := range []uint64{7, 15, 23} {
		assert.True(t, s.has(x), "%d", x)
	}
	assert.False(t, s.has(31), "same start, not given")
	assert.False(t, s.has(8))
	// 0 is kept as 1 (slot 0 marks empty).
	s.add(0)
	assert.True(t, s.has(0))
	assert.Equal(t, 4, s.n)
	s.add(9)
	assert.False(t, s.has(9), "past size: not kept")
	assert.Equal(t, 4, s.n)
	s.empty()
	assert.Zero(t, s.n)
	assert.False(t, s.has(7))
	for i := range uint64(1000) {
		if s.n == s.size {
			s.empty()
		}
		s.add(i * 8)
		assert.True(t, s.has(i*8))
	}
	require.Len(t, s.slots, 8)
	assert.Same(t, table, &s.slots[0], "the same table throughout")

	// The server's: two generations of 2^17 in tables of 2 MiB each.
	c := newPromptCache(cacheCap, false)
	assert.Nil(t, c.cur.slots, "no table before the first prompt")
	c.serve(c.measure(user("a b")))
	assert.Len(t, c.cur.slots, 1<<18)
	assert.Len(t, c.old.slots, 1<<18, "both made at the first prompt")
}
