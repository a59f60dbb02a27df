package sim

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// SIM_JITTER spreads each reply's TTFT and decode rate by its own
// log-normal factor of that σ; without it every reply keeps the schedule.
func TestJitterSpreadsEachReply(t *testing.T) {
	for _, sigma := range []float64{0, 0.05} {
		cfg := DefaultConfig()
		cfg.Jitter = sigma
		s, err := Start(cfg)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		var ttft, rate []float64
		for range 400 {
			rep := s.newReply(time.Now(), "m", 16, false, 8, 0, 1)
			ttft = append(ttft, math.Log(float64(rep.pace.ttft)/float64(cfg.TTFT)))
			rate = append(rate, math.Log(rep.pace.rate/cfg.TokensPerSec))
		}
		for name, logs := range map[string][]float64{"TTFT": ttft, "decode rate": rate} {
			mean, sd := stat.MeanStdDev(logs, nil)
			assert.InDelta(t, 0, mean, 0.01+sigma/5, "%s, σ %v: centred on the schedule", name, sigma)
			assert.InDelta(t, sigma, sd, sigma/5+1e-12, "%s, σ %v: spread by σ", name, sigma)
		}
	}
	cfg := DefaultConfig()
	cfg.Jitter = 1.5
	assert.ErrorContains(t, cfg.Validate(), "SIM_JITTER=1.5: must be from 0 to 1")
}
