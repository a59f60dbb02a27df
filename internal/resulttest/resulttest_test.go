package resulttest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Samples cover the window back to back, so Power's figures over it are
// the plain means and the sum of power × 200 ms, less the idle baseline.
func TestPowerOfSamples(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := Samples(t0, 10, 20, 30)
	assert.Equal(t, t0.Add(600*ms), s[2].At)
	f := Power(t, s, t0, t0.Add(600*ms), 4)
	assert.Equal(t, 3, f.Samples)
	assert.InDelta(t, 20, f.AllPowerWMean, 1e-9)
	assert.InDelta(t, 12, f.EnergyJ, 1e-9)
	assert.InDelta(t, 12-4*0.6, f.NetEnergyJ, 1e-9)
	assert.Equal(t, 52.0, *f.CPUTempCMax)
}

// Sent is Done with its start and prompt; Failed failed.
func TestRequests(t *testing.T) {
	start := time.Unix(2000, 0)
	r := Sent(start, 50*ms, time.Second, 12, 40)
	assert.Equal(t, start, r.Start)
	assert.Equal(t, 12, r.PromptTokens)
	assert.Equal(t, 50*ms, r.TTFC)
	assert.Equal(t, 40, r.Chunks)
	assert.NoError(t, r.Err)
	assert.Error(t, Failed().Err)
}
