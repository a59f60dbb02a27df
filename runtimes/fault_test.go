package runtimes_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// faultCase is one way the simulator misbehaves and what the client must
// make of it.
type faultCase struct {
	fault         sim.Fault
	timeout, idle time.Duration // zero: 10 s, off
	class         runtimes.Class
	want          map[runtimes.Kind]string // part of the message, per protocol
	chunks        int                      // text chunks measured before the end
}

// The simulator sends 8 tokens; a stream fault comes after half of them.
const faultTokens, faultAfter = 8, 4

var faultCases = []faultCase{
	{fault: sim.FaultReset, class: runtimes.ClassReset, chunks: faultAfter,
		want: both("reading the stream: ")},
	{fault: sim.FaultTruncate, class: runtimes.ClassTruncated, chunks: faultAfter,
		want: map[runtimes.Kind]string{
			runtimes.KindOllama: "stream ended without final done line (4 text chunks received)",
			runtimes.KindOpenAI: "stream ended before data: [DONE] (4 text chunks received)"}},
	{fault: sim.FaultMalformed, class: runtimes.ClassMalformed, chunks: faultAfter,
		want: map[runtimes.Kind]string{runtimes.KindOllama: "bad line ", runtimes.KindOpenAI: "bad chunk "}},
	{fault: sim.FaultError, class: runtimes.ClassStreamError, chunks: faultAfter,
		want: both("error in stream: simulated fault")},
	{fault: sim.FaultObjectError, class: runtimes.ClassStreamError, chunks: faultAfter,
		want: both("error in stream: simulated fault")},
	{fault: sim.FaultStall, timeout: time.Second, class: runtimes.ClassTimeout, chunks: faultAfter,
		want: both("timed out after ")},
	{fault: sim.FaultStall, idle: 500 * time.Millisecond, class: runtimes.ClassIdleTimeout, chunks: faultAfter,
		want: both("no new line for 500ms reading the stream")},
	{fault: sim.FaultEmpty, class: runtimes.ClassNoOutput,
		want: both("stream completed without any generated text")},
	{fault: "http-503", class: runtimes.ClassHTTP5xx,
		want: both("HTTP 503 Service Unavailable: simulated fault: HTTP 503")},
	{fault: "http-404", class: runtimes.ClassHTTP4xx,
		want: both("HTTP 404 Not Found: simulated fault: HTTP 404")},
	// These two are fine: the request must succeed with every token.
	{fault: sim.FaultBigLine, chunks: faultTokens},
	{fault: sim.FaultKeepAlive, chunks: faultTokens},
}

func both(s string) map[runtimes.Kind]string {
	return map[runtimes.Kind]string{runtimes.KindOllama: s, runtimes.KindOpenAI: s}
}

var kinds = []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI}

// startFaulty starts a fast simulator with fault f on every request and
// returns it with a runtime of kind k and its client. At the end of the
// test every connection must be closed and no goroutine left.
func startFaulty(t *testing.T, f sim.Fault, every int, k runtimes.Kind, timeout, idle time.Duration) (*sim.Server, *runtimes.Runtime, *http.Client) {
	t.Helper()
	srv, err := sim.Start(sim.Config{TTFT: 5 * time.Millisecond, TokensPerSec: 2000, Fault: f, FaultEvery: every})
	require.NoError(t, err)
	client := &http.Client{Transport: runtimes.NewTransport(4)}
	t.Cleanup(func() {
		// The client gave up every connection it did not finish reading
		// (a dangling body would keep its connection open); the idle ones
		// close now.
		client.CloseIdleConnections()
		assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, 5*time.Millisecond,
			"connections left open: %d", srv.OpenConns())
		srv.Close()
		goleak.VerifyNone(t)
	})
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: k, URL: srv.URL, Model: sim.Model, Timeout: timeout, IdleTimeout: idle, Client: client})
	require.NoError(t, err)
	return srv, rt, client
}

// Every fault mode of the simulator, in both protocols: a failure with its
// class and a message that says what happened, what was measured before it
// kept; no panic, no goroutine or connection left behind.
func TestFaults(t *testing.T) {
	for _, fc := range faultCases {
		for _, k := range kinds {
			name := string(fc.fault) + "/" + string(k)
			if fc.idle > 0 {
				name = "idle-" + name
			}
			t.Run(name, func(t *testing.T) {
				_, rt, _ := startFaulty(t, fc.fault, 1, k, fc.timeout, fc.idle)
				res := rt.Do(context.Background(), runtimes.Request{Prompt: "hello there", MaxTokens: faultTokens})
				assert.Equal(t, fc.chunks, res.Chunks, "text chunks before the end")
				if fc.class == "" {
					require.NoError(t, res.Err)
					assert.Equal(t, faultTokens, res.OutputTokens)
					assert.False(t, res.TokensApprox)
					assert.Positive(t, res.TTFT)
					return
				}
				require.Error(t, res.Err)
				assert.Equal(t, fc.class, runtimes.ErrorClass(res.Err), "%v", res.Err)
				msg := res.Err.Error()
				assert.True(t, strings.HasPrefix(msg, "sim ("+rt.BaseURL+"): "), msg)
				assert.Contains(t, msg, fc.want[k])
				if fc.chunks > 0 {
					assert.Positive(t, res.TTFT, "the first token was timed before the failure")
				}
				assert.Positive(t, res.Total)
			})
		}
	}
}

// A server that is gone is a connect failure.
func TestFaultRefused(t *testing.T) {
	for _, k := range kinds {
		srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 1000})
		require.NoError(t, err)
		srv.Close()
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: k, URL: srv.URL, Model: sim.Model, Timeout: time.Second})
		require.NoError(t, err)
		res := rt.Do(context.Background(), runtimes.Request{Prompt: "hi", MaxTokens: 4})
		assert.Equal(t, runtimes.ClassConnect, runtimes.ErrorClass(res.Err), "%v", res.Err)
		assert.Contains(t, res.Err.Error(), "connection refused")
	}
	goleak.VerifyNone(t)
}

// One bad request does not spoil the others of its round: with every
// second request failing, half of a round of 4 fail and the rest complete.
func TestFaultsInARound(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			_, rt, _ := startFaulty(t, sim.FaultReset, 2, k, 0, 0)
			wall, results := rt.Round(context.Background(), runtimes.Copies(runtimes.Request{Prompt: "hi", MaxTokens: faultTokens}, 4))
			ok, reset := 0, 0
			for _, r := range results {
				switch runtimes.ErrorClass(r.Err) {
				case "":
					ok++
					assert.Equal(t, faultTokens, r.OutputTokens)
				case runtimes.ClassReset:
					reset++
				default:
					t.Errorf("unexpected failure: %v", r.Err)
				}
			}
			assert.Equal(t, 2, ok)
			assert.Equal(t, 2, reset)
			assert.Positive(t, wall)
		})
	}
}
