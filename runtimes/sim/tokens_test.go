package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A word is ceil(bytes/4) tokens, whatever the whitespace between words.
func TestTokens(t *testing.T) {
	for s, want := range map[string]int{
		"": 0, "   ": 0, "a": 1, "a cat": 2, "abcd": 1, "abcde": 2, "extraordinary": 4,
		"  a\tb\nc  ": 3, "héllo": 2, // 6 bytes
		"日本語 テキスト":                                     3 + 3, // 9 and 12 bytes
		"The quick brown fox jumps over the lazy dog.": 1 + 2 + 2 + 1 + 2 + 1 + 1 + 1 + 1,
	} {
		assert.Equal(t, want, Tokens(s), "%q", s)
	}
	// Never a word count, once words are longer than 4 bytes.
	assert.NotEqual(t, len(strings.Fields("extraordinary claims")), Tokens("extraordinary claims"))
	for _, s := range []string{"", " ", "a", " a b\tc\n", "héllo wörld", "a\u00a0b", "a\u2003b\u3000c", "x\x85y", "日本語 テキスト", "a\x00b c"} {
		want := 0
		for _, w := range strings.Fields(s) {
			want += (len(w) + 3) / 4
		}
		assert.Equal(t, want, Tokens(s), "%q: as strings.Fields splits it", s)
	}
}

func TestPromptTokens(t *testing.T) {
	assert.Equal(t, ReplyTokens, PromptTokens())
	assert.Equal(t, 5, PromptTokens(""))
	assert.Equal(t, 3+2+3+4+2, PromptTokens("a cat", "extraordinary"))
}

// The ids: as many as Tokens says, stable, and the template's apart.
func TestTokenIDs(t *testing.T) {
	s := "extraordinary claims need a cat"
	ids := appendTextIDs(nil, s)
	require.Len(t, ids, Tokens(s))
	assert.Equal(t, ids, appendTextIDs(nil, s), "stable")
	for _, id := range ids {
		assert.True(t, 0 <= id && id < vocabSize, "%d", id)
	}
	assert.Equal(t, appendTextIDs(nil, "claims"), ids[4:6], "a word's ids do not depend on its neighbours")

	chat := appendChatIDs(nil, []chatMessage{{role: "user", texts: []string{"a cat"}}, {role: "assistant", texts: []string{"extra", "ordinary"}}})
	assert.Len(t, chat, PromptTokens("a cat", "extra ordinary"))
	assert.Equal(t, []int{messageID, messageID + 1}, chat[:2], "the first header")
	assert.Equal(t, messageID+2, chat[4], "its end")
	assert.Equal(t, []int{replyID, replyID + 1}, chat[len(chat)-2:])
}

// Ollama's cut: num_ctx tokens, the first 4 and the last; the cached ones
// among those kept.
func TestCut(t *testing.T) {
	for _, tc := range []struct{ p, c, ctx, wantP, wantC int }{
		{100, 50, 100, 100, 50}, // fits: as is
		{100, 0, 40, 40, 0},
		{100, 99, 40, 40, 39}, // all seen: all but the last
		{100, 10, 40, 40, 4},  // the cached 10 are the first 4 kept and 6 dropped
		{100, 70, 40, 40, 10}, // 4 + tokens 64..69 of the tail
		{100, 3, 40, 40, 3},   // within the first 4
		{10, 9, 1, 1, 0},      // num_ctx 1: one token, never cached
		{10, 9, 3, 3, 2},      // keeps 2 at the start (num_ctx-1) and 1 at the end
		{5000, 0, 2048, 2048, 0},
	} {
		p, c := cut(tc.p, tc.c, tc.ctx)
		assert.Equal(t, tc.wantP, p, "%+v", tc)
		assert.Equal(t, tc.wantC, c, "%+v", tc)
	}
}

// The model's load state: a load after an unload or for another num_ctx,
// and the wait of those that come while it loads.
func TestStateUse(t *testing.T) {
	cfg := Config{TTFT: time.Millisecond, TokensPerSec: 1000}
	st := newState(cfg)
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	load := 300 * time.Millisecond
	assert.Zero(t, st.use(at(0), 0, DefaultNumCtx, load), "loaded at the start")
	assert.Zero(t, st.use(at(0), DefaultNumCtx, DefaultNumCtx, load), "with the default num_ctx")
	assert.Zero(t, st.loads.Load())
	assert.Equal(t, load, st.use(at(10), 4096, DefaultNumCtx, load), "another num_ctx: a load")
	assert.Equal(t, 200*time.Millisecond, st.use(at(110), 4096, DefaultNumCtx, load), "waits for the load under way")
	assert.Equal(t, 100*time.Millisecond, st.use(at(210), 0, DefaultNumCtx, load), "any num_ctx will do, but it waits too")
	assert.Zero(t, st.use(at(400), 4096, DefaultNumCtx, load), "loaded")
	assert.EqualValues(t, 1, st.loads.Load())
	st.loaded = false
	assert.False(t, st.isLoaded())
	assert.Equal(t, load, st.use(at(500), 0, DefaultNumCtx, load), "unloaded: a load")
	assert.Equal(t, DefaultNumCtx, st.numCtx, "with the default num_ctx")
	assert.True(t, st.isLoaded())
	assert.EqualValues(t, 2, st.loads.Load())
}
