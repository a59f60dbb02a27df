package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// turnsWant is what a run of conversations (BENCH_TURNS) at concurrency 1
// against Ollama must show.
type turnsWant struct {
	runtime, prompt string
	// turns is BENCH_TURNS: every conversation has that many turns,
	// numbered from 1.
	turns int
	// evalRatio bounds the prompt evaluation time per prompt token of
	// every later turn over turn 1's. Ollama keeps each slot's tokens (the
	// prompt and the reply it generated) in its KV cache and evaluates a
	// later turn's prompt only from where it leaves the longest cached
	// prefix; its prompt_eval_count still counts every token of the
	// prompt, so the time per counted token falls to about the share of
	// new tokens. With the e2e model that share is about a quarter: its
	// greedy replies are not the tokenizer's own split of their text, so
	// the cached prefix ends early in the reply, and a later turn
	// evaluates the reply again and the follow-up, 30 to 70 of 170 to 250
	// tokens (a model whose replies re-tokenize the same evaluates the
	// follow-up alone). Measured on turns 2 and 3 over six runs: 0.24× to
	// 0.34× (the new tokens attend to a longer prefix than turn 1's).
	// Without the cache every token is evaluated again, at turn 1's cost
	// per token or more: 0.80× to 1.22× measured on turns whose history
	// Ollama had left out (so that nothing of them was cached). 0.5 is
	// between the two, 1.5× above the highest cached figure and 1.6×
	// below the lowest uncached one.
	evalRatio float64
	// ttftFactor bounds TTFT p50 of every later turn over turn 1's: a
	// later turn's prompt is longer, but its history is cached.
	ttftFactor float64
}

// defaultTurnsWant is what scripts/e2e-ollama.sh's run of conversations
// must show.
func defaultTurnsWant(runtime, prompt string, turns int) turnsWant {
	return turnsWant{runtime: runtime, prompt: prompt, turns: turns, evalRatio: 0.5, ttftFactor: 2}
}

// turnFigures are one turn's figures from the timed request records of a
// row.
type turnFigures struct {
	requests, ok      int
	promptTokens      float64 // sum, over the successful requests with a count
	counted           int
	promptEval        float64 // seconds, sum over those with a time and a count
	evalTokens, timed int     // prompt tokens and requests behind promptEval
}

func (t turnFigures) promptTokensMean() float64 { return t.promptTokens / float64(t.counted) }
func (t turnFigures) evalMsMean() float64       { return 1e3 * t.promptEval / float64(t.timed) }

// msPerToken is prompt_eval_duration per prompt token, over all the
// turn's requests: their time over their tokens.
func (t turnFigures) msPerToken() float64 { return 1e3 * t.promptEval / float64(t.evalTokens) }

// checkTurns checks a run of conversations of w.turns turns at
// concurrency 1 against Ollama, from its summary and its request records:
// the row has each turn's figures, every turn of every conversation was
// sent and succeeded, in order; each turn's prompt is longer than the one
// before (it carries the history), and Ollama's cache is at work on the
// later turns: their prompt evaluation per prompt token far below turn
// 1's, and their TTFT p50 within w.ttftFactor of turn 1's.
func checkTurns(f *summary.File, recs []records.Record, w turnsWant) (table, fails []string) {
	name := fmt.Sprintf("%s/%s/conc=1", w.runtime, w.prompt)
	if f.Arguments.Turns != w.turns {
		fails = append(fails, fmt.Sprintf("arguments.turns is %d, want %d", f.Arguments.Turns, w.turns))
	}
	r := row(f, w.runtime, w.prompt, 1)
	if r == nil {
		return nil, append(fails, fmt.Sprintf("no row %s", name))
	}
	conversations := conversationsOf(f)
	if conversations == 0 {
		fails = append(fails, "arguments.rounds or arguments.count is null: the run's conversations are unknown")
	}
	fails = append(fails, checkTurnsRow(r, name, w.turns, conversations)...)
	turns, order, ids := turnsOf(recs, w)
	fails = append(fails, checkTurnOrder(order, ids, w.turns, name, conversations)...)
	t, fs := turnsTable(r, turns, name, len(ids), conversations)
	table, fails = append(table, t...), append(fails, fs...)
	if len(r.Turns) != w.turns || turns[0].timed == 0 {
		return table, fails
	}
	t, fs = checkLaterTurns(f, r, turns, w)
	return append(table, t...), append(fails, fs...)
}

