package driver

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
)

// timedTurns groups the timed requests of recs by conversation, each in
// turn order.
func timedTurns(recs []records.Record) map[int][]records.Record {
	out := map[int][]records.Record{}
	for _, r := range recs {
		if !r.Warmup && !r.Calibration && !r.Control {
			out[r.Conversation] = append(out[r.Conversation], r)
		}
	}
	return out
}

// A conversation leaf sends concurrency conversations a round, each turn
// after the one before, and its row has the figures of each turn: the
// prompt grows by the history, and a server that reports its cache (the
// simulator's OpenAI endpoint) served each turn's history from it.
func TestConversationsOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, kind := range simKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f, recs, log := inputRun(t, map[string]string{
				"SIM_KIND": kind, "BENCH_TURNS": "3", "BENCH_CONCURRENCY": "2", "BENCH_PROMPTS": "short",
			})
			assert.Equal(t, 3, f.Arguments.Turns)
			require.Len(t, f.Summary, 1)
			row := f.Summary[0]
			assert.Equal(t, 2*2*3, row.Requests, "2 rounds of 2 conversations of 3 turns")
			assert.Zero(t, row.NotSent)
			require.Len(t, row.Turns, 3)
			for i, tf := range row.Turns {
				assert.Equal(t, i+1, tf.Turn)
				assert.Equal(t, 4, tf.Requests)
				require.NotNil(t, tf.PromptTokensMean)
				if i > 0 {
					assert.Greater(t, *tf.PromptTokensMean, *row.Turns[i-1].PromptTokensMean+8, "turn %d carries turn %d's reply of 8 tokens", i+1, i)
				}
			}
			convs := timedTurns(recs)
			assert.Len(t, convs, 4)
			for id, c := range convs {
				require.Len(t, c, 3, "conversation %d", id)
				for i, r := range c {
					assert.Equal(t, i+1, r.Turn, "conversation %d", id)
					assert.Equal(t, c[0].Round, r.Round, "a conversation is in one round")
				}
			}
			ids := map[int]bool{}
			for _, r := range recs {
				if r.Turn == 1 {
					assert.False(t, ids[r.Conversation], "conversation %d begun twice", r.Conversation)
					ids[r.Conversation] = true
				}
			}
			if kind == "ollama" {
				assert.Nil(t, row.CacheHitRatio, "Ollama reports no cached count")
				assert.Nil(t, row.Turns[1].CachedPromptTokensMean)
				return
			}
			assert.Zero(t, *row.Turns[0].CachedPromptTokensMean, "turn 1 is cold")
			for i := 1; i < 3; i++ {
				assert.GreaterOrEqual(t, *row.Turns[i].CachedPromptTokensMean, *row.Turns[i-1].PromptTokensMean-1,
					"turn %d reuses all of turn %d's prompt", i+1, i)
			}
			require.NotNil(t, row.CacheHitRatio)
			assert.Greater(t, *row.CacheHitRatio, 0.3)
			assert.NotContains(t, log, "reused none")
		})
	}
}

// The turns and the shared prefix are configuration lines of go test's
// output and of the .txt, so that benchstat never compares runs of
// different workloads; a run of single requests has neither.
func TestWorkloadConfigLines(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{"BENCH_TURNS": "4", "BENCH_SHARED_PREFIX": "300", "BENCH_CACHE": "warm"})
	assert.Equal(t, "cache: warm\nturns: 4\nshared-prefix: 300\n", d.ConfigLines())
	d.Run.Add(bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}, []stats.Round{{Wall: 1, Results: okResults(10)}}, summary.Telemetry{})
	txt, err := d.Run.Benchfmt()
	require.NoError(t, err)
	assert.Contains(t, string(txt), "\ncache: warm\nturns: 4\nshared-prefix: 300\ngoos: ")

	plain, _ := startSim(t)
	assert.Equal(t, "cache: cold\n", plain.ConfigLines())
}

// A shared prefix is a system message sized to BENCH_SHARED_PREFIX
// tokens on each runtime, the same in every request: a server with a
// prefix cache serves it from there after the first request.
func TestSharedPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method string
		env          map[string]string
	}{
		{"vllm", "tokenize", map[string]string{"SIM_FLAVOR": "vllm"}},
		{"ollama", "requests", map[string]string{"SIM_KIND": "ollama"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"BENCH_SHARED_PREFIX": "500", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "2"}
			for k, v := range tc.env {
				env[k] = v
			}
			f, recs, _ := inputRun(t, env)
			assert.Equal(t, 500, f.Arguments.SharedPrefix)
			s, ok := f.Runtimes[0].InputSizes[SharedPrefixName]
			require.True(t, ok, "the prefix's size is in runtimes[].input_sizes")
			assert.Equal(t, tc.method, s.Method)
			assert.InDelta(t, 500, s.PromptTokens, 5)
			row := f.Summary[0]
			require.NotNil(t, row.PromptTokensMean)
			assert.Greater(t, *row.PromptTokensMean, 500.0, "every request carries the prefix and its prompt")
			calibrations := 0
			for _, r := range recs {
				if r.Calibration {
					calibrations++
					assert.Equal(t, SharedPrefixName, r.Prompt)
				}
			}
			assert.Equal(t, s.CalibrationRequests, calibrations)
			if tc.name == "ollama" {
				assert.Nil(t, row.CacheHitRatio)
				assert.Nil(t, f.Arguments.NumCtx, "the conversation fits the context every Ollama loads a model with")
				return
			}
			require.NotNil(t, row.CacheHitRatio)
			assert.Greater(t, *row.CacheHitRatio, 0.8, "the prefix is most of each prompt, and cached")
		})
	}
}

