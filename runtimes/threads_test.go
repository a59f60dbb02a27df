package runtimes_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// startFewThreads is a llama-server of 4 HTTP threads (the simulator
// with SIM_HTTP_THREADS=4), found as the suite finds it on its port
// (Discover), then described (Describe) through the one client the run
// shares; it returns what Describe said and how long it took.
func startFewThreads(t *testing.T) (runtimes.Info, time.Duration) {
	t.Helper()
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorLlamaCpp, Version: sim.LlamaCachedByPromptN, HTTPThreads: 4, TTFT: time.Millisecond, TokensPerSec: 5000})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	tr := runtimes.NewTransport(4)
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	t0 := time.Now()
	found := runtimes.Discover(t.Context(), client, []runtimes.Candidate{
		{Name: runtimes.ServerLlamaCpp, Kind: runtimes.KindOpenAI, URL: srv.URL},
		{Name: runtimes.ServerMLX, Kind: runtimes.KindOpenAI, URL: srv.URL},
	}, runtimes.ProbeTimeout)
	require.Len(t, found, 1)
	assert.Equal(t, runtimes.ServerLlamaCpp, found[0].Name, "its /props names it: %s", found[0].Why)
	rt, err := runtimes.New(runtimes.Config{Name: found[0].Name, Kind: runtimes.KindOpenAI, URL: found[0].URL, Client: client})
	require.NoError(t, err)
	info, err := rt.Describe(t.Context())
	require.NoError(t, err)
	return info, time.Since(t0)
}

// Against a server of few HTTP threads every fact of the start is read:
// its version, its /props, no endpoint left unread.
func TestStartFewHTTPThreads(t *testing.T) {
	info, took := startFewThreads(t)
	t.Logf("found and described in %v", took)
	require.NotNil(t, info.Version)
	assert.Equal(t, sim.LlamaCachedByPromptN, *info.Version)
	var models map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(info.Models, &models))
	assert.Contains(t, models, "props", "/props read")
	assert.Empty(t, info.Unread, "no fact lost")
	assert.Less(t, took, 2500*time.Millisecond, "no GET waited out its 3-s timeout")
}
