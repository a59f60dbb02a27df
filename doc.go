// Package inference benchmarks LLM inference servers with go test.
//
// Run it from the repository root:
//
//	go test -bench=. -count=6
//
// (-count=6: benchstat needs six samples for a confidence interval.)
//
// Each leaf benchmark is BenchmarkInference/runtime=<name>/prompt=<prompt>/
// conc=<n> (rounds of n requests at once) or …/rate=<r> (an open loop of r
// requests per second). Settings are environment variables, read by package
// internal/config; package internal/driver runs the benchmark and writes
// $BENCH_OUTPUT_DIR/<run id>.json, .txt and .requests.jsonl.
//
// README.md is the manual; docs/metrics.md defines every figure, and
// docs/architecture.md shows how the packages fit.
package inference
