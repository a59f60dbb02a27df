package bench

import (
	"bytes"

	"golang.org/x/perf/benchfmt"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// Result is one result line of the .txt: a leaf run of k while procs
// were in use (GOMAXPROCS), of iters iterations, with its values (ns/op
// first, then the reported figures as go test sorts them, by unit).
type Result struct {
	Key    Key
	Procs  int
	Iters  int
	Values []benchfmt.Value
}

// Encode writes the .txt, what `go test -bench` would have printed, in
// the Go benchmark format that benchstat reads: a Unit line for every
// figure of the result lines saying which way is better
// (figures.Reported; a figure of tool calls, of embeddings, of quality or of memory only where
// some result has its unit, none for a figure that is neither), then config's lines and the results. docs/metrics.md lists
// its names, units and configuration lines.
func Encode(config []benchfmt.Config, results []Result) ([]byte, error) {
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, f := range figures.Reported {
		if (f.Tools || f.Embeddings || f.Quality || f.Memory) && !hasUnit(results, f.Unit) || f.Better == figures.Neither {
			continue
		}
		md := &benchfmt.UnitMetadata{
			UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: f.Unit, Key: "better"},
			OrigUnit:        f.Unit,
			Value:           f.Better.String(),
		}
		if err := w.Write(md); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('\n')
	for _, r := range results {
		res := &benchfmt.Result{
			Config: config,
			Name:   benchfmt.Name(r.Key.nameProcs(r.Procs)),
			Iters:  r.Iters,
			Values: r.Values,
		}
		if err := w.Write(res); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// hasUnit reports whether some result has a value in unit.
func hasUnit(results []Result, unit string) bool {
	for _, r := range results {
		for _, v := range r.Values {
			if v.Unit == unit {
				return true
			}
		}
	}
	return false
}
