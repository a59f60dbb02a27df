package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// suiteFile is a summary as the suite writes it (every argument key), of
// an Ollama and a vLLM runtime, prompts short and code, edited by edit.
func suiteFile(t *testing.T, edit func(f *File)) []byte {
	t.Helper()
	f := File{
		RunID: "20261201T021700Z", CreatedAt: "2026-12-01T02:17:00.000000+00:00",
		Arguments: Arguments{
			Warmups: 2, Rounds: testkit.Ptr(3), Count: testkit.Ptr(6), Benchtime: "3x", Concurrency: []int{1, 4},
			MaxTokens: 128, Cache: config.CacheCold, Turns: 1, Burstiness: 1, MaxInflight: 256,
		},
		Runtimes: []RuntimeInfo{{Name: "ollama", Kind: "ollama"}, {Name: "vllm", Kind: "openai"}},
		Prompts:  Prompts{{Name: "short", Text: "In exactly four concise bullet points, explain why database transactions are useful."}, {Name: "code", Text: "Write merge_intervals."}},
		Summary:  []Row{{Runtime: "ollama", Prompt: "short", Concurrency: 1}},
	}
	if edit != nil {
		edit(&f)
	}
	data, err := f.Encode()
	require.NoError(t, err)
	return data
}

// settingsOf reads the settings of a summary's bytes.
func settingsOf(t *testing.T, data []byte) Settings {
	t.Helper()
	f, err := Decode(data)
	require.NoError(t, err)
	s, err := SettingsOf(f, data)
	require.NoError(t, err)
	return s
}

// withoutArguments deletes keys from a summary's "arguments", as a file
// written before they existed lacks them.
func withoutArguments(t *testing.T, data []byte, keys ...string) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	var args map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["arguments"], &args))
	for _, k := range keys {
		delete(args, k)
	}
	doc["arguments"] = testkit.Must(json.Marshal(args))
	return testkit.Must(json.Marshal(doc))
}

func TestDifferences(t *testing.T) {
	base := suiteFile(t, nil)
	for _, tt := range []struct {
		name string
		new  []byte
		want []Difference
	}{
		{"the same", suiteFile(t, nil), nil},
		{"max_tokens", suiteFile(t, func(f *File) { f.Arguments.MaxTokens = 256 }),
			[]Difference{{"max_tokens", "BENCH_MAX_TOKENS", "128", "256"}}},
		{"temperature and ignore_eos", suiteFile(t, func(f *File) { f.Arguments.Temperature, f.Arguments.IgnoreEOS = 0.7, true }),
			[]Difference{{"temperature", "BENCH_TEMPERATURE", "0", "0.7"}, {"ignore_eos", "BENCH_IGNORE_EOS", "false", "true"}}},
		{"num_ctx sent against none", suiteFile(t, func(f *File) { f.Arguments.NumCtx = testkit.Ptr(8192) }),
			[]Difference{{"num_ctx", "BENCH_NUM_CTX", "none", "8192"}}},
		{"a prompt's text", suiteFile(t, func(f *File) {
			f.Prompts[0].Text = "In exactly five concise bullet points, explain why database transactions are useful."
		}),
			[]Difference{{"prompt short", "BENCH_PROMPTS_DIR", `"In exactly four concise bullet points, e…"`, `"In exactly five concise bullet points, e…"`}}},
		{"samples only: count, rounds, benchtime, warmups", suiteFile(t, func(f *File) {
			f.Arguments.Count, f.Arguments.Rounds, f.Arguments.Benchtime, f.Arguments.Warmups = testkit.Ptr(10), testkit.Ptr(5), "5x", 1
		}), nil},
		{"other rows, not other figures: prompts, loads, runtimes", suiteFile(t, func(f *File) {
			f.Prompts = f.Prompts[:1]
			f.Arguments.Prompts, f.Arguments.Concurrency = []string{"short"}, []int{1, 2, 4, 8}
			f.Runtimes = f.Runtimes[:1]
		}), nil},
		{"limits, seed, order and the rest", suiteFile(t, func(f *File) {
			f.Arguments.Timeout, f.Arguments.IdleTimeout, f.Arguments.Seed = 90, 10, testkit.Ptr(7)
			f.Arguments.KeepAlive, f.Arguments.Fresh, f.Arguments.Order, f.Arguments.Control = "5m", "off", "grouped", "off"
			f.Arguments.Canary, f.Arguments.Power, f.Arguments.IdlePowerS = "off", "on", 5
		}), nil},
		{"tools against none", suiteFile(t, func(f *File) {
			f.Arguments.Tools, f.Arguments.ToolsSHA256 = testkit.Ptr("tools.json"), testkit.Ptr("0123456789abcdef")
		}),
			[]Difference{{"tools_sha256", "BENCH_TOOLS", "none", "0123456789abcdef"}}},
		// A workload's sample (BENCH_WORKLOAD_N) is told by its prompt's
		// text, "(workload chats.json: …, 8 conversations of 40, …)", in
		// the rows of that prompt alone: not a setting of every row.
		{"a workload's sample", suiteFile(t, func(f *File) { f.Arguments.Workload, f.Arguments.WorkloadN = testkit.Ptr("chats.json"), 8 }), nil},
		{"open-loop settings without an open loop", suiteFile(t, func(f *File) { f.Arguments.Burstiness, f.Arguments.MaxInflight = 0.5, 64 }), nil},
		{"a file without the keys compares as before", withoutArguments(t, suiteFile(t, func(f *File) {
			f.Arguments.Temperature, f.Arguments.IgnoreEOS = 0.7, true
		}), "temperature", "ignore_eos", "num_ctx", "max_tokens"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Differences(settingsOf(t, base), settingsOf(t, tt.new)))
		})
	}
}

