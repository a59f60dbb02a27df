package summary

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func controlRun(ttftP50, decode float64) Metrics {
	return Metrics{Requests: 3, Successes: 3, TTFT: Stat{N: 3, P50: ttftP50}, Decode: Stat{N: 3, Mean: decode}}
}

func TestControl(t *testing.T) {
	k := Key{Runtime: "ollama", Prompt: "short", Concurrency: 1}
	runs := []Metrics{controlRun(0.100, 270), controlRun(0.102, 280), controlRun(0.099, 275)}

	// Within 10% and within the leaf's spread: no drift.
	c := NewControl(k, runs, controlRun(0.105, 262))
	assert.Equal(t, "runtime=ollama/prompt=short/conc=1", c.Leaf)
	assert.InDelta(t, 0.05, float64(c.TTFTChange), 1e-9)
	assert.InDelta(t, 262.0/270-1, float64(c.DecodeChange), 1e-9)
	assert.InDelta(t, ControlThreshold, float64(c.DecodeThreshold), 1e-9, "a spread of (280-270)/275 is below 10%")
	assert.False(t, c.Drifted)
	assert.Empty(t, c.Drift("ollama"))
	assert.Equal(t, 270.0, *c.First.DecodeTPSMean)
	assert.Equal(t, 262.0, *c.End.DecodeTPSMean)

	// Decode halved: the drift is said, with the figure that moved.
	c = NewControl(k, runs, controlRun(0.101, 135))
	assert.True(t, c.Drifted)
	assert.Equal(t, "ollama: the control leaf (runtime=ollama/prompt=short/conc=1) decoded 50% slower at the end of the run "+
		"than at its start: the server's state or the machine changed during the run; figures of later leaves do not compare with earlier ones",
		c.Drift("ollama"))

	// A leaf whose own runs spread by 40% is not called drifted for 30%.
	noisy := []Metrics{controlRun(0.100, 200), controlRun(0.100, 280), controlRun(0.100, 250)}
	c = NewControl(k, noisy, controlRun(0.100, 140))
	assert.InDelta(t, 80.0/250, float64(c.DecodeThreshold), 1e-9)
	assert.InDelta(t, -0.3, float64(c.DecodeChange), 1e-9)
	assert.False(t, c.Drifted)

	// TTFT alone can drift.
	c = NewControl(k, runs, controlRun(0.200, 270))
	assert.True(t, c.Drifted)
	assert.Contains(t, c.Drift("ollama"), "took 100% longer to the first token")

	// A short TTFT that moved by a millisecond is the machine's noise.
	short := []Metrics{controlRun(0.006, 270)}
	c = NewControl(k, short, controlRun(0.0052, 270))
	assert.InDelta(t, -0.1333, float64(c.TTFTChange), 1e-3)
	assert.False(t, c.Drifted)
	c = NewControl(k, short, controlRun(0.010, 270))
	assert.True(t, c.Drifted, "4 ms on 6 ms is not")

	// A control without successes has no change to compare.
	c = NewControl(k, runs, Metrics{Requests: 3, Failures: 3})
	assert.True(t, math.IsNaN(float64(c.DecodeChange)))
	assert.False(t, c.Drifted)
	assert.Nil(t, c.End.DecodeTPSMean)
}
