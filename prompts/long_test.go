package prompts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWords(t *testing.T) {
	assert.Empty(t, Words(0))
	long := Words(5000)
	assert.Len(t, strings.Fields(long), 5000)
	for _, n := range []int{1, 7, 100, 4999} {
		w := Words(n)
		assert.Len(t, strings.Fields(w), n)
		assert.True(t, strings.HasPrefix(long, w), "a shorter text starts the longer one")
	}
	// Prose-like: capitals after full stops, commas, paragraphs.
	assert.Regexp(t, `^[A-Z][a-z]+ `, long)
	assert.Contains(t, long, ". ")
	assert.Contains(t, long, ", ")
	assert.Contains(t, long, ".\n\n")
	// Fixed: the first words never change between runs or machines (a
	// change would change every in<N> prompt, and with it the runs'
	// comparability).
	assert.Equal(t, "The farmer carries one harbor. Each open garden collects toward the silver account. Another open", Words(15))
}

func TestParseInputName(t *testing.T) {
	for name, want := range map[string]int{"in512": 512, "in32768": 32768, "in1": 1} {
		n, ok := ParseInputName(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, n, name)
		assert.Equal(t, name, InputName(n))
	}
	for _, name := range []string{"in", "in0", "in08", "in-5", "in1k", "short", "input512", "in+5"} {
		_, ok := ParseInputName(name)
		assert.False(t, ok, name)
	}
}

func TestSelect(t *testing.T) {
	ps, err := Select(nil, "", []int{512, 4096})
	require.NoError(t, err)
	require.Len(t, ps, 2, "with lengths and no names, only the in<N> prompts")
	assert.Equal(t, Prompt{Name: "in512", InputTokens: 512}, ps[0])
	assert.Equal(t, Prompt{Name: "in4096", InputTokens: 4096}, ps[1])

	ps, err = Select([]string{"in4096", "short", "in512"}, "", []int{512, 4096})
	require.NoError(t, err)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"in4096", "short", "in512"}, names, "in the order named")
	assert.NotEmpty(t, ps[1].Text)
	assert.Equal(t, 4096, ps[0].InputTokens)

	_, err = Select([]string{"short", "in1024"}, "", []int{512})
	assert.ErrorContains(t, err, `prompt "in1024": BENCH_INPUT_TOKENS does not make it (it makes in512)`)
	_, err = Select([]string{"short"}, "", []int{512})
	assert.ErrorContains(t, err, "BENCH_INPUT_TOKENS makes in512, which BENCH_PROMPTS does not list")
	_, err = Select([]string{"in512", "in512"}, "", []int{512})
	assert.ErrorContains(t, err, `"in512" is listed twice`)
	_, err = Select([]string{"in512"}, "", nil)
	assert.ErrorContains(t, err, `unknown prompt "in512"`, "without lengths an in<N> name is no prompt")
}

// BenchmarkColdLongPrompt is what building a 32k-token request's text
// costs on the request's path: the generated text (made once for the
// run) and the cold marker before it.
func BenchmarkColdLongPrompt(b *testing.B) {
	const words = 19068 // 32768 tokens by the simulator's tokenizer
	Words(words)
	m := Marker{Run: "20261203T000000Z", Salt: 1, Leaf: 3}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Request = i
		_ = Cold(Words(words), m)
	}
}
