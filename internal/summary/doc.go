// Package summary aggregates request records into the suite's figures and
// writes the summary JSON and the benchstat file.
//
// A benchmark leaf (one runtime, prompt and concurrency) sends n requests at
// once per b.Loop iteration; each iteration is a [Round]. [Compute] turns the
// rounds of one leaf run into [Metrics], which [Metrics.Report] hands to
// testing.B.ReportMetric. A [Run] collects every leaf run of a whole `go test`
// invocation ([Run.Add], safe for concurrent use) and writes two files:
//
//	<dir>/<run id>.json  the summary JSON (below)
//	<dir>/<run id>.txt   what `go test -bench` would have printed
//
// The .txt file is benchstat input: `benchstat old.txt new.txt` compares two
// saved runs, `benchstat -col /runtime new.txt` compares runtimes within one.
// Its config lines are only goos, goarch, pkg and cpu, so two runs of the same
// setup land in the same tables. Each [Run.Add] is one result line named
// Inference/runtime=<runtime>/prompt=<prompt>/conc=<n>-<GOMAXPROCS>, with the
// number of rounds as the iteration count and these values:
//
//	ns/op          mean round wall time
//	ttft-ns        mean time to first token (benchstat shows it as ttft-sec)
//	decode-tok/s   mean decode rate
//	request-tok/s  mean output tokens / request total time
//	agg-tok/s      mean aggregate output rate per round
//	prompt-tok/s   mean prompt evaluation rate, only where the server reports it
//
// A value without samples (no successful request) is left out.
//
// # Figures
//
// Every figure covers successful requests only (runtimes.Result.OK); failed
// requests are counted and otherwise ignored. Per successful request:
//
//	ttft_s       Result.TTFT in seconds; a request that carried no text
//	             (TTFT zero) has none
//	total_s      Result.Total in seconds
//	decode_tps   OutputTokens / Eval when the server reported Eval (Ollama's
//	             eval_duration), else OutputTokens / (Total - TTFT); none if
//	             TTFT is zero or Total <= TTFT
//	request_tps  OutputTokens / Total
//	prompt_tps   PromptTokens / PromptEval when both are reported, else none
//
// Per round: aggregate_output_tps is the sum of the successful requests'
// OutputTokens over the round's wall time. A round without any successful
// request, or without a wall time, has none.
//
// Each figure is summarised by its mean and its 50th and 95th percentiles.
// Percentiles interpolate linearly between the closest ranks (numpy's
// default, R's type 7, Python's statistics.quantiles(method="inclusive")):
// with the n samples sorted as x[0..n-1] and h = (n-1)p,
//
//	q(p) = x[⌊h⌋] + (h - ⌊h⌋)(x[⌊h⌋+1] - x[⌊h⌋])
//
// One sample is its own percentile; no sample gives null.
//
// # The summary JSON
//
// The format is the seed harness's (testdata/seed-summary.json), with keys
// added and none renamed. It is indented by two spaces; keys appear in this
// order; times are RFC 3339 in UTC with microseconds, like
// "2026-08-31T11:47:27.622260+00:00"; a number that does not exist or is not
// finite is null.
//
//	run_id            the run's ID, its UTC start as 20060102T150405Z, with
//	                  -2, -3, … if a run of that ID already had files
//	created_at        when the run started
//	host              the machine that ran the client:
//	  platform          GOOS-kernel release-GOARCH, e.g. "linux-6.1.0-amd64",
//	                    "darwin-24.6.0-arm64"; GOOS-GOARCH if the release is unknown
//	  machine           GOARCH, e.g. "arm64"
//	  python            always null (the seed's harness was Python; the key stays
//	                    so readers of the seed format work)
//	  go                Go version, e.g. "go1.26.8"
//	  os, arch          GOOS and GOARCH
//	  cpu               CPU model name, "" if unknown
//	  cpus              logical CPUs
//	  memory_bytes      physical memory in bytes, 0 if unknown
//	arguments         the settings of the run:
//	  output_dir        where the files were written
//	  runtime           the runtimes asked for, as given
//	  ollama_url, ollama_model, vllm_url, vllm_model
//	                    the seed's per-runtime settings, null when not set
//	  warmups           warm-up rounds before measuring, per leaf
//	  rounds            measured rounds per leaf, null when -benchtime decided
//	  concurrency       the concurrency levels, requests in flight per round
//	  max_tokens        output token limit per request
//	  seed              sampling seed
//	  timeout           per-request timeout in seconds
//	  temperature       sampling temperature
//	  prompts           prompt names, in the order run
//	  count             go test -count, null if not given
//	  benchtime         go test -benchtime, "" if not given
//	  idle_timeout      BENCH_IDLE_TIMEOUT in seconds, 0 when off
//	runtimes          one object per runtime: name, kind ("ollama" or
//	                  "openai"), base_url, model
//	versions          runtime name -> version string, null if unknown
//	model_metadata    runtime name -> the server's model listing as it sent
//	                  it (null if none; text that is not JSON is kept as a string)
//	prompts           prompt name -> prompt text, in the order run
//	measurement_notes what each figure measures: ttft, total, decode_tps,
//	                  aggregate_output_tps, request_tps, prompt_tps,
//	                  percentiles, output_tokens
//	completed_at      when the run ended, or for a file written during the
//	                  run, when it was written (the time of writing if not set)
//	summary           one row per runtime, model, prompt and concurrency, in
//	                  the order first run; all -count repetitions pool into it:
//	  runtime, model, prompt, concurrency
//	  requests          requests sent
//	  successes         requests that completed
//	  failures          requests that failed
//	  errors            the failures by class (runtimes.Class: connect,
//	                    http_4xx, http_5xx, reset, truncated, malformed,
//	                    stream_error, no_output, timeout, idle_timeout,
//	                    cancelled, unreachable, unavailable, other), each
//	                    as {"count": n, "first": "the first one's message"};
//	                    {} without failures. unreachable and unavailable
//	                    count leaf runs that sent nothing because the
//	                    runtime did not answer at the start, or answered but
//	                    could not be benchmarked ([Run.AddNotRun]; requests
//	                    is 0)
//	  ttft_s_mean, ttft_s_p50, ttft_s_p95                 seconds
//	  total_s_mean, total_s_p50, total_s_p95              seconds
//	  prompt_tps_mean, prompt_tps_p50, prompt_tps_p95     tokens/s, null when
//	                                                      the server reports no
//	                                                      prompt timing
//	  decode_tps_mean, decode_tps_p50, decode_tps_p95     tokens/s
//	  request_tps_mean, request_tps_p50, request_tps_p95  tokens/s
//	  aggregate_output_tps_mean, aggregate_output_tps_p50, aggregate_output_tps_p95
//	                                                      tokens/s, over rounds
//	  output_tokens_approx  true when some successful request's output tokens
//	                        were counted by chunks because the server gave no
//	                        count (runtimes.Result.TokensApprox)
//	  output_tokens_min, output_tokens_max
//	                        the fewest and most output tokens of a successful
//	                        request; null without successes
//
//	complete          true once every benchmark has run; false in a file
//	                  written after each leaf while the run goes on, and so in
//	                  the file an interrupted run leaves
//
// Both files are written atomically: to a temporary file in the target
// folder, synced, then renamed over the target. The suite rewrites them
// after every finished leaf, so a reader never sees half a file.
package summary
