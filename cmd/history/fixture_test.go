package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// Runs built in code: a summary.File with the rows a test wants, encoded
// as the suite writes it (File.Encode), one file a run.

// nightly is the start of the n-th night's run (from 0).
func nightly(n int) time.Time {
	return time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC).Add(time.Duration(n) * 24 * time.Hour)
}

// testNow is "now" for the command in tests: after every fixture run.
var testNow = time.Date(2027, 12, 31, 0, 0, 0, 0, time.UTC)

// newFile is a run's summary without rows: started at created, on the
// host labelled host, cold prompts, single requests, with the runtimes'
// versions (name, version, name, version, …; "" for unknown).
func newFile(created time.Time, host string, versions ...string) summary.File {
	f := summary.File{
		RunID:       created.UTC().Format(summary.RunIDFormat),
		CreatedAt:   created.UTC().Format(summary.TimeFormat),
		CompletedAt: created.Add(20 * time.Minute).UTC().Format(summary.TimeFormat),
		Host:        summary.Host{Platform: "darwin-24.6.0-arm64", Machine: "arm64", OS: "darwin", Arch: "arm64", CPU: "Apple M4 Max", CPUs: 12, Label: host},
		Arguments:   summary.Arguments{OutputDir: "results", Cache: config.CacheCold, Turns: 1, Concurrency: []int{1, 4}, MaxTokens: 128},
		Versions:    map[string]*string{},
		Complete:    testkit.Ptr(true),
		Summary:     []summary.Row{},
	}
	for i := 0; i+1 < len(versions); i += 2 {
		if versions[i+1] != "" {
			f.Versions[versions[i]] = testkit.Ptr(versions[i+1])
		} else {
			f.Versions[versions[i]] = nil
		}
	}
	return f
}

// figs are a row's figures; 0 leaves one out (null).
type figs struct {
	ttftP50, ttftP95, decode, aggregate, jPerToken float64
}

// row is a closed-loop row (rate 0) or an open-loop one.
func row(runtime, model, prompt string, conc int, rate float64, v figs, reply string) summary.Row {
	r := summary.Row{Runtime: runtime, Model: model, Prompt: prompt, Concurrency: conc, Requests: 24, Successes: 24}
	if rate > 0 {
		r.Concurrency, r.RateRPS = 0, testkit.Ptr(rate)
	}
	set := func(x float64) *float64 {
		if x == 0 {
			return nil
		}
		return testkit.Ptr(x)
	}
	// The decode rate's mean and median alike (the history judges the
	// median), as a file with burst_replies writes them: every runtime's
	// on the client's clock.
	r.TTFTP50, r.TTFTP95, r.DecodeTPSMean, r.DecodeTPSP50, r.AggregateTPSMean, r.EnergyJPerOutputToken =
		set(v.ttftP50), set(v.ttftP95), set(v.decode), set(v.decode), set(v.aggregate), set(v.jPerToken)
	r.BurstReplies = testkit.Ptr(0)
	if reply != "" {
		sum := sha256.Sum256([]byte(reply))
		r.Canary = &canary.Reply{TextSHA256: hex.EncodeToString(sum[:]), OutputTokens: 16, Text: reply}
	}
	return r
}

// writeFile writes f to dir/<run id>.json and returns its path.
func writeFile(t testing.TB, dir string, f summary.File) string {
	t.Helper()
	data, err := f.Encode()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, f.RunID+summary.ExtJSON)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// noise is the run-to-run spread of the fixture's nights, a factor a
// night: about 1%, the same pattern for every figure so that the golden
// file is plain to read.
var noise = []float64{1.000, 1.010, 0.990, 1.005, 0.995, 1.012, 0.988}

const (
	foxText    = "The quick brown fox jumps over the lazy dog, and the dog does not mind at all."
	foxChanged = "The quick brown fox leaps over the lazy dog, and the dog does not mind at all."
)

// fixtureRuns writes eight nights of one Mac (labelled mac-studio) into
// dir, one folder a night as nightly artifacts are downloaded, and returns
// the folder:
//
//   - ollama 0.6.5 (0.7.0 on the last night), qwen3:8b, prompt short:
//     at concurrency 1, TTFT 20% slower on the last night, and the canary
//     reply changed at character 21; at concurrency 4, every request
//     failed on the last night (no figures);
//   - vllm 0.9.0, qwen3-8b, prompt short, concurrency 1: decode 15%
//     faster and J/tok 13% lower on the last night (improvements), its
//     canary the same every night; an open loop at 2 requests/s run only
//     on the last three nights (too little data).
func fixtureRuns(t testing.TB, dir string) string {
	t.Helper()
	for n := range 8 {
		k, ttft, decode, energy, ollama, canary := 1.0, 1.0, 1.0, 1.0, "0.6.5", foxText
		if n < len(noise) {
			k = noise[n]
		} else {
			ttft, decode, energy, ollama, canary = 1.2, 1.15, 0.87, "0.7.0", foxChanged
		}
		f := newFile(nightly(n), "mac-studio", "ollama", ollama, "vllm", "0.9.0")
		f.Summary = append(f.Summary,
			row("ollama", "qwen3:8b", "short", 1, 0, figs{0.050 * k * ttft, 0.080 * k * ttft, 40 * k, 38 * k, 0}, canary),
			row("ollama", "qwen3:8b", "short", 4, 0, figs{0.120 * k, 0.190 * k, 36 * k, 130 * k, 0}, foxText),
			row("vllm", "qwen3-8b", "short", 1, 0, figs{0.030 * k, 0.045 * k, 55 * k * decode, 52 * k * decode, 0.12 * k * energy}, foxText),
		)
		if n == 7 {
			f.Summary[1] = row("ollama", "qwen3:8b", "short", 4, 0, figs{}, "")
			f.Summary[1].Successes, f.Summary[1].Failures = 0, 24
		}
		if n >= 5 {
			f.Summary = append(f.Summary, row("vllm", "qwen3-8b", "short", 0, 2, figs{0.040 * k, 0.070 * k, 50 * k, 95 * k, 0}, ""))
		}
		writeFile(t, filepath.Join(dir, "nightly-"+f.RunID), f)
	}
	return dir
}