// A setting is named only where it shapes rows both runs could share:
// ignore_eos is not sent to Ollama, num_ctx only to Ollama, burstiness
// and the in-flight cap only shape open loops.
func TestDifferencesApply(t *testing.T) {
	ollamaOnly := func(f *File) { f.Runtimes = f.Runtimes[:1] }
	vllmOnly := func(f *File) { f.Runtimes = f.Runtimes[1:] }
	pair := func(common func(*File), edit func(*File)) []Difference {
		old := suiteFile(t, common)
		new := suiteFile(t, func(f *File) { common(f); edit(f) })
		return Differences(settingsOf(t, old), settingsOf(t, new))
	}
	eos := func(f *File) { f.Arguments.IgnoreEOS = true }
	numCtx := func(f *File) { f.Arguments.NumCtx = testkit.Ptr(4096) }
	assert.Empty(t, pair(ollamaOnly, eos), "Ollama is not asked to ignore EOS")
	assert.Len(t, pair(vllmOnly, eos), 1)
	assert.Empty(t, pair(vllmOnly, numCtx), "num_ctx is Ollama's")
	assert.Len(t, pair(ollamaOnly, numCtx), 1)

	open := func(f *File) { f.Arguments.Rates = []float64{2} }
	bursty := func(f *File) { f.Arguments.Burstiness, f.Arguments.MaxInflight = 0.5, 64 }
	assert.Equal(t, []Difference{
		{"burstiness", "BENCH_BURSTINESS", "1", "0.5"}, {"max_inflight", "BENCH_MAX_INFLIGHT", "256", "64"},
	}, pair(open, bursty))

	// A trace is an open loop of its own, at its recorded times: its
	// speed and the in-flight cap count between two runs that replayed
	// one, with or without BENCH_RATES, burstiness only where both ran
	// BENCH_RATES too; a run that replayed none writes 0, which is no
	// speed.
	trace := func(f *File) {
		f.Arguments.TraceSpeed, f.Arguments.Workload = 1, testkit.Ptr("testdata/my trace.jsonl")
	}
	faster := func(f *File) { f.Arguments.TraceSpeed = 2 }
	assert.Equal(t, []Difference{{"trace_speed", "BENCH_TRACE_SPEED", "1", "2"}}, pair(trace, faster))
	assert.Empty(t, pair(open, faster), "no trace in the old run")
	assert.Equal(t, []Difference{{"max_inflight", "BENCH_MAX_INFLIGHT", "256", "64"}}, pair(trace, bursty),
		"a trace keeps its own times: no burstiness")
	both := func(f *File) { open(f); trace(f) }
	assert.Len(t, pair(both, bursty), 2, "both ran BENCH_RATES beside the trace")

	valuesOf := func(f []byte, prompt string) map[string]string {
		out := map[string]string{}
		for _, v := range settingsOf(t, f).Of("vllm", prompt, true) {
			out[v.Setting] = v.Value
		}
		return out
	}
	traced := suiteFile(t, func(f *File) { both(f); faster(f) })
	assert.Equal(t, map[string]string{"max_tokens": "128", "temperature": "0", "ignore_eos": "false", "max_inflight": "256",
		"tools_sha256": "none", "trace_speed": "2", "prompt my_trace": ""}, valuesOf(traced, "my_trace"),
		"the trace's row: its speed, no burstiness")
	assert.Equal(t, map[string]string{"max_tokens": "128", "temperature": "0", "ignore_eos": "false", "burstiness": "1", "max_inflight": "256",
		"tools_sha256": "none", "prompt code": "Write merge_intervals."}, valuesOf(traced, "code"),
		"a BENCH_RATES row of the same run: burstiness, no trace speed")
	assert.Equal(t, "2", valuesOf(suiteFile(t, faster), "short")["trace_speed"],
		"a file that does not name its workload: its open rows are the trace's")
}

