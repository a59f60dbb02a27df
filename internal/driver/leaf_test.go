package driver

import (
	"bytes"
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/fixturetest"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
	"github.com/inferencebench/inferencebench/runtimes"
)

// written is what a reader of the run's files finds.
type written struct {
	*summary.File
	results []string // benchmark names in the .txt
}

func readWritten(t *testing.T, s *Driver) written {
	t.Helper()
	f, err := summary.Read(s.files.json)
	require.NoError(t, err, "the JSON is whole after every write")
	return written{f, fixturetest.BenchNames(t, s.files.txt)}
}

func okRounds() []stats.Round {
	return []stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}}
}

// record ends a leaf run of k that had rounds, as BenchmarkInference's
// leaf does, and returns its save error.
func record(d *Driver, k bench.Key, rounds []stats.Round) error {
	l := &Leaf{d: d, key: k, rounds: rounds}
	return l.End().SaveErr
}

// checkReachable begins a leaf run of k, for the runtimes that cannot run.
func checkReachable(d *Driver, k bench.Key) (skip bool, err error) {
	_, skip, err = d.Begin(context.Background(), k)
	return skip, err
}

// Each finished leaf run is on disk before the next starts, so that an
// interrupted run keeps it; only the last write says the run is complete.
func TestRecordRewritesFilesAfterEachLeaf(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "sim"
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)

	k1 := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}
	k4 := k1
	k4.Concurrency = 4
	require.NoError(t, record(s, k1, okRounds()))
	w := readWritten(t, s)
	assert.False(t, *w.Complete)
	require.Len(t, w.Summary, 1)
	assert.Equal(t, []string{"Inference/runtime=sim/prompt=short/conc=1"}, trimProcs(w.results))

	require.NoError(t, record(s, k4, okRounds()))
	w = readWritten(t, s)
	assert.False(t, *w.Complete)
	require.Len(t, w.Summary, 2)
	assert.Len(t, w.results, 2)

	require.NoError(t, s.Finish())
	w = readWritten(t, s)
	assert.True(t, *w.Complete, "the last write marks the run complete")
	assert.Len(t, w.Summary, 2)

	left, err := filepath.Glob(filepath.Join(s.Settings.OutputDir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

func trimProcs(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if j := strings.LastIndexByte(n, '-'); j > strings.LastIndexByte(n, '=') {
			n = n[:j]
		}
		out[i] = n
	}
	return out
}

// A named runtime that does not answer fails its leaves, or skips them
// with BENCH_SKIP_UNREACHABLE=1, with one message naming it, its URL and
// the error; either way its rows say why, and nothing holds a secret.
func TestCheckReachable(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		t.Run(map[bool]string{false: "fail", true: "skip"}[skip], func(t *testing.T) {
			t.Parallel()
			env := isolated(t)
			url := closedURL(t)
			env["BENCH_RUNTIMES"] = "mine,sim"
			env["MINE_URL"] = strings.Replace(url, "http://", "http://me:hunter2@", 1)
			env["MINE_API_KEY"] = "sk-verysecret"
			if skip {
				env["BENCH_SKIP_UNREACHABLE"] = "1"
			}
			s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
			require.NoError(t, err)
			t.Cleanup(s.Close)

			skipped, err := checkReachable(s, bench.Key{Runtime: "sim", Prompt: "short", Concurrency: 1})
			require.NoError(t, err)
			assert.False(t, skipped)
			skipped, err = checkReachable(s, bench.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
			require.Error(t, err)
			assert.Equal(t, skip, skipped)
			msg := err.Error()
			assert.Contains(t, msg, "mine ("+url+")")
			assert.Contains(t, msg, "connection refused")
			if skip {
				assert.True(t, strings.HasPrefix(msg, "skipped (BENCH_SKIP_UNREACHABLE=1): mine ("), msg)
			} else {
				assert.Contains(t, msg, "set BENCH_SKIP_UNREACHABLE=1 to skip")
			}

			assert.NoFileExists(t, s.files.json, "no file while no request has been sent")
			require.NoError(t, record(s, bench.Key{Runtime: "sim", Prompt: "short", Concurrency: 1}, okRounds()))
			w := readWritten(t, s)
			require.Len(t, w.Summary, 2)
			row := w.Summary[0]
			assert.Equal(t, "mine", row.Runtime)
			assert.Zero(t, row.Requests)
			assert.Nil(t, row.TTFTMean)
			require.Contains(t, row.Errors, ClassUnreachable)
			assert.Contains(t, row.Errors[ClassUnreachable].First, "connection refused")
			assert.Equal(t, []string{"Inference/runtime=sim/prompt=short/conc=1"}, trimProcs(w.results), "no benchmark line for a runtime that was not benchmarked")
			for _, f := range []string{s.files.json, s.files.txt} {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "hunter2")
				assert.NotContains(t, string(b), "sk-verysecret")
			}
			assert.NotContains(t, msg, "hunter2")
			assert.NotContains(t, msg, "sk-verysecret")
		})
	}
}