// conversationsOf is the run's conversations at concurrency 1: every
// timed round is one; 0 where the summary does not say its rounds or
// count.
func conversationsOf(f *summary.File) int {
	if f.Arguments.Rounds != nil && f.Arguments.Count != nil {
		return *f.Arguments.Rounds * *f.Arguments.Count
	}
	return 0
}

// checkTurnsRow checks row r, name: every turn of every conversation sent
// and successful, no cache hit ratio (Ollama's counts say nothing of its
// cache), and the figures of each turn, numbered from 1.
func checkTurnsRow(r *summary.Row, name string, turns, conversations int) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if r.Failures > 0 || r.Successes != r.Requests || r.Requests != conversations*turns {
		fail("row %s: %d requests, %d failed, want %d (%d conversations of %d turns), none failed",
			name, r.Requests, r.Failures, conversations*turns, conversations, turns)
	}
	if r.NotSent != 0 {
		fail("row %s: not_sent is %d, want 0: a turn failed and ended its conversation", name, r.NotSent)
	}
	if r.CacheHitRatio != nil {
		fail("row %s: cache_hit_ratio is %g, want null: Ollama's prompt_eval_count counts cached tokens with the rest and says nothing of its cache", name, *r.CacheHitRatio)
	}
	if len(r.Turns) != turns {
		fail("row %s has the figures of %d turns, want %d", name, len(r.Turns), turns)
	}
	for i, t := range r.Turns {
		if t.Turn != i+1 || t.Requests != conversations {
			fail("row %s: turns[%d] is turn %d of %d requests, want turn %d of %d", name, i, t.Turn, t.Requests, i+1, conversations)
		}
	}
	return fails
}

// turnsOf tallies the timed request records of w's row by turn, and
// lists each conversation's turns in the order they were recorded (order,
// by conversation id; ids, in the order the conversations first appear).
func turnsOf(recs []records.Record, w turnsWant) (turns []turnFigures, order map[int][]int, ids []int) {
	turns = make([]turnFigures, w.turns)
	order = map[int][]int{}
	for _, rec := range recs {
		if rec.Runtime != w.runtime || rec.Prompt != w.prompt || rec.Concurrency != 1 || rec.RateRPS != nil || !rec.Timed() {
			continue
		}
		if _, seen := order[rec.Conversation]; !seen {
			ids = append(ids, rec.Conversation)
		}
		order[rec.Conversation] = append(order[rec.Conversation], rec.Turn)
		if rec.Turn < 1 || rec.Turn > w.turns {
			continue
		}
		t := &turns[rec.Turn-1]
		t.requests++
		if rec.Error != nil {
			continue
		}
		t.ok++
		if rec.PromptTokens == nil || *rec.PromptTokens <= 0 {
			continue
		}
		t.promptTokens += float64(*rec.PromptTokens)
		t.counted++
		if rec.Server != nil && rec.Server.PromptEvalS != nil {
			t.promptEval += *rec.Server.PromptEvalS
			t.evalTokens += *rec.PromptTokens
			t.timed++
		}
	}
	return turns, order, ids
}