// The earlier harness's file has max_tokens and the prompts' texts, not
// the keys added since: against the suite's, only those it has count.
func TestDifferencesSeed(t *testing.T) {
	data, err := os.ReadFile(seedPath)
	require.NoError(t, err)
	seed := settingsOf(t, data)
	same := suiteFile(t, func(f *File) {
		f.Runtimes = []RuntimeInfo{{Name: "vllm-metal", Kind: "openai"}}
		f.Arguments.Temperature, f.Arguments.IgnoreEOS = 0.7, true
		f.Prompts = Prompts{{Name: "short", Text: "In exactly four concise bullet points, explain why database transactions are useful. Do not use a heading."}}
	})
	assert.Empty(t, Differences(seed, settingsOf(t, same)), "temperature and ignore_eos: the seed has none")
	other := suiteFile(t, func(f *File) { f.Arguments.MaxTokens = 64; f.Prompts = nil })
	assert.Equal(t, []Difference{{"max_tokens", "BENCH_MAX_TOKENS", "128", "64"}}, Differences(seed, settingsOf(t, other)))

	// A series key gives a missing setting the suite's default.
	assert.Equal(t, []Value{{"max_tokens", "128"}, {"temperature", "0"}, {"ignore_eos", "false"}, {"tools_sha256", "none"}},
		seed.Of("vllm-metal", "", false), "openai kind, no prompt named in the seed's rows")
}

