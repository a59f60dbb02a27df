package main

import (
	"fmt"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// controlUnjudged reports whether runtime's control leaf in f went
// unjudged (its verdict "too few requests": too few requests on a side
// for its test), and why: the run's own reason (its summary's
// unjudged_reason), or, in a file written before it said one, the
// requests of each side and how many the test needs. Not ok for a
// runtime without a control (BENCH_CONTROL=off), one judged, and a file
// written before controls had a verdict.
func controlUnjudged(f *summary.File, runtime string) (reason string, ok bool) {
	if f == nil {
		return "", false
	}
	for _, rt := range f.Runtimes {
		if rt.Name == runtime && rt.Control != nil {
			reason = rt.Control.WhyUnjudged()
			return reason, reason != ""
		}
	}
	return "", false
}

// unjudged returns, for each runtime of the run whose control went
// unjudged (of runtime only alone, if only is not empty), the note that
// says so: a drift during the run would not show in its figures.
func unjudged(b beside, only string) []string {
	if b.file == nil {
		return nil
	}
	var out []string
	for _, rt := range b.file.Runtimes {
		if only != "" && rt.Name != only {
			continue
		}
		if why, ok := controlUnjudged(b.file, rt.Name); ok {
			out = append(out, fmt.Sprintf("%s's control was not judged: %s: a drift during this run would not show", rt.Name, why))
		}
	}
	return out
}
