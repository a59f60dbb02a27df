package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckContextTrace(t *testing.T) {
	w, err := Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	most, i := w.MaxNeed(0, nil)
	r := w.Requests[i]
	assert.Equal(t, r.InputTokens+r.OutputTokens, most)
	for _, q := range w.Requests {
		assert.LessOrEqual(t, q.InputTokens+q.OutputTokens, most)
	}
	assert.NoError(t, w.CheckContext(most, 128, nil), "the largest need fits a context of itself")
	err = w.CheckContext(most-1, 128, nil)
	require.Error(t, err)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, r.Line, e.Line)
	assert.Contains(t, err.Error(), "more than the context of")

	err = w.CheckContext(1500, 128, nil)
	first := -1
	over := 0
	for _, q := range w.Requests {
		if q.InputTokens+q.OutputTokens > 1500 {
			over++
			if first < 0 {
				first = q.Line
			}
		}
	}
	require.Greater(t, over, 2)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, first, e.Line, "the first request over the limit")
	assert.Regexp(t, `^workload testdata/trace.jsonl line \d+: input_length \d+ \+ output_length \d+ = \d+ tokens, more than the context of 1500 \(and \d+ more of the 50\)$`, err.Error())
}

func TestCheckContextConversations(t *testing.T) {
	w, err := Read("testdata/messages.jsonl", Options{})
	require.NoError(t, err)
	// Line 2: "You are terse." (14 bytes: 4 tokens), "Name a prime." (13:
	// 4), "Another." (8: 2), and its own max_tokens 64 for each of its 2
	// replies.
	assert.Equal(t, 4+4+2+2*64, w.Need(1, 1000, nil))
	// Line 1: one turn of 62 bytes (16 tokens) and the run's max tokens.
	assert.Equal(t, 16+100, w.Need(0, 100, nil))
	assert.Equal(t, 1+1, w.Need(0, 1, func(string) int { return 1 }), "the driver's token count")

	most, i := w.MaxNeed(128, nil)
	assert.Equal(t, w.Need(i, 128, nil), most)
	assert.NoError(t, w.CheckContext(most, 128, nil))
	err = w.CheckContext(100, 128, nil)
	assert.EqualError(t, err, "workload testdata/messages.jsonl line 1: needs about 144 tokens (1 turn(s), each reply up to 128 tokens), more than the context of 100 (and 3 more of the 5)")

	sg, err := Read("testdata/sharegpt.json", Options{})
	require.NoError(t, err)
	err = sg.CheckContext(150, 64, nil)
	assert.ErrorContains(t, err, `workload testdata/sharegpt.json item 1 (id "bread"): needs about`, "an array's item is named by its index and id")
}