// checkTurnOrder checks that every conversation recorded its turns 1 to
// turns, in order, and that there are as many as the run had.
func checkTurnOrder(order map[int][]int, ids []int, turns int, name string, conversations int) []string {
	var fails []string
	want := make([]int, turns)
	for i := range want {
		want[i] = i + 1
	}
	var bad []string
	for _, id := range ids {
		if !slices.Equal(order[id], want) {
			bad = append(bad, fmt.Sprintf("%d: %v", id, order[id]))
		}
	}
	if len(bad) > 0 {
		fails = append(fails, fmt.Sprintf("conversations whose recorded turns are not %v in order: %s", want, strings.Join(bad, "; ")))
	}
	if len(ids) != conversations {
		fails = append(fails, fmt.Sprintf("the records have %d timed conversations of row %s, want %d", len(ids), name, conversations))
	}
	return fails
}

// turnsTable is the table of each turn's figures, from the records and
// row r, and the failures of turns whose requests are not all there, all
// successful, each with Ollama's prompt count and time.
func turnsTable(r *summary.Row, turns []turnFigures, name string, recorded, conversations int) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = append(table, fmt.Sprintf("row %s: %d conversations of %d turns, not_sent %d, cache_hit_ratio %s",
		name, recorded, len(turns), r.NotSent, fixedOrNull(r.CacheHitRatio, 3)))
	table = append(table, fmt.Sprintf("%-4s %8s %13s %14s %15s %12s %11s", "turn", "requests", "prompt tokens", "prompt_eval ms", "ms/prompt-token", "TTFT p50 ms", "decode t/s"))
	for i, t := range turns {
		var ttft, decode *float64
		if i < len(r.Turns) {
			ttft, decode = scaled(r.Turns[i].TTFTP50, 1e3), r.Turns[i].DecodeTPSMean
		}
		table = append(table, fmt.Sprintf("%-4d %8d %13s %14s %15s %12s %11s", i+1, t.requests,
			fixedOrNull(finiteOrNil(t.promptTokensMean()), 1), fixedOrNull(finiteOrNil(t.evalMsMean()), 2),
			fixedOrNull(finiteOrNil(t.msPerToken()), 3), fixedOrNull(ttft, 1), fixedOrNull(decode, 1)))
		if t.requests != conversations || t.ok != t.requests {
			fail("turn %d: %d timed requests in the records, %d successful, want %d, all successful", i+1, t.requests, t.ok, conversations)
		}
		if t.counted != t.ok || t.timed != t.ok {
			fail("turn %d: %d of %d successful requests have Ollama's prompt_eval_count, %d its prompt_eval_duration: want all", i+1, t.counted, t.ok, t.timed)
		}
	}
	return table, fails
}

// checkLaterTurns checks each turn after the first against the one
// before and turn 1: a longer prompt (it carries the history), prompt
// evaluation per token below w.evalRatio of turn 1's (the history taken
// from Ollama's cache), and TTFT p50 within w.ttftFactor of turn 1's. Row
// r has the figures of every turn, and turn 1 a prompt evaluation time.
func checkLaterTurns(f *summary.File, r *summary.Row, turns []turnFigures, w turnsWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	first := turns[0]
	for i := 1; i < w.turns; i++ {
		t, prev := turns[i], turns[i-1]
		if t.counted == 0 || prev.counted == 0 || !(t.promptTokensMean() > prev.promptTokensMean()) {
			fail("turn %d's prompt has %s tokens on average, turn %d's %s: want more, as it carries the history%s",
				i+1, fixedOrNull(finiteOrNil(t.promptTokensMean()), 1), i, fixedOrNull(finiteOrNil(prev.promptTokensMean()), 1), dropped(f))
		}
		if t.timed > 0 {
			ratio := t.msPerToken() / first.msPerToken()
			table = append(table, fmt.Sprintf("turn %d: prompt evaluation per prompt token %.3f× turn 1's (limit %.2f×), TTFT p50 %s× turn 1's (limit %.1f×)",
				i+1, ratio, w.evalRatio, fixedOrNull(finiteOrNil(val(r.Turns[i].TTFTP50)/val(r.Turns[0].TTFTP50)), 2), w.ttftFactor))
			if !(ratio < w.evalRatio) {
				fail("turn %d: prompt evaluation took %.3f ms per prompt token, %.2f× turn 1's %.3f: want below %.2f×, the history taken from Ollama's cache",
					i+1, t.msPerToken(), ratio, first.msPerToken(), w.evalRatio)
			}
		}
		if a, b := r.Turns[i].TTFTP50, r.Turns[0].TTFTP50; a == nil || b == nil || !(*a <= w.ttftFactor**b) {
			fail("turn %d: TTFT p50 %s ms, turn 1's %s ms: want at most %.1f× turn 1's", i+1,
				fixedOrNull(scaled(a, 1e3), 1), fixedOrNull(scaled(b, 1e3), 1), w.ttftFactor)
		}
	}
	return table, fails
}

