package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// nameVersionRun runs the suite's setup against a simulator playing LM
// Studio, which states no version, with LMSTUDIO_VERSION=version, records
// one leaf and returns the path of the run's .txt.
func nameVersionRun(t *testing.T, srv *sim.Server, version string) string {
	t.Helper()
	return suiteRun(t, srv, map[string]string{"LMSTUDIO_VERSION": version}, driver.Options{})
}

// A version that only NAME_VERSION gives (LM Studio states none) reaches
// compare's output, from the summary the run wrote beside its .txt.
func TestNameVersionInCompare(t *testing.T) {
	cfg, err := suiteconfig.LoadSimFrom(map[string]string{"SIM_FLAVOR": "lmstudio", "SIM_TTFT": "1ms"})
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	old := nameVersionRun(t, srv, "0.3.30")
	new := nameVersionRun(t, srv, "0.3.31")
	r := runCompare(t, opts{fake: "args"}, old, new)
	// benchstat ran; one sample of the leaf on each side is no verdict.
	require.Equal(t, exitNoVerdict, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, "\nverdict: no verdict: n=1, need 6 ")
	out := r.stdout + r.stderr
	assert.Contains(t, out, "0.3.30", "OLD's LMSTUDIO_VERSION")
	assert.Contains(t, out, "0.3.31", "NEW's LMSTUDIO_VERSION")
	assert.Contains(t, out, "lmstudio 0.3.30 → 0.3.31")
}
