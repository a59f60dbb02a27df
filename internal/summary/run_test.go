package summary

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRun(t *testing.T) {
	cest := time.FixedZone("CEST", 2*3600)
	r := NewRun(time.Date(2026, 8, 31, 13, 47, 27, 622260000, cest))
	assert.Equal(t, "20260831T114727Z", r.ID)
	assert.Equal(t, time.UTC, r.CreatedAt.Location())
	assert.Equal(t, 0, r.Len())
	assert.Empty(t, r.Rows())
}

func TestRowsPoolRepetitions(t *testing.T) {
	a := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	b := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 2}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, []stats.Round{{Wall: 2 * time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 2000*ms, 40)}}}, Telemetry{})
	r.Add(b, []stats.Round{{Wall: 3 * time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 3000*ms, 30), resulttest.Failed()}}}, Telemetry{})
	r.Add(a, []stats.Round{
		{Wall: 4 * time.Second, Results: []runtimes.Result{resulttest.Done(300*ms, 4000*ms, 40)}},
		{Wall: 1 * time.Second, Results: []runtimes.Result{resulttest.Done(200*ms, 1000*ms, 40)}},
	}, Telemetry{})

	require.Equal(t, 3, r.Len())

	rows := r.Rows()
	require.Len(t, rows, 2, "one row per key")
	assert.Equal(t, a.Concurrency, rows[0].Concurrency, "first-seen order")
	assert.Equal(t, b.Concurrency, rows[1].Concurrency)

	pooled := rows[0]
	assert.Equal(t, "ollama", pooled.Runtime)
	assert.Equal(t, "m", pooled.Model)
	assert.Equal(t, "short", pooled.Prompt)
	assert.Equal(t, 3, pooled.Requests)
	assert.Equal(t, 3, pooled.Successes)
	assert.Equal(t, 0, pooled.Failures)
	// TTFT over both repetitions: 0.1, 0.2, 0.3.
	assert.InDelta(t, 0.2, *pooled.TTFTMean, 1e-12)
	assert.InDelta(t, 0.2, *pooled.TTFTP50, 1e-12)
	assert.InDelta(t, 0.29, *pooled.TTFTP95, 1e-12)
	// Aggregate over the three rounds: 20, 10, 40 tok/s.
	assert.InDelta(t, 70.0/3, *pooled.AggregateTPSMean, 1e-12)
	assert.InDelta(t, 20, *pooled.AggregateTPSP50, 1e-12)
	assert.InDelta(t, 38, *pooled.AggregateTPSP95, 1e-12)
	assert.Nil(t, pooled.PromptTPSMean, "no prompt timing: null")
	assert.Nil(t, pooled.PromptTPSP50)
	assert.Nil(t, pooled.PromptTPSP95)

	withFailure := rows[1]
	assert.Equal(t, 2, withFailure.Requests)
	assert.Equal(t, 1, withFailure.Successes)
	assert.Equal(t, 1, withFailure.Failures)
	assert.InDelta(t, 3, *withFailure.TotalP95, 1e-12, "the failure's 99 s total is not a sample")
	assert.False(t, withFailure.OutputTokensApprox, "only a success's approximation counts")
}

func TestRowsWithoutSuccessesAreNull(t *testing.T) {
	r := NewRun(time.Unix(0, 0))
	r.Add(bench.Key{Runtime: "x", Concurrency: 2}, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Failed(), resulttest.Failed()}}}, Telemetry{})
	row := r.Rows()[0]
	assert.Equal(t, 2, row.Failures)
	for name, f := range map[string]*float64{
		"ttft": row.TTFTMean, "total": row.TotalP50, "prompt": row.PromptTPSP95, "decode": row.DecodeTPSMean,
		"request": row.RequestTPSP50, "aggregate": row.AggregateTPSP95,
	} {
		assert.Nil(t, f, name)
	}
}

func TestRowNonFiniteIsNull(t *testing.T) {
	row := newRow(bench.Key{}, stats.Metrics{Decode: stats.Stat{N: 1, Mean: math.Inf(1), P50: math.NaN(), P95: 3}}, nil)
	assert.Nil(t, row.DecodeTPSMean)
	assert.Nil(t, row.DecodeTPSP50)
	require.NotNil(t, row.DecodeTPSP95)
	assert.Equal(t, 3.0, *row.DecodeTPSP95)
}

func TestAddKeepsACopy(t *testing.T) {
	r := NewRun(time.Unix(0, 0))
	rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 10)}}}
	r.Add(bench.Key{Runtime: "x"}, rounds, Telemetry{})
	rounds[0].Wall = time.Hour
	rounds[0].Results[0].OutputTokens = 1e6
	assert.InDelta(t, 10, *r.Rows()[0].AggregateTPSMean, 1e-12)
}

