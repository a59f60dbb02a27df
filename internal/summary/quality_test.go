package summary

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/testkit"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The quality figures set for a runtime and prompt are in each of their
// rows (every load), under their keys, and on their result lines with
// Unit lines; a row without them has none of their keys, and a .txt of a
// run without them has no quality Unit line.
func TestQualityRows(t *testing.T) {
	r := NewRun(fixtureCreated)
	r.Cache = "cold"
	b1 := bench.Key{Runtime: "sim@b", Model: "m", Prompt: "short", Concurrency: 1}
	b4 := bench.Key{Runtime: "sim@b", Model: "m", Prompt: "short", Concurrency: 4}
	ref := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
	round := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 500*ms, 30)}}}
	for _, k := range []bench.Key{ref, b1, b4} {
		r.Add(k, round, Telemetry{})
	}
	plain, err := r.Benchfmt()
	require.NoError(t, err)
	for _, f := range []figures.Figure{figures.AgreeTop1, figures.AgreeKL, figures.ExactAccuracy} {
		assert.NotContains(t, string(plain), f.Unit, "a run without quality")
	}

	q := Quality{Reference: "sim", AgreeBy: "token", AgreeTop1Ratio: testkit.Ptr(0.9), AgreeKLMean: testkit.Ptr(0.02),
		AgreeCompared: testkit.Ptr(128), ExactAccuracy: testkit.Ptr(0.5), ExactRight: testkit.Ptr(30), ExactAsked: testkit.Ptr(60)}
	r.SetQuality("sim@b", "short", q)
	r.QualityRun = &QualityRun{Measured: "agree,exact", Reference: "sim", Requests: 3, Seconds: 1.5}
	rows := r.Rows()
	require.Len(t, rows, 3)
	assert.Nil(t, rows[0].AgreeTop1Ratio, "the reference's row has no figures set")
	for _, row := range rows[1:] {
		assert.Equal(t, 0.9, *row.Value(figures.AgreeTop1), row.Concurrency)
		assert.Equal(t, 0.5, *row.Value(figures.ExactAccuracy), row.Concurrency)
	}

	data, err := r.File().Encode()
	require.NoError(t, err)
	var raw struct {
		Summary []map[string]any `json:"summary"`
		Quality map[string]any   `json:"quality"`
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.NotContains(t, raw.Summary[0], "agree_top1_ratio")
	assert.Equal(t, 0.9, raw.Summary[1]["agree_top1_ratio"])
	assert.Equal(t, "sim", raw.Summary[1]["quality_reference"])
	assert.Equal(t, 30.0, raw.Summary[2]["exact_right"])
	assert.Equal(t, "agree,exact", raw.Quality["measured"])
	back, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, q, back.Summary[1].Quality, "read back")

	txt, err := r.Benchfmt()
	require.NoError(t, err)
	units := map[string]string{}
	values := map[string][]float64{}
	rd := benchfmt.NewReader(bytes.NewReader(txt), "x.txt")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.UnitMetadata:
			units[rec.OrigUnit] = rec.Value
		case *benchfmt.Result:
			for _, v := range rec.Values {
				values[v.Unit] = append(values[v.Unit], v.Value)
			}
		}
	}
	assert.Equal(t, "higher", units[figures.AgreeTop1.Unit])
	assert.Equal(t, "lower", units[figures.AgreeKL.Unit])
	assert.Equal(t, "higher", units[figures.ExactAccuracy.Unit])
	assert.Equal(t, []float64{0.9, 0.9}, values[figures.AgreeTop1.Unit], "on both loads of sim@b, not on sim's")
	assert.Equal(t, []float64{0.02, 0.02}, values[figures.AgreeKL.Unit])
}