// A runtime that answers, but cannot be benchmarked (here: it wants a key),
// is not "unreachable": its benchmarks fail even with
// BENCH_SKIP_UNREACHABLE=1, and its rows say unavailable.
func TestUnavailableIsNotSkipped(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	env["BENCH_RUNTIMES"] = "mine"
	env["MINE_URL"] = srv.URL
	env["BENCH_SKIP_UNREACHABLE"] = "1"
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	skipped, err := checkReachable(s, bench.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
	require.Error(t, err)
	assert.False(t, skipped, "an answering runtime is never skipped")
	assert.Contains(t, err.Error(), "HTTP 401")
	assert.NotContains(t, log.String(), "skipping")
	require.Len(t, s.Run.Rows(), 1)
	assert.Contains(t, s.Run.Rows()[0].Errors, ClassUnavailable)

	err = s.Finish()
	require.Error(t, err, "a run that sent no request fails")
	assert.Contains(t, err.Error(), "no benchmark sent a request")
	assert.Empty(t, names(t, s.Settings.OutputDir), "and writes no files: they would show as a run in reports")
}

// Every runtime skipped: the run fails, though each benchmark only skipped.
func TestAllSkippedFails(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "mine"
	env["MINE_URL"] = closedURL(t)
	env["BENCH_SKIP_UNREACHABLE"] = "1"
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	assert.Contains(t, log.String(), "skipping its benchmarks (BENCH_SKIP_UNREACHABLE=1)")
	skipped, err := checkReachable(s, bench.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
	require.Error(t, err)
	assert.True(t, skipped)
	err = s.Finish()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no benchmark sent a request")
}

// A run whose requests partly failed ends with one line that says how many
// and where to read them; BENCH_MAX_FAILURES makes it fail above a share.
func TestFailuresAtTheEnd(t *testing.T) {
	t.Parallel()
	failed := runtimes.Result{Err: runtimes.NewError(runtimes.ClassReset, "connection reset by peer")}
	ok := okRounds()[0].Results[0]
	rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{ok, ok, ok, failed}}}
	for _, tt := range []struct {
		max     string
		wantErr string
	}{
		{"", "1 of 5 requests failed (20.0%), more than BENCH_MAX_FAILURES=0.05 allows (BENCH_MAX_FAILURES=1 never fails a run for its failed requests)"},
		{"1", ""},
		{"0.5", ""},
		{"0.01", "1 of 5 requests failed (20.0%), more than BENCH_MAX_FAILURES=0.01 allows (BENCH_MAX_FAILURES=1 never fails a run for its failed requests)"},
	} {
		t.Run("max="+tt.max, func(t *testing.T) {
			t.Parallel()
			env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_MAX_FAILURES": tt.max})
			var log bytes.Buffer
			s, err := setup(context.Background(), env, &log, Options{})
			require.NoError(t, err)
			require.NoError(t, record(s, bench.Key{Runtime: "sim", Prompt: "short", Concurrency: 4}, rounds))
			require.NoError(t, record(s, bench.Key{Runtime: "sim", Prompt: "code", Concurrency: 4}, okRounds()))
			err = s.Finish()
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
			limit := cmp.Or(tt.max, "0.05")
			verdict := "the run fails only above BENCH_MAX_FAILURES=" + limit
			if tt.wantErr != "" {
				verdict = "more than BENCH_MAX_FAILURES=" + limit
			}
			assert.Contains(t, log.String(), Prefix+"1 of 5 requests failed (1 reset): see the errors in "+s.files.json+"; "+verdict+" (")
		})
	}
}

// promptServer is an OpenAI-kind server that answers every chat request
// with two tokens and keeps the prompts it was sent.
func promptServer(t *testing.T) (url string, prompts func() []string) {
	url, sent := canaryServer(t)
	return url, func() []string {
		var out []string
		for _, r := range sent() {
			out = append(out, r.Prompt)
		}
		return out
	}
}

// runLeaf runs one leaf of k as BenchmarkInference does, with rounds
// timed rounds.
func runLeaf(t *testing.T, d *Driver, k bench.Key, rounds int) Outcome {
	t.Helper()
	l, _, err := d.Begin(context.Background(), k)
	require.NoError(t, err)
	l.WarmUp()
	for range rounds {
		l.Next()
	}
	out := l.End()
	for _, note := range out.Notes {
		d.logf("%s", note) // as BenchmarkInference's b.Log, under the result line
	}
	return out
}

