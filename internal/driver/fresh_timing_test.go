//go:build timing

package driver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With BENCH_FRESH=leaf, a conc=1 leaf run after a concurrent one decodes
// as fast as the first on the kinds of server whose decode rate the client
// times (the Ollama kind's is the server's own: fresh_test.go), each reset
// its own way; the control agrees with the first run. The client's rates
// are compared to 5%, which a loaded machine misses: they run apart.
func TestFreshLeavesDecodeAsFast(t *testing.T) {
	for _, tc := range freshKinds {
		t.Run(tc.name, func(t *testing.T) {
			rows, rt, log := degradingRun(t, "leaf", tc.env)
			first := *rows["runtime=sim/prompt=short/conc=1"].DecodeTPSMean
			later := *rows["runtime=sim/prompt=medium/conc=1"].DecodeTPSMean
			assert.InEpsilon(t, first, later, 0.05, "medium's conc=1 leaf ran after a conc=4 leaf")
			require.NotNil(t, rt.Control)
			assert.Less(t, absf(float64(rt.Control.DecodeChange)), 0.05)
			assert.False(t, rt.Control.Drifted)
			assert.NotContains(t, log, "the control leaf (")
		})
	}
}