// dropped is why Ollama may have sent the model a prompt that did not
// grow: it leaves out, silently, a chat's earliest messages that do not
// fit num_ctx, and (with a template of .Prompt and .Response) a user
// message whose reply is empty.
func dropped(f *summary.File) string {
	numCtx := "null"
	if f.Arguments.NumCtx != nil {
		numCtx = fmt.Sprint(*f.Arguments.NumCtx)
	}
	return fmt.Sprintf(" (Ollama leaves out, and says nothing, a chat's earliest messages that do not fit num_ctx, here %s, and a user message whose reply is empty)", numCtx)
}

// finiteOrNil is &x, or nil for NaN and the infinities (a figure of no
// requests).
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// exchange is one /api/chat request as it went over the wire: its
// messages, and the answer text of its reply (every line's
// message.content, in order), whether the reply ended with its done line,
// and what could not be read of either.
type exchange struct {
	messages []runtimes.Message
	reply    string
	done     bool
	err      string
}

// roles are the exchange's message roles, "user,assistant,user".
func (e exchange) roles() string {
	rs := make([]string, len(e.messages))
	for i, m := range e.messages {
		rs[i] = m.Role
	}
	return strings.Join(rs, ",")
}

// checkMessages checks the requests of one conversation as they went over
// the wire, ex[k] turn k+1's: turn k has 2k−1 messages, user and
// assistant in turn from a user's; the user messages are prompt and then
// follow in order, and each assistant message is, byte for byte, the
// answer text streamed in reply to the turn it follows.
func checkMessages(ex []exchange, prompt string, follow []string) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if len(ex) != len(follow)+1 {
		fail("%d requests, want %d: the prompt and %d follow-ups", len(ex), len(follow)+1, len(follow))
	}
	for k, e := range ex {
		turn := k + 1
		if e.err != "" {
			fail("turn %d: %s", turn, e.err)
		}
		if !e.done {
			fail("turn %d: the reply did not end with its done line", turn)
		}
		if k < len(ex)-1 && e.reply == "" {
			fail("turn %d: the reply streamed no answer text", turn)
		}
		if len(e.messages) != 2*turn-1 {
			fail("turn %d sent %d messages (%s), want %d", turn, len(e.messages), e.roles(), 2*turn-1)
		}
		for i, m := range e.messages {
			j := i / 2
			if i%2 == 0 {
				want := prompt
				if j > 0 && j-1 < len(follow) {
					want = follow[j-1]
				}
				if m.Role != "user" || m.Content != want {
					fail("turn %d, message %d: %s %q, want user %q", turn, i+1, m.Role, clipText(m.Content), clipText(want))
				}
				continue
			}
			if m.Role != "assistant" {
				fail("turn %d, message %d: role %s, want assistant", turn, i+1, m.Role)
			}
			switch {
			case j >= len(ex):
				fail("turn %d, message %d: assistant %q, but turn %d was never sent", turn, i+1, clipText(m.Content), j+1)
			case m.Content != ex[j].reply:
				fail("turn %d, message %d: assistant %q (%d bytes), want turn %d's reply as streamed, %q (%d bytes)",
					turn, i+1, clipText(m.Content), len(m.Content), j+1, clipText(ex[j].reply), len(ex[j].reply))
			}
		}
	}
	return fails
}

// clipText is s, cut to 60 bytes with "…" after.
func clipText(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:60] + "…"
}
