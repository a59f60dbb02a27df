package driver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/fixturetest"
	"github.com/inferencebench/inferencebench/internal/summary"
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

func okRounds() []summary.Round {
	return []summary.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}}
}

// record ends a leaf run of k that had rounds, as BenchmarkInference's
// leaf does, and returns its save error.
func record(d *Driver, k summary.Key, rounds []summary.Round) error {
	l := &Leaf{d: d, key: k, rounds: rounds}
	return l.End().SaveErr
}

// checkReachable begins a leaf run of k, for the runtimes that cannot run.
func checkReachable(d *Driver, k summary.Key) (skip bool, err error) {
	_, skip, err = d.Begin(context.Background(), k)
	return skip, err
}

// Each finished leaf run is on disk before the next starts, so that an
// interrupted run keeps it; only the last write says the run is complete.
func TestRecordRewritesFilesAfterEachLeaf(t *testing.T) {
	isolate(t)
	t.Setenv("BENCH_RUNTIMES", "sim")
	s, err := Setup(context.Background(), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)

	k1 := summary.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}
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

// Two runs started in the same second do not write over each other.
func TestRunIDNotReused(t *testing.T) {
	isolate(t)
	t.Setenv("BENCH_RUNTIMES", "sim")
	s, err := Setup(context.Background(), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	dir := s.Settings.OutputDir
	s.Run.ID = "20261202T120000Z"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20261202T120000Z.json"), []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20261202T120000Z-2.json"), []byte("{}\n"), 0o644))

	require.NoError(t, record(s, summary.Key{Runtime: "sim", Prompt: "short", Concurrency: 1}, okRounds()))
	assert.Equal(t, filepath.Join(dir, "20261202T120000Z-3.json"), s.files.json)
	assert.Equal(t, filepath.Join(dir, "20261202T120000Z-3.txt"), s.files.txt)
	old, err := os.ReadFile(filepath.Join(dir, "20261202T120000Z.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(old), "the earlier run's file is untouched")
	require.NoError(t, record(s, summary.Key{Runtime: "sim", Prompt: "short", Concurrency: 4}, okRounds()))
	assert.Equal(t, filepath.Join(dir, "20261202T120000Z-3.json"), s.files.json, "the id stays for the whole run")
}

// A named runtime that does not answer fails its leaves, or skips them
// with BENCH_SKIP_UNREACHABLE=1, with one message naming it, its URL and
// the error; either way its rows say why, and nothing holds a secret.
func TestCheckReachable(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(map[bool]string{false: "fail", true: "skip"}[skip], func(t *testing.T) {
			isolate(t)
			url := closedURL(t)
			t.Setenv("BENCH_RUNTIMES", "mine,sim")
			t.Setenv("MINE_URL", strings.Replace(url, "http://", "http://me:hunter2@", 1))
			t.Setenv("MINE_API_KEY", "sk-verysecret")
			if skip {
				t.Setenv("BENCH_SKIP_UNREACHABLE", "1")
			}
			s, err := Setup(context.Background(), &bytes.Buffer{}, Options{})
			require.NoError(t, err)
			t.Cleanup(s.Close)

			skipped, err := checkReachable(s, summary.Key{Runtime: "sim", Prompt: "short", Concurrency: 1})
			require.NoError(t, err)
			assert.False(t, skipped)
			skipped, err = checkReachable(s, summary.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
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

			assert.Empty(t, s.files.json, "no file while no request has been sent")
			require.NoError(t, record(s, summary.Key{Runtime: "sim", Prompt: "short", Concurrency: 1}, okRounds()))
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
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("BENCH_RUNTIMES", "mine")
	t.Setenv("MINE_URL", srv.URL)
	t.Setenv("BENCH_SKIP_UNREACHABLE", "1")
	var log bytes.Buffer
	s, err := Setup(context.Background(), &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	skipped, err := checkReachable(s, summary.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
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
	isolate(t)
	t.Setenv("BENCH_RUNTIMES", "mine")
	t.Setenv("MINE_URL", closedURL(t))
	t.Setenv("BENCH_SKIP_UNREACHABLE", "1")
	var log bytes.Buffer
	s, err := Setup(context.Background(), &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	assert.Contains(t, log.String(), "skipping its benchmarks (BENCH_SKIP_UNREACHABLE=1)")
	skipped, err := checkReachable(s, summary.Key{Runtime: "mine", Prompt: "short", Concurrency: 1})
	require.Error(t, err)
	assert.True(t, skipped)
	err = s.Finish()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no benchmark sent a request")
}

// A run whose requests partly failed ends with one line that says how many
// and where to read them; BENCH_MAX_FAILURES makes it fail above a share.
func TestFailuresAtTheEnd(t *testing.T) {
	failed := runtimes.Result{Err: runtimes.NewError(runtimes.ClassReset, "connection reset by peer")}
	ok := okRounds()[0].Results[0]
	rounds := []summary.Round{{Wall: time.Second, Results: []runtimes.Result{ok, ok, ok, failed}}}
	for _, tt := range []struct {
		max     string
		wantErr string
	}{
		{"", ""},
		{"0.5", ""},
		{"0.01", "1 of 5 requests failed (20.0%), more than BENCH_MAX_FAILURES=0.01 allows"},
	} {
		t.Run("max="+tt.max, func(t *testing.T) {
			isolate(t)
			t.Setenv("BENCH_RUNTIMES", "sim")
			t.Setenv("BENCH_MAX_FAILURES", tt.max)
			var log bytes.Buffer
			s, err := Setup(context.Background(), &log, Options{})
			require.NoError(t, err)
			require.NoError(t, record(s, summary.Key{Runtime: "sim", Prompt: "short", Concurrency: 4}, rounds))
			require.NoError(t, record(s, summary.Key{Runtime: "sim", Prompt: "code", Concurrency: 4}, okRounds()))
			err = s.Finish()
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
			assert.Contains(t, log.String(), Prefix+"1 of 5 requests failed (1 reset): see the errors in "+s.files.json+"\n")
		})
	}
}
