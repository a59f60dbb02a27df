// Package resulttest makes the requests and power samples that the tests
// of internal/stats and internal/summary compute their figures from: a
// request done or failed (runtimes.Result), one sent at a given time, and
// macmon samples with their figures over a window. It is imported by
// tests only.
package resulttest

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

const ms = time.Millisecond

// Done is a successful request: first text at ttft, done at total, with
// tokens output tokens and no server timings.
func Done(ttft, total time.Duration, tokens int) runtimes.Result {
	return runtimes.Result{TTFT: ttft, TTFC: ttft, Total: total, OutputTokens: tokens, Chunks: tokens}
}

// Failed is a failed request that had measured something before failing,
// so a figure that counted it would show.
func Failed() runtimes.Result {
	return runtimes.Result{
		TTFT: 9 * time.Second, Total: 99 * time.Second, OutputTokens: 9999,
		PromptTokens: 10, PromptEval: ms, Eval: ms, TokensApprox: true,
		Err: runtimes.NewError(runtimes.ClassReset, "vllm-metal (http://127.0.0.1:8001): reading the stream: read tcp 127.0.0.1:50712->127.0.0.1:8001: read: connection reset by peer"),
	}
}

// Sent is a successful request sent at start, its first token at ttft,
// done at total.
func Sent(start time.Time, ttft, total time.Duration, prompt, output int) runtimes.Result {
	r := Done(ttft, total, output)
	r.Start, r.PromptTokens = start, prompt
	return r
}

// SampleEvery is the interval between the samples of Samples, macmon's
// default.
const SampleEvery = 200 * ms

// Samples returns one sample per power, SampleEvery apart, the k-th (from
// 0) read at t0 + (k+1)·200ms, covering (t0 + k·200ms, t0 + (k+1)·200ms],
// with a CPU that warms a degree a sample from 50 °C and a GPU at 40 °C.
func Samples(t0 time.Time, watts ...float64) []telemetry.Sample {
	out := make([]telemetry.Sample, len(watts))
	for k, w := range watts {
		out[k] = telemetry.Sample{At: t0.Add(time.Duration(k+1) * SampleEvery), AllPowerW: w, CPUTempC: 50 + float64(k), GPUTempC: 40}
	}
	return out
}

// TestingT is what Power needs of a *testing.T.
type TestingT interface {
	require.TestingT
	Helper()
}

// Power is the figures of samples over [from, to] with the idle baseline
// idle.
func Power(t TestingT, samples []telemetry.Sample, from, to time.Time, idle float64) *telemetry.Figures {
	t.Helper()
	f, err := telemetry.WindowFigures(samples, SampleEvery, from, to)
	require.NoError(t, err)
	f.SetIdle(idle)
	return &f
}
