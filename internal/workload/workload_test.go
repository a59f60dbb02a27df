package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// write writes content to a file named name in a temporary folder.
func write(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func indexes(items []Item) []int {
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = it.Index
	}
	return out
}

func TestReadShareGPT(t *testing.T) {
	w, err := Read("testdata/sharegpt.json", Options{})
	require.NoError(t, err)
	assert.Equal(t, Conversations, w.Kind)
	assert.Equal(t, "sharegpt", w.Name)
	assert.Equal(t, 8, w.Total)
	assert.Equal(t, map[string]int{SkipModelFirst: 1, SkipNoHuman: 1}, w.Skipped, "reply-first and no-question")
	assert.Equal(t, 2, w.SkippedCount())
	assert.Equal(t, "no human turn: 1, starts with a model turn: 1", w.SkippedSummary())
	require.Equal(t, []int{0, 1, 3, 5, 6, 7}, indexes(w.Items), "array indexes, the skipped 2 and 4 left out")
	assert.Equal(t, 6, w.Len())

	sky := w.Items[0]
	assert.Equal(t, "sky", sky.ID)
	assert.Equal(t, "You answer in one short paragraph.", sky.System)
	assert.Equal(t, []string{"Why is the sky blue?", "Then why are sunsets red?"}, sky.Turns, "the human turns; the gpt turns are not sent")
	assert.Zero(t, sky.MaxTokens)

	assert.Len(t, w.Items[1].Turns, 3)
	assert.Equal(t, "How do I know when it is done?", w.Items[1].Turns[2])
	assert.Empty(t, w.Items[1].System)

	code := w.Items[2]
	require.Len(t, code.Turns, 2, "two human turns in a row are one")
	assert.True(t, strings.HasPrefix(code.Turns[0], "This Go function"), code.Turns[0])
	assert.True(t, strings.HasSuffix(code.Turns[0], "}\n\nAlso, what should it do with an empty slice?"), "joined by a blank line: %q", code.Turns[0])
	assert.Contains(t, code.Turns[0], "\tbest := 0\n", "the value's escapes decoded")

	assert.Equal(t, "42", w.Items[3].ID, "a number id, as its JSON")
	assert.Equal(t, []string{"Name a prime number.", "A larger one.", "Larger still.", "Is 7919 the 1000th prime?"}, w.Items[3].Turns, "user/assistant read as human/gpt")
	assert.Equal(t, []string{"Write a haiku about a harbour at dawn."}, w.Items[4].Turns, "a last human turn with no reply is a turn")
	assert.Len(t, w.Items[5].Turns, 2, "chatgpt is the model")
}

