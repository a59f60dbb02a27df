package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// turnsRun is a run of two conversations of three turns at concurrency
// 1, and what each turn's requests showed (the same for both).
type turnsRun struct {
	tokens [3]int     // prompt_eval_count
	eval   [3]float64 // prompt_eval_duration, s
	ttft   [3]float64 // s
}

// measured are the figures of a run against Ollama 0.6.5 with the e2e
// model, its cache at work.
var measured = turnsRun{
	tokens: [3]int{125, 171, 241},
	eval:   [3]float64{0.373, 0.122, 0.237},
	ttft:   [3]float64{0.376, 0.129, 0.241},
}

// files are the run's summary and records: a warm-up conversation (whose
// figures must not count), then two timed ones, and a conversation of
// another row.
func (tr turnsRun) files() (*summary.File, []records.Record) {
	rounds, count, numCtx := 2, 1, 203
	f := &summary.File{Arguments: summary.Arguments{Rounds: &rounds, Count: &count, Turns: 3, NumCtx: &numCtx}}
	r := summary.Row{Runtime: "ollama", Prompt: "short", Concurrency: 1, Requests: 6, Successes: 6}
	var recs []records.Record
	rec := func(conv, turn int, warmup bool, prompt string, tokens int, eval float64) records.Record {
		return records.Record{Runtime: "ollama", Prompt: prompt, Concurrency: 1, Warmup: warmup,
			Conversation: conv, Turn: turn, PromptTokens: &tokens, Server: &records.ServerTimings{PromptEvalS: &eval}}
	}
	for k := range 3 {
		recs = append(recs, rec(1, k+1, true, "short", 125, 2))
	}
	for conv := 2; conv <= 3; conv++ {
		for k := range 3 {
			recs = append(recs, rec(conv, k+1, false, "short", tr.tokens[k], tr.eval[k]))
		}
	}
	recs = append(recs, rec(4, 1, false, "medium", 300, 5))
	for k := range 3 {
		tokens, ttft, decode := float64(tr.tokens[k]), tr.ttft[k], 200.0
		r.Turns = append(r.Turns, summary.TurnFigures{Turn: k + 1, Requests: 2, TTFTMean: &ttft, TTFTP50: &ttft,
			PromptTokensMean: &tokens, DecodeTPSMean: &decode})
	}
	f.Summary = []summary.Row{r}
	return f, recs
}

var threeTurns = defaultTurnsWant("ollama", "short", 3)

func TestCheckTurnsPasses(t *testing.T) {
	f, recs := measured.files()
	table, fails := checkTurns(f, recs, threeTurns)
	assert.Empty(t, fails)
	assert.Equal(t, []string{
		"row ollama/short/conc=1: 2 conversations of 3 turns, not_sent 0, cache_hit_ratio null",
		"turn requests prompt tokens prompt_eval ms ms/prompt-token  TTFT p50 ms  decode t/s",
		"1           2         125.0         373.00           2.984        376.0       200.0",
		"2           2         171.0         122.00           0.713        129.0       200.0",
		"3           2         241.0         237.00           0.983        241.0       200.0",
		"turn 2: prompt evaluation per prompt token 0.239× turn 1's (limit 0.50×), TTFT p50 0.34× turn 1's (limit 2.0×)",
		"turn 3: prompt evaluation per prompt token 0.330× turn 1's (limit 0.50×), TTFT p50 0.64× turn 1's (limit 2.0×)",
	}, table)
}

func TestCheckTurnsFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  turnsRun
		edit func(f *summary.File, recs []records.Record) []records.Record
		want []string
	}{{
		name: "the earliest messages dropped on turn 3: shorter, and nothing cached",
		run:  turnsRun{tokens: [3]int{125, 171, 121}, eval: [3]float64{0.373, 0.122, 0.362}, ttft: [3]float64{0.376, 0.129, 0.368}},
		want: []string{
			"turn 3's prompt has 121.0 tokens on average, turn 2's 171.0: want more, as it carries the history (Ollama leaves out, and says nothing, a chat's earliest messages that do not fit num_ctx, here 203, and a user message whose reply is empty)",
			"turn 3: prompt evaluation took 2.992 ms per prompt token, 1.00× turn 1's 2.984: want below 0.50×, the history taken from Ollama's cache",
		},
	}, {
		name: "no cache: every turn evaluated whole, and slower to its first token",
		run:  turnsRun{tokens: [3]int{125, 171, 241}, eval: [3]float64{0.373, 0.52, 0.8}, ttft: [3]float64{0.376, 0.53, 0.81}},
		want: []string{
			"turn 2: prompt evaluation took 3.041 ms per prompt token, 1.02× turn 1's 2.984: want below 0.50×, the history taken from Ollama's cache",
			"turn 3: prompt evaluation took 3.320 ms per prompt token, 1.11× turn 1's 2.984: want below 0.50×, the history taken from Ollama's cache",
			"turn 3: TTFT p50 810.0 ms, turn 1's 376.0 ms: want at most 2.0× turn 1's",
		},
	}, {
		name: "a failed turn 3, not sent",
		run:  measured,
		edit: func(f *summary.File, recs []records.Record) []records.Record {
			r := &f.Summary[0]
			r.Failures, r.Successes, r.NotSent = 1, 5, 0
			msg := "reset"
			recs[len(recs)-2].Error = &msg
			return recs
		},
		want: []string{
			"row ollama/short/conc=1: 6 requests, 1 failed, want 6 (2 conversations of 3 turns), none failed",
			"turn 3: 2 timed requests in the records, 1 successful, want 2, all successful",
		},
	}, {
		name: "turns not sent, and a cache-hit ratio Ollama cannot have",
		run:  measured,
		edit: func(f *summary.File, recs []records.Record) []records.Record {
			ratio := 0.5
			f.Summary[0].NotSent, f.Summary[0].CacheHitRatio = 2, &ratio
			return recs
		},
		want: []string{
			"row ollama/short/conc=1: not_sent is 2, want 0: a turn failed and ended its conversation",
			"row ollama/short/conc=1: cache_hit_ratio is 0.5, want null: Ollama's prompt_eval_count counts cached tokens with the rest and says nothing of its cache",
		},
	}, {
		name: "a conversation's turns out of order",
		run:  measured,
		edit: func(_ *summary.File, recs []records.Record) []records.Record {
			recs[3], recs[4] = recs[4], recs[3]
			return recs
		},
		want: []string{"conversations whose recorded turns are not [1 2 3] in order: 2: [2 1 3]"},
	}, {
		name: "the figures of two turns, and a record without the server's timing",
		run:  measured,
		edit: func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[0].Turns = f.Summary[0].Turns[:2]
			recs[3].Server = nil
			return recs
		},
		want: []string{
			"row ollama/short/conc=1 has the figures of 2 turns, want 3",
			"turn 1: 2 of 2 successful requests have Ollama's prompt_eval_count, 1 its prompt_eval_duration: want all",
		},
	}, {
		name: "another number of turns",
		run:  measured,
		edit: func(f *summary.File, recs []records.Record) []records.Record {
			f.Arguments.Turns = 2
			return recs
		},
		want: []string{"arguments.turns is 2, want 3"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f, recs := tc.run.files()
			if tc.edit != nil {
				recs = tc.edit(f, recs)
			}
			_, fails := checkTurns(f, recs, threeTurns)
			assert.Equal(t, tc.want, fails)
		})
	}

	_, fails := checkTurns(&summary.File{Arguments: summary.Arguments{Turns: 3}}, nil, threeTurns)
	assert.Equal(t, []string{"no row ollama/short/conc=1"}, fails)
}

