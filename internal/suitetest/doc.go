// Package suitetest holds the tests of the repository as a whole, kept out
// of the root package so that the root's go test -bench runs only its
// benchmark (BenchmarkInference and its TestMain), never a test -count
// times after the servers were probed.
//
// Its tests read the repository from its root (../..):
//   - docs/architecture.md against the code: every package in its table,
//     every import drawn (tests' own in a list of their own), its "never"
//     rules kept (architecture_test.go);
//   - what the docs quote: the log line of inference_test.go, the
//     simulator's version, -count values benchstat can use (docs_test.go),
//     and the docs' commands with simulators, run as written
//     (docs_sim_test.go);
//   - the suite as a user runs it: a misspelt setting stops it with exit
//     status 2 (names_test.go), an interrupted run keeps its finished
//     benchmarks (interrupt_test.go);
//   - the root package holds the benchmark alone (root_test.go);
//   - the code stays readable in pieces: at most 3 functions that are not
//     tests over 80 lines, and no such file over 600 lines without a
//     comment line saying why ("This file is long because …", or in
//     another file of its package "name.go is long because …")
//     (length_test.go).
//
// The tests that run the suite build the root package's test binary once
// (go test -c, from Go's build cache after the first time) and run its
// benchmarks in child processes.
//
// It has no code but this comment: go test ./internal/suitetest/ runs it.
package suitetest