// The same conversations one a line: Index is the line.
func TestReadShareGPTLines(t *testing.T) {
	var all []json.RawMessage
	b, err := os.ReadFile("testdata/sharegpt.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &all))
	var lines []string
	for _, it := range all {
		var c bytes.Buffer
		require.NoError(t, json.Compact(&c, it))
		lines = append(lines, c.String())
	}
	path := write(t, "sg.jsonl", strings.Join(lines[:4], "\n")+"\n\n"+strings.Join(lines[4:], "\n")+"\n")
	w, err := Read(path, Options{})
	require.NoError(t, err)
	assert.Equal(t, Conversations, w.Kind)
	assert.Equal(t, 8, w.Total)
	assert.Equal(t, 2, w.SkippedCount())
	assert.Equal(t, []int{1, 2, 4, 7, 8, 9}, indexes(w.Items), "lines, the blank line 5 counted")
	assert.Equal(t, "Then why are sunsets red?", w.Items[0].Turns[1])

	e := w.at(3)
	assert.Equal(t, 7, e.Line, "a JSONL item is named by its line")
	assert.Equal(t, -1, e.Item)
}

func TestReadMessages(t *testing.T) {
	w, err := Read("testdata/messages.jsonl", Options{})
	require.NoError(t, err)
	assert.Equal(t, Messages, w.Kind)
	assert.Equal(t, "messages", w.Name)
	assert.Equal(t, 5, w.Total)
	assert.Empty(t, w.Skipped)
	require.Equal(t, []int{1, 2, 4, 5, 6}, indexes(w.Items), "lines, the blank line 3 skipped and counted")

	assert.Equal(t, Item{Index: 1, Turns: []string{"Summarise the causes of the French revolution in three lines."}}, w.Items[0])
	assert.Equal(t, Item{Index: 2, System: "You are terse.", Turns: []string{"Name a prime.", "Another."}, MaxTokens: 64}, w.Items[1])
	assert.Equal(t, "You review code.\n\nPoint out bugs only.", w.Items[2].System, "system messages joined")
	assert.Equal(t, []string{"Here is a list of tasks.\n\nSort them by urgency: pay rent, water plants, reply to Sam.", "Why is Sam second?"}, w.Items[3].Turns,
		"consecutive user messages are one turn; the trailing assistant message is not sent")
	assert.Equal(t, 200, w.Items[3].MaxTokens)
	assert.Equal(t, 32, w.Items[4].MaxTokens)
}

func TestReadTrace(t *testing.T) {
	w, err := Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	assert.Equal(t, Trace, w.Kind)
	assert.Equal(t, "trace", w.Name)
	assert.Equal(t, 50, w.Total)
	require.Len(t, w.Requests, 50)
	assert.Equal(t, 512, w.BlockTokens, "Mooncake's block size unless told")
	assert.Equal(t, 1.0, w.Speed)

	first, third := w.Requests[0], w.Requests[2]
	assert.Equal(t, TraceRequest{Line: 1, Timestamp: 0, Arrival: 0, InputTokens: 1362, OutputTokens: 160, HashIDs: []int{10, 11, 12}}, first)
	assert.Equal(t, TraceRequest{Line: 3, Timestamp: 1991, Arrival: 1991 * time.Millisecond, InputTokens: 3218, OutputTokens: 226, HashIDs: []int{2, 3, 4, 13, 15, 16, 17}}, third)
	assert.Equal(t, 21134*time.Millisecond, w.Duration(), "the last arrival")

	uses := map[int]int{}
	for i, r := range w.Requests {
		assert.Equal(t, i+1, r.Line)
		assert.Equal(t, time.Duration(r.Timestamp)*time.Millisecond, r.Arrival)
		if i > 0 {
			assert.GreaterOrEqual(t, r.Arrival, w.Requests[i-1].Arrival, "in time order")
		}
		assert.LessOrEqual(t, len(r.HashIDs), (r.InputTokens+511)/512)
		for _, h := range r.HashIDs {
			uses[h]++
		}
	}
	shared := 0
	for _, n := range uses {
		if n > 1 {
			shared++
		}
	}
	assert.Greater(t, shared, 5, "hash ids repeat across requests")
	assert.Equal(t, w.Requests[2].Arrival, w.Requests[3].Arrival, "a burst: lines 3 and 4 arrive at the same millisecond")
}

func TestTraceSpeed(t *testing.T) {
	base, err := Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	for _, speed := range []float64{2, 0.5, 10} {
		w, err := Read("testdata/trace.jsonl", Options{Speed: speed})
		require.NoError(t, err)
		assert.Equal(t, speed, w.Speed)
		for i, r := range w.Requests {
			want := time.Duration(math.Round(float64(base.Requests[i].Arrival) / speed))
			assert.Equal(t, want, r.Arrival, "speed %v, line %d", speed, r.Line)
			assert.Equal(t, base.Requests[i].Timestamp, r.Timestamp, "the recorded time is kept")
		}
	}
	w, err := Read("testdata/trace.jsonl", Options{Speed: 2})
	require.NoError(t, err)
	assert.Equal(t, 10567*time.Millisecond, w.Duration(), "21134 ms at twice the speed")

	for _, speed := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := Read("testdata/trace.jsonl", Options{Speed: speed})
		assert.ErrorContains(t, err, "must be above 0", "speed %v", speed)
	}
}

