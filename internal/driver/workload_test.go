package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/workload"
)

// The sample workloads of the suite (testdata/ at the top: small files
// written for it).
var (
	sampleChats    = filepath.Join("..", "..", "testdata", "chats.json")
	sampleMessages = filepath.Join("..", "..", "testdata", "messages.jsonl")
	sampleTrace    = filepath.Join("..", "..", "testdata", "trace.jsonl")
	sampleTools    = filepath.Join("..", "..", "testdata", "tools.json")
)

// sentChat is one chat request as the server received it.
type sentChat struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens int             `json:"max_tokens"`
	Tools     json.RawMessage `json:"tools"`
}

// bodies records the bodies of the chat requests a driver sends, in the
// order they were sent.
type bodies struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []sentChat
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var c sentChat
		if json.Unmarshal(raw, &c) == nil {
			b.mu.Lock()
			b.sent = append(b.sent, c)
			b.mu.Unlock()
		}
	}
	return b.next.RoundTrip(r)
}

// recordBodies makes d's client record every chat request's body.
func recordBodies(d *Driver) *bodies {
	b := &bodies{next: d.client.Transport}
	d.client.Transport = b
	return b
}

// startTrace is startSim for a trace replayed whole: -benchtime=Nx.
func startTrace(t *testing.T, n int, settings map[string]string) (*Driver, *bytes.Buffer) {
	t.Helper()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim"}, settings)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Benchtime: strconv.Itoa(n) + "x"})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d, &log
}

// runLeaves runs every leaf of d: its warm-ups and rounds timed rounds
// (arrivals of an open loop), and returns the run's file and records.
func runLeaves(t *testing.T, d *Driver, rounds int) (*summary.File, []records.Record) {
	f, recs, _ := runLeavesOf(t, d, rounds)
	return f, recs
}

// runLeavesOf is runLeaves that also returns the last leaf run.
func runLeavesOf(t *testing.T, d *Driver, rounds int) (*summary.File, []records.Record, *Leaf) {
	t.Helper()
	var last *Leaf
	for _, k := range slices.Collect(d.Leaves()) {
		l, _, err := d.Begin(context.Background(), k)
		require.NoError(t, err)
		l.WarmUp()
		for range rounds {
			l.Next()
		}
		out := l.End()
		require.NoError(t, out.SaveErr)
		for _, note := range out.Notes {
			d.logf("%s", note) // as BenchmarkInference's b.Log
		}
		last = l
	}
	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	return f, recs, last
}

func timed(recs []records.Record) []records.Record {
	var out []records.Record
	for _, r := range recs {
		if r.Timed() {
			out = append(out, r)
		}
	}
	return out
}

