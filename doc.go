// Package inference benchmarks LLM inference servers with go test.
//
// Run it from the repository root:
//
//	go test -bench=. -count=5
//
// Each leaf benchmark is BenchmarkInference/runtime=<name>/prompt=<prompt>/conc=<n>.
// One iteration is one round: n identical streaming requests sent at once,
// finished when all have finished. BENCH_WARMUPS rounds run first and count
// nowhere; -benchtime=5x gives exactly five timed rounds.
//
// After the loop each leaf reports, besides ns/op (the mean round time):
//
//	ttft-ns        mean time to first token: request start to the first
//	               chunk with non-empty generated text (reasoning counts;
//	               role-only chunks, empty deltas and keep-alives do not)
//	decode-tok/s   mean decode rate: Ollama's eval_count/eval_duration,
//	               otherwise output tokens / (total − TTFT)
//	request-tok/s  mean output tokens / total request time
//	agg-tok/s      mean over rounds of the round's successful output
//	               tokens / the round's wall time
//	prompt-tok/s   mean prompt tokens / prompt evaluation time, where the
//	               server reports it (Ollama, llama.cpp)
//
// After each benchmark the suite rewrites $BENCH_OUTPUT_DIR/<run_id>.json
// (the summary; see package internal/summary for every key) and
// $BENCH_OUTPUT_DIR/<run_id>.txt (the same results as go test prints them,
// for go tool benchstat), so Ctrl-C keeps every finished benchmark; the
// last write marks the summary "complete". The README lists every setting;
// they are environment variables, read by package internal/config; package internal/driver runs the benchmark.
//
// A failed request is counted, under its class (runtimes.Class), and left
// out of the figures; a benchmark whose every request failed fails, and the
// run goes on. A runtime named in BENCH_RUNTIMES that does not answer fails
// its benchmarks, or skips them with BENCH_SKIP_UNREACHABLE=1.
package inference