func TestMaxDuration(t *testing.T) {
	_, err := Read("testdata/trace.jsonl", Options{MaxDuration: 10 * time.Second})
	assert.EqualError(t, err, "workload testdata/trace.jsonl: its 50 requests arrive over 21.134s at speed 1, longer than the 10s the run allows: raise the speed or take fewer requests")
	_, err = Read("testdata/trace.jsonl", Options{MaxDuration: 10 * time.Second, Speed: 2.2})
	assert.NoError(t, err, "21.1 s at 2.2 times is 9.6 s")
	w, err := Read("testdata/trace.jsonl", Options{MaxDuration: 10 * time.Second, N: 10})
	require.NoError(t, err, "a window of 10 requests is shorter")
	assert.LessOrEqual(t, w.Duration(), 10*time.Second)
}

// A sample is the same with the same seed, another with another seed,
// and in the file's order.
func TestSampleConversations(t *testing.T) {
	for _, path := range []string{"testdata/sharegpt.json", "testdata/messages.jsonl"} {
		a, err := Read(path, Options{N: 3})
		require.NoError(t, err)
		b, err := Read(path, Options{N: 3})
		require.NoError(t, err)
		c, err := Read(path, Options{N: 3, Seed: 99})
		require.NoError(t, err)
		require.Len(t, a.Items, 3)
		assert.Equal(t, a.Items, b.Items, "%s: the same seed, the same sample", path)
		assert.NotEqual(t, indexes(a.Items), indexes(c.Items), "%s: another seed, another sample", path)
		assert.IsIncreasing(t, indexes(a.Items), "%s: in the file's order", path)
		assert.IsIncreasing(t, indexes(c.Items), path)

		all, err := Read(path, Options{N: 100})
		require.NoError(t, err)
		whole, err := Read(path, Options{})
		require.NoError(t, err)
		assert.Equal(t, whole.Items, all.Items, "%s: N above the items takes them all", path)
	}
}

// Reservoir sampling is uniform: over 4,000 seeds, each of 10 items is
// in a sample of 3 in 30% of them. The count is binomial, SD
// √(4000·0.3·0.7) = 29: within 5 SD (145) of 1,200, or the draw is not
// uniform.
func TestSampleIsUniform(t *testing.T) {
	var lines strings.Builder
	for i := range 10 {
		fmt.Fprintf(&lines, `{"messages": [{"role": "user", "content": "item %d"}]}`+"\n", i)
	}
	path := write(t, "ten.jsonl", lines.String())
	counts := make([]int, 11)
	const seeds = 4000
	for seed := uint64(1); seed <= seeds; seed++ {
		w, err := Read(path, Options{N: 3, Seed: seed})
		require.NoError(t, err)
		for _, it := range w.Items {
			counts[it.Index]++
		}
	}
	for line := 1; line <= 10; line++ {
		assert.InDelta(t, 1200, counts[line], 145, "line %d is in %d samples of %d", line, counts[line], seeds)
	}
}

// A trace's sample is a window of consecutive requests: the recorded gaps
// kept, arrivals from the window's first.
func TestSampleTrace(t *testing.T) {
	whole, err := Read("testdata/trace.jsonl", Options{})
	require.NoError(t, err)
	a, err := Read("testdata/trace.jsonl", Options{N: 12})
	require.NoError(t, err)
	b, err := Read("testdata/trace.jsonl", Options{N: 12})
	require.NoError(t, err)
	c, err := Read("testdata/trace.jsonl", Options{N: 12, Seed: 5})
	require.NoError(t, err)
	assert.Equal(t, a.Requests, b.Requests, "the same seed, the same window")
	assert.NotEqual(t, a.Requests[0].Line, c.Requests[0].Line, "another seed, another window")
	assert.Equal(t, 50, a.Total)
	for _, w := range []*Workload{a, c} {
		require.Len(t, w.Requests, 12)
		start := w.Requests[0].Line - 1
		assert.Zero(t, w.Requests[0].Arrival, "arrivals count from the window's first")
		for i, r := range w.Requests {
			orig := whole.Requests[start+i]
			assert.Equal(t, orig.Line, r.Line, "consecutive lines")
			assert.Equal(t, orig.HashIDs, r.HashIDs)
			assert.Equal(t, orig.Arrival-whole.Requests[start].Arrival, r.Arrival, "the recorded gaps")
		}
	}
	// Every start is possible: over 300 seeds a window of 45 of 50
	// starts at each of lines 1 to 6.
	starts := map[int]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		w, err := Read("testdata/trace.jsonl", Options{N: 45, Seed: seed})
		require.NoError(t, err)
		starts[w.Requests[0].Line] = true
	}
	assert.Equal(t, map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true}, starts)
}