func TestAddConcurrent(t *testing.T) {
	r := NewRun(time.Unix(0, 0))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			k := bench.Key{Runtime: "rt", Prompt: "p", Concurrency: 1 + i%4}
			r.Add(k, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 10)}}}, Telemetry{})
			_ = r.Rows() // readers may run alongside writers
		})
	}
	wg.Wait()
	assert.Equal(t, 64, r.Len())
	rows := r.Rows()
	require.Len(t, rows, 4)
	for _, row := range rows {
		assert.Equal(t, 16, row.Requests, "conc=%d", row.Concurrency)
	}
}

// Failures are counted by class, each with its first message, pooled over
// repetitions; a row without failures has an empty errors object.
func TestRowsCountErrorsByClass(t *testing.T) {
	k := bench.Key{Runtime: "vllm", Model: "m", Prompt: "short", Concurrency: 2}
	clean := bench.Key{Runtime: "vllm", Model: "m", Prompt: "short", Concurrency: 1}
	timeout := func(msg string) runtimes.Result {
		return runtimes.Result{Total: time.Second, Err: runtimes.NewError(runtimes.ClassTimeout, msg)}
	}
	r := NewRun(time.Unix(0, 0))
	r.Add(clean, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(ms, 100*ms, 10)}}}, Telemetry{})
	r.Add(k, []stats.Round{
		{Wall: time.Second, Results: []runtimes.Result{timeout("first timeout"), resulttest.Failed()}},
		{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(ms, 100*ms, 10), timeout("second timeout")}},
	}, Telemetry{})

	r.Add(k, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{
		{Total: ms, Err: runtimes.NewError(runtimes.ClassHTTP5xx, "HTTP 503 Service Unavailable: overloaded")},
		{Total: ms, Err: errors.New("not from package runtimes")},
	}}}, Telemetry{})

	rows := r.Rows()
	require.Len(t, rows, 2)
	assert.NotNil(t, rows[0].Errors, "written as {}, not null")
	assert.Empty(t, rows[0].Errors)
	row := rows[1]
	assert.Equal(t, 5, row.Failures)
	assert.Equal(t, map[runtimes.Class]stats.ErrorCount{
		runtimes.ClassTimeout: {Count: 2, First: "first timeout"},
		runtimes.ClassReset:   {Count: 1, First: resulttest.Failed().Err.Error()},
		runtimes.ClassHTTP5xx: {Count: 1, First: "HTTP 503 Service Unavailable: overloaded"},
		runtimes.ClassOther:   {Count: 1, First: "not from package runtimes"},
	}, row.Errors)
	total := 0
	for _, ec := range row.Errors {
		total += ec.Count
	}
	assert.Equal(t, row.Failures, total, "every failure is in exactly one class")
}

// A leaf run whose runtime did not answer has a row, with no figures and
// the reason under errors.unreachable; it is not in the benchstat file.
func TestUnreachableRow(t *testing.T) {
	k := bench.Key{Runtime: "vllm", Prompt: "short", Concurrency: 1}
	r := NewRun(time.Unix(0, 0))
	why := errors.New(`vllm (http://127.0.0.1:8000): GET /v1/models: dial tcp 127.0.0.1:8000: connect: connection refused`)
	const unreachable runtimes.Class = "unreachable" // the driver's class
	r.AddNotRun(k, unreachable, why)
	r.AddNotRun(k, unreachable, why) // -count=2
	rows := r.Rows()
	require.Len(t, rows, 1)
	row := rows[0]
	assert.Zero(t, row.Requests)
	assert.Nil(t, row.TTFTMean)
	assert.Nil(t, row.OutputTokensMin)
	assert.Equal(t, map[runtimes.Class]stats.ErrorCount{unreachable: {Count: 2, First: why.Error()}}, row.Errors)
	assert.Zero(t, r.Requests())
	txt, err := r.Benchfmt()
	require.NoError(t, err)
	assert.NotContains(t, string(txt), "Inference/", "no benchmark line for a leaf that sent nothing")
}

// A row keeps the canary of its first leaf run that has one.
func TestRowCanary(t *testing.T) {
	t.Parallel()
	r := NewRun(time.Now())
	k := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
	rd := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10}}}}
	r.Add(k, rd, Telemetry{}) // its canary failed
	r.Add(k, rd, Telemetry{Canary: canary.New("first", 1)})
	r.Add(k, rd, Telemetry{Canary: canary.New("second", 1)})
	other := k
	other.Concurrency = 4
	r.Add(other, rd, Telemetry{})
	rows := r.Rows()
	require.Len(t, rows, 2)
	require.NotNil(t, rows[0].Canary)
	assert.Equal(t, "first", rows[0].Canary.Text)
	assert.Nil(t, rows[1].Canary)
}