// A ShareGPT workload is a prompt named after its file, and each of its
// conversations is replayed turn by turn: turn k sends the system prompt,
// the recorded human turns so far and the model's own replies (not the
// recorded ones) between them, as BENCH_TURNS conversations do. Each
// request of a round is the next conversation.
func TestShareGPTReplayedTurnByTurn(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{
		"BENCH_WORKLOAD": sampleChats, "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "0", "BENCH_CONTROL": "off",
		"BENCH_CACHE": "warm", "BENCH_MAX_TOKENS": "8", "BENCH_RECORD_TEXT": "1",
		"SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	require.Len(t, d.Prompts, 1, "only the workload runs with BENCH_PROMPTS unset")
	assert.Equal(t, "chats", d.Prompts[0].Name)
	sent := recordBodies(d)
	f, recs := runLeaves(t, d, 3)

	w, err := workload.Read(sampleChats, workload.Options{})
	require.NoError(t, err)
	require.Len(t, w.Items, 3)
	require.Len(t, f.Summary, 1)
	row := f.Summary[0]
	assert.Equal(t, "chats", row.Prompt)
	assert.Equal(t, 2+3+2, row.Requests, "every human turn of the three conversations")
	assert.Zero(t, row.NotSent)

	require.Len(t, sent.sent, 7)
	texts := map[[2]int]string{} // conversation, turn → the reply as streamed
	for _, r := range timed(recs) {
		require.NotNil(t, r.Text)
		texts[[2]int{r.Conversation, r.Turn}] = *r.Text
	}
	convs := timedTurns(recs)
	ids := slices.Sorted(func(yield func(int) bool) {
		for id := range convs {
			if !yield(id) {
				return
			}
		}
	})
	require.Len(t, ids, 3)
	i := 0
	for c, id := range ids {
		it := w.Items[c]
		require.Len(t, convs[id], len(it.Turns), "conversation %s", it.ID)
		for k := range it.Turns {
			got := sent.sent[i]
			i++
			var want []string
			if it.System != "" {
				want = append(want, "system: "+it.System)
			}
			for j := range k {
				want = append(want, "user: "+it.Turns[j], "assistant: "+texts[[2]int{id, j + 1}])
			}
			want = append(want, "user: "+it.Turns[k])
			var have []string
			for _, m := range got.Messages {
				have = append(have, m.Role+": "+m.Content)
			}
			assert.Equal(t, want, have, "conversation %s turn %d", it.ID, k+1)
			assert.Equal(t, 8, got.MaxTokens)
		}
	}
}

// A message list's max_tokens replaces BENCH_MAX_TOKENS for its
// conversation, and each request's max_tokens is in its record.
func TestMessageListsMaxTokensPerConversation(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{
		"BENCH_WORKLOAD": sampleMessages, "BENCH_CONCURRENCY": "3", "BENCH_WARMUPS": "0", "BENCH_CONTROL": "off",
		"BENCH_MAX_TOKENS": "24", "SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	_, recs := runLeaves(t, d, 1)
	var asked []int
	for _, r := range timed(recs) {
		if r.Turn == 1 {
			asked = append(asked, r.MaxTokens)
		}
	}
	assert.ElementsMatch(t, []int{48, 16, 24}, asked, "two lines' own max_tokens, the third BENCH_MAX_TOKENS")
}

// A trace is one open-loop leaf, named by its mean rate, whose requests
// go in the trace's order, each sized to its input_length on the runtime
// and asking for its output_length. No cold marker: requests whose
// hash_ids repeat an earlier one's start with the same text, which the
// simulator's prefix cache serves.
func TestTraceReplayedWithSharedPrefixes(t *testing.T) {
	t.Parallel()
	d, log := startTrace(t, 16, map[string]string{
		"BENCH_WORKLOAD": sampleTrace, "BENCH_TRACE_SPEED": "4", "BENCH_WARMUPS": "1", "BENCH_CONTROL": "off",
		"SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "4000", "SIM_PREFILL_TPS": "200000",
	})
	w, err := workload.Read(sampleTrace, workload.Options{Speed: 4})
	require.NoError(t, err)
	keys := slices.Collect(d.Leaves())
	require.Len(t, keys, 1, "a trace is one leaf per runtime")
	assert.Equal(t, "runtime=sim/prompt=trace/rate="+bench.FormatRate(traceRate(w)), keys[0].Levels())
	sent := recordBodies(d)
	f, recs, leaf := runLeavesOf(t, d, len(w.Requests))
	assert.Contains(t, log.String(), "trace sized to")

	require.NotNil(t, f.Arguments.Workload, "the summary says which workload ran")
	assert.Equal(t, sampleTrace, *f.Arguments.Workload)
	assert.Equal(t, 4.0, float64(f.Arguments.TraceSpeed), "at which speed")
	assert.Zero(t, f.Arguments.WorkloadN)
	assert.Nil(t, f.Arguments.Tools)

	row := f.Summary[0]
	assert.Equal(t, len(w.Requests), row.Requests)
	require.NotNil(t, row.SendLagSP50, "send lag is measured as for rates")
	require.NotNil(t, row.InputTokensAskedMin)
	assert.Equal(t, 340, *row.InputTokensAskedMin)
	assert.Equal(t, 1691, *row.InputTokensAskedMax)

	got := timed(recs)
	require.Len(t, got, len(w.Requests))
	slices.SortFunc(got, func(a, b records.Record) int { return a.Conversation - b.Conversation })
	for i, r := range got {
		want := w.Requests[i]
		assert.Equal(t, want.InputTokens, r.InputTokens, "request %d", i)
		assert.Equal(t, want.OutputTokens, r.MaxTokens, "request %d", i)
		require.NotNil(t, r.PromptTokens)
		assert.InDelta(t, want.InputTokens, *r.PromptTokens, 0.05*float64(want.InputTokens), "request %d sized to its input_length", i)
	}
	// Arrival times: no request is sent before its arrival, counted from
	// the first request's send, less 10 ms: on a busy machine the first
	// request itself goes out late (1.5 ms was seen), which makes every
	// later one look early by as much; sending ahead of the schedule
	// would be early by the trace's gaps, up to 0.1 s here. (How late a
	// busy machine sends them is the timing tests' to bound; order alone
	// is not checked, as two arrivals 2.5 ms apart can be stamped out of
	// order on two busy cores.)
	for i := 1; i < len(got); i++ {
		due := (w.Requests[i].Arrival - w.Requests[0].Arrival).Seconds()
		assert.GreaterOrEqual(t, got[i].StartS-got[0].StartS, due-0.010, "request %d sent before its arrival", i)
	}
	// Shared blocks: a request whose first blocks an earlier one sent
	// finds them in the cache; the first of each family and those with
	// no blocks find nothing.
	seen := map[int]bool{}
	for i, r := range got {
		shared := 0
		for _, h := range w.Requests[i].HashIDs {
			if !seen[h] {
				break
			}
			shared++
		}
		for _, h := range w.Requests[i].HashIDs {
			seen[h] = true
		}
		require.NotNil(t, r.CachedPromptTokens, "request %d", i)
		if shared == 0 {
			assert.Less(t, *r.CachedPromptTokens, 16, "request %d shares no block", i)
			continue
		}
		assert.Greater(t, *r.CachedPromptTokens, shared*512*9/10, "request %d shares %d blocks of 512 tokens", i, shared)
	}
	// The texts: each request's is the trace's text for it on this
	// runtime, whole, with no marker line before it.
	text, err := workload.NewTraceText(w, leaf.wordsFor)
	require.NoError(t, err)
	prompts := map[string]bool{}
	for _, c := range sent.sent {
		prompts[c.Messages[len(c.Messages)-1].Content] = true
	}
	for i, r := range w.Requests {
		assert.True(t, prompts[text.Prompt(r)], "request %d sent as the trace's text, unmarked", i)
	}
}

// Distributions in BENCH_INPUT_TOKENS and BENCH_MAX_TOKENS: every request
// draws its own lengths, within the distribution's bounds, sized on the
// runtime, in its record; the row summarises them.
func TestDistributionsDrawnPerRequest(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{
		"BENCH_INPUT_TOKENS": "uniform:100-400", "BENCH_MAX_TOKENS": "uniform:4-40", "BENCH_CONCURRENCY": "4",
		"BENCH_WARMUPS": "0", "BENCH_CONTROL": "off", "SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	require.Len(t, d.Prompts, 1)
	assert.Equal(t, "in-uniform-100-400", d.Prompts[0].Name)
	f, recs := runLeaves(t, d, 3)
	got := timed(recs)
	require.Len(t, got, 12)
	inputs, maxes := map[int]bool{}, map[int]bool{}
	lo, hi, sum := 1<<30, 0, 0
	for _, r := range got {
		assert.GreaterOrEqual(t, r.InputTokens, 100)
		assert.LessOrEqual(t, r.InputTokens, 400)
		assert.GreaterOrEqual(t, r.MaxTokens, 4)
		assert.LessOrEqual(t, r.MaxTokens, 40)
		assert.Equal(t, r.MaxTokens, r.OutputTokens, "the simulator writes what was asked")
		require.NotNil(t, r.PromptTokens)
		assert.InDelta(t, r.InputTokens, *r.PromptTokens, 0.1*float64(r.InputTokens), "sized on the runtime")
		inputs[r.InputTokens], maxes[r.MaxTokens] = true, true
		lo, hi, sum = min(lo, r.MaxTokens), max(hi, r.MaxTokens), sum+r.MaxTokens
	}
	assert.Greater(t, len(inputs), 6, "12 draws of 301 lengths")
	assert.Greater(t, len(maxes), 4, "12 draws of 37 lengths")
	row := f.Summary[0]
	require.NotNil(t, row.MaxTokensAskedMean)
	assert.Equal(t, lo, *row.MaxTokensAskedMin)
	assert.Equal(t, hi, *row.MaxTokensAskedMax)
	assert.InDelta(t, float64(sum)/12, *row.MaxTokensAskedMean, 1e-9)
	assert.Nil(t, row.InputTokensTarget, "no one target")
	assert.Zero(t, row.ShortOutputs)
}

// BENCH_TOOLS is read once, and its array goes with every request.
func TestToolsSentWithEveryRequest(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{"BENCH_TOOLS": sampleTools, "BENCH_PROMPTS": "short"})
	var names []string
	var tools []struct {
		Function struct{ Name string } `json:"function"`
	}
	require.NoError(t, json.Unmarshal(d.request(d.Prompts[0]).Tools, &tools))
	for _, tl := range tools {
		names = append(names, tl.Function.Name)
	}
	want, err := workload.ReadTools(sampleTools)
	require.NoError(t, err)
	require.Len(t, names, len(want))
	for i, tl := range want {
		assert.Equal(t, tl.Name, names[i])
	}

	// The summary says which tools file, and which bytes: two files of
	// one name differ in their digest.
	raw, err := os.ReadFile(sampleTools)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	a := d.arguments()
	require.NotNil(t, a.Tools)
	require.NotNil(t, a.ToolsSHA256)
	assert.Equal(t, sampleTools, *a.Tools)
	assert.Equal(t, hex.EncodeToString(sum[:])[:16], *a.ToolsSHA256)
	assert.Nil(t, a.Workload)
	assert.Zero(t, float64(a.TraceSpeed), "no trace ran")
}

// Bad workload and tools files, and a trace the run cannot hold, stop
// the run before any request, with an error that names the setting, the
// file and where.
func TestBadWorkloadsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	malformed := write("broken.jsonl", "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 5\n")
	empty := write("nothing.jsonl", "\n\n")
	long := write("long.jsonl", "{\"timestamp\": 0, \"input_length\": 30000, \"output_length\": 5}\n")
	for _, tc := range []struct {
		name string
		env  map[string]string
		opts Options
		want string
	}{
		{"missing", map[string]string{"BENCH_WORKLOAD": filepath.Join(dir, "gone.json")}, Options{}, `BENCH_WORKLOAD="` + filepath.Join(dir, "gone.json") + `": workload ` + filepath.Join(dir, "gone.json") + `: no such file`},
		{"malformed line", map[string]string{"BENCH_WORKLOAD": malformed}, Options{}, "broken.jsonl line 2: "},
		{"empty", map[string]string{"BENCH_WORKLOAD": empty}, Options{}, "nothing.jsonl: the file is empty"},
		{"trace too long", map[string]string{"BENCH_WORKLOAD": sampleTrace}, Options{Benchtime: "1s"},
			"longer than the 1s the run allows: raise the speed or take fewer requests (-benchtime=1s); -benchtime=Nx replays a trace's first N requests (-benchtime=16x all of them), whatever they take"},
		{"trace for a duration", map[string]string{"BENCH_WORKLOAD": sampleTrace, "BENCH_TRACE_SPEED": "2"}, Options{},
			"a trace is not replayed for a -benchtime duration (-benchtime=1s: go test would send as many requests as its timing asks for, the trace over and over); -benchtime=Nx replays a trace's first N requests (-benchtime=16x all of them)"},
		{"more requests than the trace", map[string]string{"BENCH_WORKLOAD": sampleTrace}, Options{Benchtime: "17x"},
			"-benchtime=17x asks for 17 requests, and the trace has 16 (BENCH_WORKLOAD_N=0): -benchtime=16x replays it whole"},
		{"beyond the context", map[string]string{"BENCH_WORKLOAD": long, "SIM_CONTEXT": "20000"}, Options{Benchtime: "1x"},
			"takes at most 20000 tokens (/api/show model_info sim.context_length): workload " + long + " line 1: input_length 30000 + output_length 5 = 30005 tokens, more than the context of 20000"},
		{"not listed", map[string]string{"BENCH_WORKLOAD": sampleChats, "BENCH_PROMPTS": "short"}, Options{},
			"BENCH_WORKLOAD makes prompt chats, which BENCH_PROMPTS does not list"},
		{"tools missing", map[string]string{"BENCH_TOOLS": filepath.Join(dir, "tools.json")}, Options{}, `BENCH_TOOLS="` + filepath.Join(dir, "tools.json") + `": tools ` + filepath.Join(dir, "tools.json") + `: no such file`},
		{"tools malformed", map[string]string{"BENCH_TOOLS": filepath.Join("..", "workload", "testdata", "bad", "tools-type.json")}, Options{}, `tools-type.json tool `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := isolated(t)
			out := filepath.Join(t.TempDir(), "results")
			env["BENCH_RUNTIMES"], env["BENCH_OUTPUT_DIR"] = "sim", out
			merge(env, tc.env)
			var log bytes.Buffer
			d, err := setup(context.Background(), env, &log, tc.opts)
			if d != nil {
				d.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			entries, _ := os.ReadDir(out)
			assert.Empty(t, entries, "nothing written, no request sent")
		})
	}
}

// Ollama is sent a num_ctx that holds a trace's longest request (its
// input and output lengths, and room for the chat template), and one
// that holds a conversation workload's longest conversation by an upper
// bound.
func TestWorkloadFitsOllamasNumCtx(t *testing.T) {
	t.Parallel()
	d, _ := startTrace(t, 16, map[string]string{"BENCH_WORKLOAD": sampleTrace, "SIM_KIND": "ollama"})
	w, err := workload.Read(sampleTrace, workload.Options{})
	require.NoError(t, err)
	need, _ := w.MaxNeed(0, nil)
	assert.Equal(t, 1691+28, need, "the sample's longest request")
	assert.Equal(t, need+templateTokens, d.numCtx)
	assert.Equal(t, d.numCtx, d.request(d.Prompts[0]).NumCtx)

	d, _ = startSim(t, map[string]string{"BENCH_WORKLOAD": sampleChats, "SIM_KIND": "ollama", "BENCH_MAX_TOKENS": "1500"})
	// bread: three turns, each reply up to 1500 tokens twice over: more
	// than the 2048 every Ollama gives unasked.
	assert.Greater(t, d.numCtx, 3*2*1500)
}