func TestName(t *testing.T) {
	for path, want := range map[string]string{
		"testdata/sharegpt.json":            "sharegpt",
		"/x/ShareGPT V3 (cleaned).json":     "ShareGPT_V3_cleaned",
		"mooncake_trace.jsonl":              "mooncake_trace",
		"conv.trace.v2.jsonl":               "conv.trace.v2",
		"dialogues-é.jsonl":                 "dialogues",
		"noext":                             "noext",
		"a/b/c/agent tools/calls, 2024.txt": "calls_2024",
	} {
		got, err := Name(path)
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
		assert.Regexp(t, `^[A-Za-z0-9._-]+$`, got)
	}
	for path, msg := range map[string]string{
		"short.json":                `its name "short" is a built-in prompt's: rename the file`,
		"in512.jsonl":               `its name "in512" is a prompt's of BENCH_INPUT_TOKENS (in<N>, in-normal-…, in-uniform-…): rename the file`,
		"in-normal-1024-256.jsonl":  `its name "in-normal-1024-256" is a prompt's of BENCH_INPUT_TOKENS`,
		"in-uniform-128-2048.jsonl": `its name "in-uniform-128-2048" is a prompt's of BENCH_INPUT_TOKENS`,
		"(((.jsonl":                 `the file name "(((.jsonl" makes no prompt name`,
	} {
		_, err := Name(path)
		assert.ErrorContains(t, err, msg, path)
	}
}

// Every bad file is an error that names the file and the line or item.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, path, want string
		line, item       int
	}{
		{"missing file", "testdata/nothing-here.jsonl", "workload testdata/nothing-here.jsonl: no such file", 0, -1},
		{"empty file", "testdata/bad/empty.jsonl", "workload testdata/bad/empty.jsonl: the file is empty: expected ShareGPT conversations", 0, -1},
		{"blank lines only", "testdata/bad/blank.jsonl", "workload testdata/bad/blank.jsonl: the file is empty", 0, -1},
		{"bad field", "testdata/bad/trace-field.jsonl", "workload testdata/bad/trace-field.jsonl line 17: input_length -3: must be 1 or more", 17, -1},
		{"malformed line", "testdata/bad/trace-syntax.jsonl", "workload testdata/bad/trace-syntax.jsonl line 3: not JSON: ", 3, -1},
		{"unknown ShareGPT role", "testdata/bad/sharegpt-role.json",
			`workload testdata/bad/sharegpt-role.json item 1 (id "calls", line 3): "from" "function_call", "observation" are not ShareGPT roles (human or user; gpt, assistant, chatgpt, bing, bard or model; system)`, 3, 1},
		{"malformed ShareGPT", "testdata/bad/sharegpt-syntax.json", "workload testdata/bad/sharegpt-syntax.json item 2 (line 4): not JSON: invalid character '\"' after object key", 4, 2},
		{"every conversation skipped", "testdata/bad/sharegpt-skipped.json",
			"workload testdata/bad/sharegpt-skipped.json: none of its 2 conversations can be replayed (no human turn: 1, starts with a model turn: 1): the workload is empty", 0, -1},
		{"unknown message role", "testdata/bad/messages-role.jsonl", `workload testdata/bad/messages-role.jsonl line 2: messages[1]: role "bot": want system, user or assistant`, 2, -1},
		{"unknown format", "testdata/bad/unknown.jsonl", `workload testdata/bad/unknown.jsonl line 1: an object with the keys "completion", "prompt": expected ShareGPT conversations`, 1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.path, Options{})
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), c.want), "got  %s\nwant %s…", err, c.want)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.line, e.Line, "line")
			assert.Equal(t, c.item, e.Item, "item")
			assert.Equal(t, c.path, e.Path)
		})
	}
	_, err := Read("testdata/nothing-here.jsonl", Options{})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// Errors in lines and fields, file by file.
