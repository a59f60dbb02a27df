//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// TestAPIs checks runs through the APIs other than the chat (BENCH_API),
// one summary each in E2E_API_SUMMARIES (a comma list), each leaf run
// E2E_API_ROUNDS times, -count=1: every request of every row succeeded,
// the figures are the API's (embeddings: requests and input tokens per
// second; the others: output tokens, TTFT and decode rate), and every
// leaf of the .txt is named by its API last.
func TestAPIs(t *testing.T) {
	var env envVars
	paths := env.names("E2E_API_SUMMARIES")
	rounds := env.integer("E2E_API_ROUNDS")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		f := readSummary(t, path)
		api := f.Arguments.API
		if api == "" {
			api = "chat"
		}
		t.Run(api, func(t *testing.T) {
			table, fails := checkAPIRun(f, apiWant{api: api, rounds: rounds, count: 1})
			txt, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			lines, bad := checkLeafNames(txt, api)
			t.Logf("BENCH_API=%s: %s", api, path)
			logChecks(t, append(table, lines...), append(fails, bad...))
			if !t.Failed() {
				t.Logf("api %s OK: %d rows, every request succeeded, %d leaves named …/api=%s", api, len(f.Summary), len(lines), api)
			}
		})
	}
}

// TestHTTPTrace checks a run with BENCH_HTTP_TRACE=on and BENCH_RAMP
// (E2E_HTTP_SUMMARY and its request records): every timed request
// stamped, connections reused and counted, the ramp's requests recorded
// and in no figure.
func TestHTTPTrace(t *testing.T) {
	var env envVars
	path := env.str("E2E_HTTP_SUMMARY")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	f := readSummary(t, path)
	if !f.Arguments.HTTPTrace {
		t.Errorf("arguments.http_trace is false: the run was not traced")
	}
	if !(float64(f.Arguments.Ramp) > 0) {
		t.Errorf("arguments.ramp_s is %v: the run had no ramp", f.Arguments.Ramp)
	}
	recs, err := records.Read(strings.TrimSuffix(path, ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	table, fails := checkHTTPTrace(f, recs)
	t.Logf("BENCH_HTTP_TRACE=on BENCH_RAMP=%vs: %s, %d records", f.Arguments.Ramp, path, len(recs))
	logChecks(t, table, fails)
	if !t.Failed() {
		t.Logf("http trace OK: every timed request stamped, reused connections counted, the ramp's requests in no figure")
	}
}

// TestSeries checks a run with BENCH_METRICS_INTERVAL (E2E_SERIES_SUMMARY)
// of the runtimes E2E_SERIES_RUNTIMES: its <run id>.metrics.jsonl has
// samples of each, running and waiting never below 0, the KV-cache use
// in every sample of those in E2E_SERIES_KV ("none": no runtime must
// report it, as llama-server's current builds export no KV-cache gauge);
// and cmd/report draws
// series-<runtime>.svg for each.
func TestSeries(t *testing.T) {
	var env envVars
	path := env.str("E2E_SERIES_SUMMARY")
	rts := env.names("E2E_SERIES_RUNTIMES")
	kv := env.names("E2E_SERIES_KV")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	w := seriesWant{runtimes: rts, kv: map[string]bool{}}
	for _, rt := range kv {
		if rt != "none" {
			w.kv[rt] = true
		}
	}
	seriesPath := strings.TrimSuffix(path, ".json") + telemetry.ExtSeries
	file, err := os.Open(seriesPath)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := telemetry.ReadSeries(file)
	file.Close()
	if err != nil {
		t.Fatal(err)
	}
	table, fails := checkSeries(samples, w)
	t.Logf("series %s: %d samples", seriesPath, len(samples))
	logChecks(t, table, fails)

	t.Run("report", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "run", "github.com/inferencebench/inferencebench/cmd/report", "-o", out, path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("go run ./cmd/report -o %s %s: %v\n%s", out, path, err, stderr.String())
		}
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(md, []byte("Server metrics over time")) {
			t.Errorf("report.md has no section \"Server metrics over time\"")
		}
		for _, rt := range rts {
			svg, err := os.ReadFile(filepath.Join(out, "series-"+rt+".svg"))
			if err != nil {
				t.Errorf("cmd/report wrote no series chart of %s: %v", rt, err)
				continue
			}
			if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("<path")) {
				t.Errorf("series-%s.svg (%d bytes) is no chart with a line", rt, len(svg))
				continue
			}
			t.Logf("cmd/report: series-%s.svg, %d bytes", rt, len(svg))
		}
		for _, line := range strings.Split(string(md), "\n") {
			if strings.Contains(line, "kv_cache_use") || strings.Contains(line, "KV-cache") {
				t.Logf("report.md: %s", line)
			}
		}
	})
}

// TestServerCounters checks a closed-loop run with BENCH_IGNORE_EOS=on
// (E2E_COUNTERS_SUMMARY) of E2E_COUNTERS_RUNTIME against the server's own
// /metrics, as the rows keep them: tokens generated, decode and prefill
// time per request; and the server's version (E2E_LLAMACPP_BUILD).
func TestServerCounters(t *testing.T) {
	var env envVars
	path := env.str("E2E_COUNTERS_SUMMARY")
	w := countersWant{runtime: env.str("E2E_COUNTERS_RUNTIME"), version: env.str("E2E_LLAMACPP_BUILD")}
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	table, fails := checkServerCounters(readSummary(t, path), w)
	t.Logf("server counters of %s (%s): %s", w.runtime, w.version, path)
	logChecks(t, table, fails)
	if !t.Failed() {
		t.Logf("server counters OK: tokens generated as received, decode time within %.2f–%.2f× the client's, prefill within TTFT",
			counterDecodeLow, counterDecodeHigh)
	}
}

// TestImages checks a run with BENCH_IMAGES (E2E_IMAGES_SUMMARY) against
// a vision model beside one of the same prompts and loads without images
// on the same server (E2E_IMAGES_BASE): E2E_IMAGES_N images of
// E2E_IMAGES_SIZE a request, each E2E_IMAGES_PATCHES prompt tokens (and
// imageSlack at most) more than the text.
func TestImages(t *testing.T) {
	var env envVars
	path, basePath := env.str("E2E_IMAGES_SUMMARY"), env.str("E2E_IMAGES_BASE")
	w := imagesWant{n: env.integer("E2E_IMAGES_N"), size: env.str("E2E_IMAGES_SIZE"), perImage: float64(env.integer("E2E_IMAGES_PATCHES"))}
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	table, fails := checkImages(readSummary(t, path), readSummary(t, basePath), w)
	t.Logf("BENCH_IMAGES=%d@%s: %s, without images: %s", w.n, w.size, path, basePath)
	logChecks(t, table, fails)
	if !t.Failed() {
		t.Logf("images OK: every request answered, %d image(s) of %s counted as %.0f+ prompt tokens each", w.n, w.size, w.perImage)
	}
}
