package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The run's conversations are its rounds times its count, unknown (0)
// when either is missing.
func TestConversationsOf(t *testing.T) {
	f, _ := measured.files()
	assert.Equal(t, 2, conversationsOf(f))
	f.Arguments.Count = nil
	assert.Zero(t, conversationsOf(f))
}

// The timed records of the row are tallied by turn; warm-ups and other
// rows are left out, and each conversation's turns listed as recorded.
func TestTurnsOf(t *testing.T) {
	_, recs := measured.files()
	turns, order, ids := turnsOf(recs, threeTurns)
	assert.Equal(t, []int{2, 3}, ids, "the warm-up (1) and the other row's (4) left out")
	assert.Equal(t, map[int][]int{2: {1, 2, 3}, 3: {1, 2, 3}}, order)
	assert.Equal(t, turnFigures{requests: 2, ok: 2, promptTokens: 342, counted: 2, promptEval: 0.244, evalTokens: 342, timed: 2}, turns[1])

	failed := "boom"
	recs[3].Error = &failed // conversation 2's turn 1
	turns, _, _ = turnsOf(recs, threeTurns)
	assert.Equal(t, 2, turns[0].requests)
	assert.Equal(t, 1, turns[0].ok)
	assert.Equal(t, 1, turns[0].counted, "a failed request's counts are left out")
}

// Each conversation records turns 1 to N in order, as many as the run
// had.
func TestCheckTurnOrder(t *testing.T) {
	assert.Empty(t, checkTurnOrder(map[int][]int{2: {1, 2}, 3: {1, 2}}, []int{2, 3}, 2, "r", 2))
	assert.Equal(t, []string{
		"conversations whose recorded turns are not [1 2] in order: 3: [2 1]",
		"the records have 2 timed conversations of row r, want 3",
	}, checkTurnOrder(map[int][]int{2: {1, 2}, 3: {2, 1}}, []int{2, 3}, 2, "r", 3))
}

// The row has every turn of every conversation, successful, numbered from
// 1, and no cache hit ratio.
func TestCheckTurnsRow(t *testing.T) {
	f, _ := measured.files()
	r := f.Summary[0]
	assert.Empty(t, checkTurnsRow(&r, "r", 3, 2))
	ratio := 0.5
	r.CacheHitRatio = &ratio
	r.Turns[1].Turn = 3
	r.NotSent = 1
	assert.Equal(t, []string{
		"row r: 6 requests, 0 failed, want 9 (3 conversations of 3 turns), none failed",
		"row r: not_sent is 1, want 0: a turn failed and ended its conversation",
		"row r: cache_hit_ratio is 0.5, want null: Ollama's prompt_eval_count counts cached tokens with the rest and says nothing of its cache",
		"row r: turns[0] is turn 1 of 2 requests, want turn 1 of 3",
		"row r: turns[1] is turn 3 of 2 requests, want turn 2 of 3",
		"row r: turns[2] is turn 3 of 2 requests, want turn 3 of 3",
	}, checkTurnsRow(&r, "r", 3, 3))
}