// BENCH_CACHE=cold makes every request's prompt unique from its first
// word; warm sends the prompt as it is. Either way every request, warm-ups
// included, is recorded.
func TestColdPromptsAndRequestRecords(t *testing.T) {
	t.Parallel()
	for _, cache := range []string{"cold", "warm"} {
		t.Run(cache, func(t *testing.T) {
			t.Parallel()
			url, sent := promptServer(t)
			env := merge(isolated(t), map[string]string{
				"BENCH_RUNTIMES": "mine", "MINE_URL": url, "BENCH_CACHE": cache, "BENCH_WARMUPS": "1",
				"BENCH_PROMPTS": "short", "BENCH_RECORD_CHUNKS": "1", "BENCH_MAX_TOKENS": "2",
			})
			d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			assert.Equal(t, "cache: "+cache+"\n", d.ConfigLines())
			k := slices.Collect(d.Leaves())[1] // conc=4
			require.Equal(t, 4, k.Concurrency)
			out := runLeaf(t, d, k, 2)
			require.NoError(t, out.SaveErr)
			require.NoError(t, d.Finish())

			prompts := sent()
			require.Len(t, prompts, 24, "a warm-up and two timed rounds of 4, and the same again as the control leaf at the end")
			firsts := map[string]bool{}
			for _, p := range prompts {
				if cache == "warm" {
					assert.Equal(t, d.Prompts[0].Text, p)
					continue
				}
				marker, text, ok := strings.Cut(p, "\n")
				require.True(t, ok, p)
				assert.Equal(t, d.Prompts[0].Text, text, "the prompt follows the marker, unchanged")
				assert.Regexp(t, `^\[[0-9a-f]{12} run `+d.Run.ID+` L[12] [wr][12] i[0-3]\]$`, marker, "the control is leaf run 2")
				firsts[strings.Fields(marker)[0]] = true
			}
			if cache == "cold" {
				assert.Len(t, firsts, 24, "no two requests start alike, the control's included")
			}

			f, err := summary.Read(d.files.json)
			require.NoError(t, err)
			assert.Equal(t, cache, f.Arguments.Cache)
			assert.Nil(t, f.Arguments.Seed, "no seed unless BENCH_SEED is set")
			assert.Contains(t, string(testkit.Must(os.ReadFile(d.files.txt))), "\ncache: "+cache+"\n")
			recs, err := records.Read(d.files.records)
			require.NoError(t, err)
			require.Len(t, recs, 24)
			warm, control := 0, 0
			for _, r := range recs {
				if r.Control {
					control++
					assert.Equal(t, 0, r.Count, "a control is no -count repetition")
				} else {
					assert.Equal(t, 1, r.Count)
				}
				if r.Warmup && !r.Control {
					warm++
					assert.Equal(t, 1, r.Round)
				}
				assert.Equal(t, "mine", r.Runtime)
				assert.Equal(t, "m", r.ServedModel)
				assert.Equal(t, 2, r.OutputTokens)
				assert.Equal(t, "length", r.FinishReason)
				assert.Nil(t, r.Error)
				assert.Len(t, r.ChunkS, 2, "BENCH_RECORD_CHUNKS=1: every text chunk's arrival")
				assert.Positive(t, r.StartS)
			}
			assert.Equal(t, 4, warm, "the warm-up round is recorded and marked")
			assert.Equal(t, 12, control, "the control's requests are recorded and marked")
		})
	}
}

// Notes on each runtime are said at the start, before any benchmark runs:
// the way its server is returned to a known state; and a run of fewer
// than 6 samples a leaf says that compare gives it no verdict. A line of
// the driver while a leaf runs (the version mlx_lm.server's replies
// state) is not written on the log, where it could land between go test's
// benchmark name and its result, but returned with the leaf's notes.
func TestNotesBeforeTheFirstResult(t *testing.T) {
	t.Parallel()
	d, log := startSim(t, map[string]string{"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1",
		"BENCH_MAX_TOKENS": "4", "SIM_FLAVOR": "mlx", "SIM_TTFT": "2ms"})
	assert.Contains(t, log.String(), "sim: its server offers no way to drop the state it keeps between requests", "said at setup")
	at := log.Len()
	l, _, err := d.Begin(context.Background(), slices.Collect(d.Leaves())[0])
	require.NoError(t, err)
	l.WarmUp()
	l.Next()
	out := l.End()
	require.NoError(t, out.Failed)
	assert.NotContains(t, log.String()[at:], "system_fingerprint", "written while the leaf ran")
	assert.True(t, slices.ContainsFunc(out.Notes, func(n string) bool { return strings.Contains(n, "as its replies' system_fingerprint") }), "%q", out.Notes)

	var few bytes.Buffer
	d, err = setup(context.Background(), merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim"}), &few, Options{Count: 3})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	assert.Contains(t, few.String(), Prefix+"-count=3: 3 samples a leaf; scripts/compare.sh and cmd/compare give no verdict below 6")
	var enough bytes.Buffer
	d, err = setup(context.Background(), merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim"}), &enough, Options{Count: 6})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	assert.NotContains(t, enough.String(), "-count")
}