// A conversation longer than a runtime's stated context is refused before
// any request, naming the variable and the value.
func TestConversationBeyondContextRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"BENCH_SHARED_PREFIX": "1900"}, `BENCH_SHARED_PREFIX=1900: sim (`},
		{map[string]string{"BENCH_TURNS": "20"}, `BENCH_TURNS=20: sim (`},
	} {
		env := merge(isolated(t), map[string]string{
			"BENCH_RUNTIMES": "sim", "SIM_CONTEXT": "2000", "BENCH_MAX_TOKENS": "128", "BENCH_PROMPTS": "short",
		}, tc.env)
		var log bytes.Buffer
		d, err := setup(context.Background(), env, &log, Options{})
		if d != nil {
			d.Close()
		}
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), "takes at most 2000 tokens")
		entries, _ := os.ReadDir(env["BENCH_OUTPUT_DIR"])
		assert.Empty(t, entries, "no request, no file")
	}
}

// A turn that fails ends its conversation: the failure is counted under
// its class, the later turns are not sent and are counted, and the run
// goes on.
func TestFailedTurnEndsItsConversation(t *testing.T) {
	t.Parallel()
	// The simulator's chat requests are numbered from 1 across the run:
	// every 5th is reset.
	f, recs, log := inputRun(t, map[string]string{
		"BENCH_TURNS": "3", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"SIM_FAULT": "reset", "SIM_FAULT_EVERY": "5",
	})
	row := f.Summary[0]
	// Conversation 1: requests 1, 2, 3. Conversation 2: 4, then 5 is
	// reset at turn 2, and turn 3 is never sent.
	assert.Equal(t, 5, row.Requests)
	assert.Equal(t, 1, row.Failures)
	assert.Equal(t, 1, row.Errors["reset"].Count)
	assert.Equal(t, 1, row.NotSent)
	convs := timedTurns(recs)
	var lens []int
	for _, c := range convs {
		lens = append(lens, len(c))
	}
	slices.Sort(lens)
	assert.Equal(t, []int{2, 3}, lens)
	assert.Contains(t, log, "1 turns were not sent: an earlier turn of their conversation failed")
	assert.True(t, strings.Contains(log, "1 of 5 requests failed"), log)
}

// With BENCH_RATES an arrival starts a conversation, whose later turns
// follow at once: the send lag is the first turn's.
func TestConversationsOnArrival(t *testing.T) {
	t.Parallel()
	f, recs, _ := inputRun(t, map[string]string{
		"BENCH_TURNS": "2", "BENCH_PROMPTS": "short", "BENCH_RATES": "20", "BENCH_CONCURRENCY": "",
	})
	var row *summary.Row
	for i, r := range f.Summary {
		if r.RateRPS != nil {
			row = &f.Summary[i]
		}
	}
	require.NotNil(t, row, "an open-loop row")
	assert.Equal(t, 4, row.Requests, "2 arrivals of 2 turns")
	require.Len(t, row.Turns, 2)
	assert.Equal(t, 2, row.Turns[1].Requests)
	var timed int
	for _, c := range timedTurns(recs) {
		if c[0].RateRPS == nil {
			continue
		}
		timed++
		require.Len(t, c, 2)
		assert.GreaterOrEqual(t, c[1].StartS, c[0].StartS+c[0].TotalS, "turn 2 after turn 1 ended")
	}
	assert.Equal(t, 2, timed)
	require.NotNil(t, row.InflightMax)
}

// Ollama's num_ctx fits the longest conversation by an upper bound, and
// is sent only when the context Ollama gives a model unasked may be too
// small; an in<N> prompt alone keeps its exact N + max tokens.
func TestNumCtxFitsConversations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{"BENCH_TURNS": "3"}, 0},
		{map[string]string{"BENCH_SHARED_PREFIX": "500"}, 0},
		// 3000 + the short prompt and its marker + 2 × (2 × 128 + 24) + 128
		{map[string]string{"BENCH_SHARED_PREFIX": "3000", "BENCH_TURNS": "3"}, 3000 + len(d0short(t)) + markerBytes + 2*(2*128+24) + 128},
		{map[string]string{"BENCH_INPUT_TOKENS": "1000", "BENCH_PROMPTS": ""}, 1000 + 128},
		{map[string]string{"BENCH_INPUT_TOKENS": "1000", "BENCH_PROMPTS": "", "BENCH_TURNS": "2"}, 1000 + 2*128 + 24 + 128},
		{map[string]string{"BENCH_TURNS": "3", "BENCH_NUM_CTX": "777"}, 777},
	} {
		env := map[string]string{"BENCH_PROMPTS": "short", "BENCH_MAX_TOKENS": "128"}
		for k, v := range tc.env {
			env[k] = v
		}
		d, _ := startSim(t, env)
		assert.Equal(t, tc.want, d.numCtx, "%v", tc.env)
	}
}

// d0short is the built-in short prompt's text.
func d0short(t *testing.T) string {
	ps, err := prompts.Load([]string{"short"}, "")
	require.NoError(t, err)
	return ps[0].Text
}
