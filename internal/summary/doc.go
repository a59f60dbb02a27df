// Package summary owns the suite's figures and its file formats, in both
// directions.
//
// A leaf run's rounds ([Round]: requests sent at once, or an open loop's
// arrivals) become [Metrics] with [Compute]; [Report] hands them to
// testing.B.ReportMetric. A [Run] collects every leaf run of a go test
// invocation ([Run.Add], safe for concurrent use), pools the -count
// repetitions of each leaf into a [Row], and encodes
//
//	the summary JSON      Run.File().Encode; read back with Read / Decode
//	the benchstat file    Run.Benchfmt: what go test -bench would print
//
// Where these files go, and when, is the driver's business.
//
// Every figure, every key of the three files and their units are defined in
// docs/metrics.md, the one place that says so; the code here follows it.
package summary
