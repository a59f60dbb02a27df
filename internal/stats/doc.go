// Package stats computes every figure of the suite from requests, in one
// place.
//
// A leaf run's rounds ([Round]: requests sent at once, or an open loop's
// arrivals) become [Metrics] with [Compute], goodput against an [SLO]
// included; [Report] hands them to testing.B.ReportMetric. A runtime's
// control leaf is judged by a Mann–Whitney test against its first run
// ([NewControl]); a night's figure against its window of earlier ones
// ([DetectTrend]); a leaf run's energy is shared among its requests
// ([ShareEnergy]).
//
// docs/metrics.md defines every figure; the code here follows it.
package stats
