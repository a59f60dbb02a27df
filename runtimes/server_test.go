package runtimes

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Each known server's descriptor and the simulator flavor of the same
// name agree: the flavor answers the descriptor's own endpoint in its
// shape, states its version where the descriptor says it does (and none
// where it says none), and offers the descriptor's way to a fresh state.
// A server added as a descriptor with a flavor is checked by this test
// alone.
func TestDescriptorsAgreeWithTheirFlavors(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, s := range KnownServers {
		if !slices.Contains(sim.Flavors, sim.Flavor(s.Name)) {
			continue // vLLM's flavor is vllm; SGLang has none
		}
		checked++
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			srv, err := sim.Start(sim.Config{Flavor: sim.Flavor(s.Name), Version: "9.8.7", TTFT: time.Millisecond, TokensPerSec: 1000})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := New(Config{Name: s.Name, Kind: s.Kind, URL: srv.URL})
			require.NoError(t, err)
			ctx := context.Background()
			if s.Endpoint != "" {
				assert.True(t, rt.Probe(ctx).Is(s.Name), "%s is named by its %s", s.Name, s.Proof())
			}
			info, err := rt.Describe(ctx)
			require.NoError(t, err)
			if s.Version.Path == "" {
				assert.Nil(t, info.Version, "%s states no version at an endpoint", s.Name)
			} else if assert.NotNil(t, info.Version, "%s's version at %s", s.Name, s.Version.Path) {
				assert.Equal(t, "9.8.7", *info.Version)
			}
			assert.Equal(t, s.Fresh, rt.FreshWay(ctx))
			res := rt.Do(ctx, Request{Prompt: "hi", MaxTokens: 4})
			require.NoError(t, res.Err)
			assert.Equal(t, 4, res.OutputTokens)
		})
	}
	assert.GreaterOrEqual(t, checked, 6, "vllm, llamacpp, lmstudio, mlx, ollama, tgi")
}
