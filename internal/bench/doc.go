// Package bench owns the suite's benchmark names: how a leaf's name,
// BenchmarkInference/runtime=<runtime>/prompt=<prompt>/conc=<n> (or
// …/rate=<r> for an open loop), is built from its [Key], how each level is
// made safe for go test and benchstat, and how a name is read
// back ([ParseName]). Everything that names a leaf, in go test's output,
// the .txt, the logs and the tools, goes through here.
//
// It also writes the .txt, the run's results as go test -bench would
// print them for benchstat ([Encode]).
package bench