func TestLineErrors(t *testing.T) {
	trace := `{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [0, 1]}` + "\n"
	msgs := `{"messages": [{"role": "user", "content": "hi"}]}` + "\n"
	for _, c := range []struct{ name, content, want string }{
		{"no timestamp", trace + `{"input_length": 5, "output_length": 5}`, "line 2: no timestamp (milliseconds from the trace's start)"},
		{"negative timestamp", `{"timestamp": -1, "input_length": 5, "output_length": 5}`, "line 1: timestamp -1: must be 0 or more"},
		{"out of order", trace + `{"timestamp": 500, "input_length": 5, "output_length": 5}` + "\n" + `{"timestamp": 20, "input_length": 5, "output_length": 5}`,
			"line 3: timestamp 20 is before line 2's, 500: a trace's requests must be in time order"},
		{"no input_length", `{"timestamp": 0, "output_length": 5}`, "line 1: no input_length"},
		{"zero output_length", trace + `{"timestamp": 1, "input_length": 5, "output_length": 0}`, "line 2: output_length 0: must be 1 or more"},
		{"no output_length", trace + trace + `{"timestamp": 1, "input_length": 5}`, "line 3: no output_length"},
		{"string length", `{"timestamp": 0, "input_length": "600", "output_length": 5}`, "line 1: input_length: a JSON string, want a whole number"},
		{"fractional length", `{"timestamp": 0, "input_length": 60.5, "output_length": 5}`, "line 1: input_length: a JSON number 60.5, want a whole number"},
		{"negative hash id", `{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, -2]}`, "line 1: hash_ids[1] -2: must be 0 or more"},
		{"too many blocks", trace + `{"timestamp": 3, "input_length": 1025, "output_length": 5, "hash_ids": [0, 1, 2, 3]}`,
			"line 2: 4 hash_ids of 512 tokens are more than input_length 1025 holds (at most 3): is the trace's block size 512 tokens?"},
		{"array in a JSONL", trace + `[1, 2]`, "line 2: the value: a JSON array, want an object"},
		{"an empty object", `{}`, "line 1: an empty object: expected ShareGPT conversations"},
		{"not an object", `"hello"`, `starts with '"', not a JSON array or object`},
		{"a pretty-printed object", "{\n  \"timestamp\": 0\n}\n", "line 1: not JSON: unexpected end of JSON input (a JSONL file has one JSON object a line)"},
		{"messages: assistant first", `{"messages": [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "hi"}]}`, "line 1: messages[0]: an assistant message before the first user message"},
		{"messages: late system", msgs + `{"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]}`, "line 2: messages[1]: a system message after the first user message"},
		{"messages: empty user", `{"messages": [{"role": "user", "content": "  "}]}`, "line 1: messages[0]: a user message without content"},
		{"messages: no user", `{"messages": [{"role": "system", "content": "x"}]}`, "line 1: no user message"},
		{"messages: no role", `{"messages": [{"content": "x"}]}`, "line 1: messages[0]: no role"},
		{"messages: misspelt key", msgs + `{"messages": [{"role": "user", "content": "hi"}], "max_token": 5}`,
			`line 2: unknown key "max_token" (a line has "messages" and, if it sets its own, "max_tokens")`},
		{"messages: a setting not sent", `{"messages": [{"role": "user", "content": "hi"}], "temperature": 0.7}`, `line 1: unknown key "temperature"`},
		{"messages: bad max_tokens", `{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 0}`, "line 1: max_tokens 0: must be 1 or more"},
		{"messages: no messages", msgs + `{"max_tokens": 5}`, `line 2: no "messages"`},
		{"messages: content not a string", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`, "line 1: messages.content: a JSON array, want a string"},
		{"messages: two objects on a line", msgs + `{"messages": [{"role": "user", "content": "hi"}]} {"messages": []}`, "line 2: more after the JSON object: a line holds one"},
		{"sharegpt lines: no conversations", `{"conversations": [{"from": "human", "value": "hi"}]}` + "\n" + `{"id": "x"}`, `line 2: no "conversations"`},
		{"sharegpt: not conversations", `[{"id": "x", "messages": []}]`, `item 0 (line 1): an object without "conversations": expected ShareGPT conversations`},
		{"sharegpt: later item without conversations", "[\n{\"conversations\": []},\n{\"id\": \"b\"}\n]", `item 1 (id "b", line 3): no "conversations"`},
		{"sharegpt: value not a string", "[\n" + `{"conversations": [{"from": "human", "value": 5}]}` + "\n]", `item 0 (line 2): conversations.value: a JSON number, want a string`},
		{"sharegpt: a later value not a string", "[\n" + `{"conversations": [{"from": "human", "value": "hi"}]},` + "\n" + `{"conversations": [` + "\n" + `{"from": "human",` + "\n" + `"value": 7}]}` + "\n]",
			`item 1 (line 5): conversations.value: a JSON number, want a string`},
		{"sharegpt: trailing data", `[{"conversations": [{"from": "human", "value": "hi"}]}] [1]`, "more after the array's closing ']'"},
		{"sharegpt: cut short", `[{"conversations": [{"from": "human", "value": "hi"}]}, {"conv`, "item 1 (line 1): the file ends in the middle of a JSON value"},
		{"sharegpt: empty array", `[]`, "no items: the workload is empty"},
		{"sharegpt: an array of arrays", `[[1]]`, "item 0 (line 1): the value: a JSON array, want an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(t, "w.jsonl", c.content)
			_, err := Read(path, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "workload "+path), err.Error())
		})
	}
}

func TestBadOptions(t *testing.T) {
	_, err := Read("testdata/trace.jsonl", Options{N: -1})
	assert.EqualError(t, err, "workload testdata/trace.jsonl: N -1: must be 0 (every item) or more")
	_, err = Read("testdata/trace.jsonl", Options{BlockTokens: -16})
	assert.EqualError(t, err, "workload testdata/trace.jsonl: block size -16 tokens: must be 1 or more")
	_, err = Read("testdata/trace.jsonl", Options{BlockTokens: 1024})
	assert.EqualError(t, err, "workload testdata/trace.jsonl line 1: 3 hash_ids of 1024 tokens are more than input_length 1362 holds (at most 2): is the trace's block size 1024 tokens?",
		"the wrong block size for the trace")
	w, err := Read("testdata/trace.jsonl", Options{BlockTokens: 256})
	require.NoError(t, err, "smaller blocks: the hash ids cover less of each request")
	assert.Equal(t, 256, w.BlockTokens)
}

// A byte order mark and white space before the first byte are skipped.
func TestByteOrderMark(t *testing.T) {
	path := write(t, "bom.json", "\ufeff \n [{\"conversations\": [{\"from\": \"human\", \"value\": \"hi\"}]},\n {\"conversations\": [{\"from\": \"tool\"}]}]")
	_, err := Read(path, Options{})
	assert.ErrorContains(t, err, `item 1 (line 3): "from" "tool" is not a ShareGPT role`)
	path = write(t, "bom.jsonl", "\ufeff{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n")
	w, err := Read(path, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"hi"}, w.Items[0].Turns)
}

// A line longer than the reader's buffer (64 KiB) is read whole.
func TestLongLine(t *testing.T) {
	long := strings.Repeat("word ", 600_000) // 3 MB
	b, err := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": long}}})
	require.NoError(t, err)
	path := write(t, "long.jsonl", `{"messages": [{"role": "user", "content": "short"}]}`+"\n"+string(b)+"\n"+`{"messages": [{"role": "user", "content": "after"}]}`+"\n")
	w, err := Read(path, Options{})
	require.NoError(t, err)
	require.Len(t, w.Items, 3)
	assert.Equal(t, long, w.Items[1].Turns[0])
	assert.Equal(t, 3, w.Items[2].Index)
}

func TestErrorUnwraps(t *testing.T) {
	path := write(t, "x.jsonl", "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 5}\n{\"timestamp\":")
	_, err := Read(path, Options{})
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 2, e.Line)
	assert.Contains(t, e.Error(), "line 2: not JSON")
}