func TestCheckMessages(t *testing.T) {
	prompt, follow := "Name three uses of a hash table.", []string{"Go on.", "Give a shorter version."}
	user := func(s string) runtimes.Message { return runtimes.Message{Role: "user", Content: s} }
	assistant := func(s string) runtimes.Message { return runtimes.Message{Role: "assistant", Content: s} }
	good := func() []exchange {
		return []exchange{
			{messages: []runtimes.Message{user(prompt)}, reply: " caching, sets\n", done: true},
			{messages: []runtimes.Message{user(prompt), assistant(" caching, sets\n"), user("Go on.")}, reply: "indexes", done: true},
			{messages: []runtimes.Message{user(prompt), assistant(" caching, sets\n"), user("Go on."), assistant("indexes"), user("Give a shorter version.")},
				reply: "ok", done: true},
		}
	}
	assert.Empty(t, checkMessages(good(), prompt, follow))
	assert.Equal(t, "user,assistant,user", good()[1].roles())

	for _, tc := range []struct {
		name string
		edit func(ex []exchange) []exchange
		want []string
	}{{
		name: "the replies sent back empty",
		edit: func(ex []exchange) []exchange {
			ex[1].messages[1].Content, ex[2].messages[1].Content, ex[2].messages[3].Content = "", "", ""
			return ex
		},
		want: []string{
			`turn 2, message 2: assistant "" (0 bytes), want turn 1's reply as streamed, " caching, sets\n" (15 bytes)`,
			`turn 3, message 2: assistant "" (0 bytes), want turn 1's reply as streamed, " caching, sets\n" (15 bytes)`,
			`turn 3, message 4: assistant "" (0 bytes), want turn 2's reply as streamed, "indexes" (7 bytes)`,
		},
	}, {
		name: "a reply trimmed",
		edit: func(ex []exchange) []exchange { ex[2].messages[1].Content = "caching, sets"; return ex },
		want: []string{`turn 3, message 2: assistant "caching, sets" (13 bytes), want turn 1's reply as streamed, " caching, sets\n" (15 bytes)`},
	}, {
		name: "no history, and the follow-ups swapped",
		edit: func(ex []exchange) []exchange {
			ex[1].messages = []runtimes.Message{user("Go on.")}
			ex[2].messages[2], ex[2].messages[4] = user("Give a shorter version."), user("Go on.")
			return ex
		},
		want: []string{
			"turn 2 sent 1 messages (user), want 3",
			`turn 2, message 1: user "Go on.", want user "Name three uses of a hash table."`,
			`turn 3, message 3: user "Give a shorter version.", want user "Go on."`,
			`turn 3, message 5: user "Go on.", want user "Give a shorter version."`,
		},
	}, {
		name: "roles out of turn, a reply without text or its done line",
		edit: func(ex []exchange) []exchange {
			ex[0].reply, ex[0].done = "", false
			ex[1].messages[1] = user("")
			ex[2].messages[1].Content, ex[2].messages[1].Role = "", "system"
			return ex
		},
		want: []string{
			"turn 1: the reply did not end with its done line",
			"turn 1: the reply streamed no answer text",
			"turn 2, message 2: role user, want assistant",
			"turn 3, message 2: role system, want assistant",
		},
	}, {
		name: "a turn missing, one unreadable",
		edit: func(ex []exchange) []exchange {
			ex[1].err = "reply: line \"{\": unexpected end of JSON input"
			return ex[:2]
		},
		want: []string{
			"2 requests, want 3: the prompt and 2 follow-ups",
			"turn 2: reply: line \"{\": unexpected end of JSON input",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, checkMessages(tc.edit(good()), prompt, follow))
		})
	}
	require.Equal(t, "a", clipText("a"))
	assert.Equal(t, 60+len("…"), len(clipText(string(make([]byte, 61)))))
}
