package main

import (
	"fmt"
	"os"
	"regexp"

	"golang.org/x/perf/benchfmt"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The leaf runs behind a row: the summary JSON pools a leaf's -count
// repetitions into one row, and the .txt beside it has a result line per
// repetition (leaf run). A change between two runs is tested on them, each
// leaf run one sample, as benchstat does (stats.CompareRuns).

// samples are a run's leaf runs' values: by the leaf's levels
// (bench.Key.Levels, which the .txt names its results by), by unit (the
// figure's Unit), one value per leaf run (times in seconds: benchfmt tidies ns).
type samples map[string]map[string][]float64

// benchFile is the .txt the suite writes beside a run's summary JSON
// (see besideSummary); "" if there is none.
func benchFile(r *run) string {
	return besideSummary(r, func(p summary.Paths) string { return p.Bench })
}

// readSamples reads the leaf runs of r from the .txt beside it: nil, and
// no error, without one. Result lines whose name is not a leaf's are
// skipped.
func readSamples(r *run) (samples, error) {
	path := benchFile(r)
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := samples{}
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		k, _, err := bench.ParseName(string(res.Name))
		if err != nil {
			continue
		}
		// A run is of one API, whose leaves' names end in it where it is
		// not the chat's (api=embeddings): the rows are found without it.
		k.API = ""
		levels := k.Levels()
		if out[levels] == nil {
			out[levels] = map[string][]float64{}
		}
		for _, v := range res.Values {
			// The reader tidies "ttft-ns" to "ttft-sec": the unit as
			// written is the figure's.
			unit := v.Unit
			if v.OrigUnit != "" {
				unit = v.OrigUnit
			}
			out[levels][unit] = append(out[levels][unit], v.Value)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// of returns the leaf runs' values of the figure f in the row of key k.
func (s samples) of(k key, f figure) []float64 {
	if s == nil || f.Unit == "" {
		return nil
	}
	prompt := k.Prompt
	if prompt == noPrompt {
		prompt = ""
	}
	return s[bench.Key{Runtime: k.Runtime, Prompt: prompt, Concurrency: k.Concurrency, Rate: k.Rate}.Levels()][f.Unit]
}

// runChange tests f's change in the row of key k from the base run to r,
// on their leaf runs. Where both runs have their .txt but the change
// cannot be tested, why says why, for the cell: "a percentile" (the .txt
// has the figure's mean alone), "not in the .txt" (a figure of no result
// line), "no leaf runs in the .txt" (the leaf is not on its result
// lines). Where either has none, ok is false and why "": report.md says
// so of the run once (markdown.go), not in every cell.
func runChange(base, r *run, k key, f figure) (c stats.RunChange, why string, ok bool) {
	switch {
	case base.Samples == nil || r.Samples == nil:
		return c, "", false
	case f.Unit == "" && percentile.MatchString(f.Key):
		return c, "a percentile", false
	case f.Unit == "":
		return c, "not in the .txt", false
	}
	if c, ok = stats.CompareRuns(base.Samples.of(k, f), r.Samples.of(k, f)); !ok {
		return c, "no leaf runs in the .txt", false
	}
	return c, "", true
}

// percentile matches the key of a percentile's figure (ttft_s_p99).
var percentile = regexp.MustCompile(`_p\d+$`)
