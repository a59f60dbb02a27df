// Package summary owns a run's summary and its files.
//
// A [Run] collects every leaf run of a go test invocation ([Run.Add], safe
// for concurrent use; the figures are internal/stats'), pools the -count
// repetitions of each leaf into a [Row], and encodes
//
//	the summary JSON      Run.File().Encode; read back with Read / Decode
//	the benchstat file    Run.Benchfmt: what go test -bench would print
//
// It also knows the facts every reader of those files shares: their names
// (PathsOf), the workload configuration keys and what a missing one means
// (Absent), whether two runs' settings
// compare (SettingsOf, Differences), the model a runtime served.
// Benchmark names are internal/bench's, request records internal/records'.
// The output folder and the cache modes are internal/config's (OutputDir,
// CacheCold, CacheWarm), the settings' one owner.
// Where these files go, and when, is the driver's business.
//
// Every figure, every key of the three files and their units are defined in
// docs/metrics.md, the one place that says so; the code here follows it.
package summary

// run.go is long because Row declares every key of the summary JSON's
// rows, each with its meaning and unit (about 200 lines), beside the Run
// that fills it.