func TestSettingsOf(t *testing.T) {
	s := settingsOf(t, suiteFile(t, func(f *File) { f.Arguments.Temperature = 0.25 }))
	assert.Equal(t, []Value{
		{"max_tokens", "128"}, {"temperature", "0.25"}, {"num_ctx", "none"}, {"tools_sha256", "none"},
		{"prompt short", "In exactly four concise bullet points, explain why database transactions are useful."},
	}, s.Of("ollama", "short", false))
	assert.Equal(t, []Value{
		{"max_tokens", "128"}, {"temperature", "0.25"}, {"ignore_eos", "false"}, {"burstiness", "1"}, {"max_inflight", "256"},
		{"tools_sha256", "none"}, {"prompt code", "Write merge_intervals."},
	}, s.Of("vllm", "code", true))
	assert.Equal(t, []Value{
		{"max_tokens", "128"}, {"temperature", "0.25"}, {"ignore_eos", "false"}, {"num_ctx", "none"},
		{"tools_sha256", "none"}, {"prompt other", ""},
	}, s.Of("unlisted", "other", false), "a runtime of unknown kind: both")

	// A file with no arguments at all has every setting's default.
	bare := []byte(`{"summary": [{"runtime": "a", "concurrency": 1}]}`)
	assert.Equal(t, []Value{{"max_tokens", "128"}, {"temperature", "0"}, {"ignore_eos", "false"}, {"num_ctx", "none"},
		{"tools_sha256", "none"}},
		settingsOf(t, bare).Of("a", "", false))
}

func TestValueShown(t *testing.T) {
	assert.Equal(t, "max_tokens=64", Value{"max_tokens", "64"}.String())
	assert.Equal(t, `prompt short="In exactly four concise bullet points, e…"`,
		Value{"prompt short", "In exactly four concise bullet points, explain why."}.String())
	assert.Equal(t, `prompt x=(no text)`, Value{"prompt x", ""}.String())
	assert.Equal(t, "max_tokens 128 → 64", Change(Value{"max_tokens", "128"}, Value{"max_tokens", "64"}))
	long := "Write a Python 3.12 function named merge_intervals that accepts a list of integer pairs."
	assert.Equal(t, `prompt code "…named merge_intervals that accepts a lis…" → "…named merge_ranges that accepts a list o…"`,
		Change(Value{"prompt code", long}, Value{"prompt code", "Write a Python 3.12 function named merge_ranges that accepts a list of integer pairs."}),
		"cut around the first difference")
}

func TestReadComparable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(path, suiteFile(t, func(f *File) { f.Arguments.MaxTokens = 64 }), 0o644))
	f, s, err := ReadComparable(path)
	require.NoError(t, err)
	assert.Equal(t, 64, f.Arguments.MaxTokens)
	assert.Equal(t, Value{"max_tokens", "64"}, s.Of("ollama", "", false)[0])

	require.NoError(t, os.WriteFile(path, []byte("{"), 0o644))
	_, _, err = ReadComparable(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": not JSON")
	_, _, err = ReadComparable(filepath.Join(dir, "none.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestSLOs(t *testing.T) {
	slo := func(s string) func(*File) { return func(f *File) { f.Arguments.SLO = &s } }
	a, b := settingsOf(t, suiteFile(t, slo("ttft=2s"))), settingsOf(t, suiteFile(t, slo("ttft=1s")))
	o, n, ok := SLOs(a, b)
	assert.True(t, ok)
	assert.Equal(t, []string{"ttft=2s", "ttft=1s"}, []string{o, n})
	_, _, ok = SLOs(a, a)
	assert.False(t, ok)
	_, _, ok = SLOs(a, settingsOf(t, suiteFile(t, nil)))
	assert.False(t, ok, "one without targets has no goodput to compare")
	assert.Empty(t, Differences(a, b), "not a setting that makes runs not comparable")
}

// Each setting of the rule names a config.Settings field with an env
// tag, and the rule is written once, in settings: comparable.go's comment
// has no table restating a setting's key beside its variable.
func TestRuleNamesConfigFields(t *testing.T) {
	src, err := os.ReadFile("comparable.go")
	require.NoError(t, err)
	for _, st := range settings {
		var env string
		require.NotPanics(t, func() { env = config.Var(st.field) }, "%s: field %s", st.key, st.field)
		assert.NotRegexp(t, `(?m)^//\t`+st.key+`\s+`+env+`\b`, string(src), "%s: a comment restates the rule's row", st.key)
	}
}
