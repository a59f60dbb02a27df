package summary

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A row's J/tok and net-J/tok are its result lines' (stats.Report), one
// formula: for a leaf run alone the row has a figure exactly where the
// line has it, of the same value; for leaf runs pooled over -count, the
// energy of those whose lines have it over their tokens.
func TestRowEnergyPerTokenIsTheResultLines(t *testing.T) {
	type leaf struct {
		cover  time.Duration // of the 1 s timed part
		idle   bool
		tokens int
	}
	for _, tc := range []struct {
		name   string
		leaves []leaf
	}{
		{"covered, idle baseline", []leaf{{time.Second, true, 100}}},
		{"covered, no idle baseline", []leaf{{time.Second, false, 100}}},
		{"covered too little", []leaf{{1400 * ms, true, 100}}},
		{"no output token", []leaf{{time.Second, true, 0}}},
		{"pooled, one covered too little", []leaf{{time.Second, true, 100}, {1400 * ms, true, 50}, {time.Second, true, 300}}},
		{"pooled, one without idle", []leaf{{time.Second, true, 100}, {time.Second, false, 40}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRun(time.Now())
			k := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
			var j, netJ float64
			var tokens, netTokens int
			for i, l := range tc.leaves {
				t0 := time.Now().Add(time.Duration(i) * time.Hour)
				power := resulttest.Power(t, resulttest.Samples(t0, 14, 14, 14, 14, 14), t0, t0.Add(l.cover), 4)
				if !l.idle {
					power.IdlePowerW = nil
				}
				rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Sent(t0, 200*ms, time.Second, 50, l.tokens)}}}
				m := r.Add(k, rounds, Telemetry{Power: power})
				line := reported{}
				stats.Report(line, m, power)
				if v, ok := line[figures.Energy.Unit]; ok {
					j += v * float64(m.OutputTokens)
					tokens += m.OutputTokens
				}
				if v, ok := line[figures.NetEnergy.Unit]; ok {
					netJ += v * float64(m.OutputTokens)
					netTokens += m.OutputTokens
				}
			}
			row := r.Rows()[0]
			check := func(got *float64, j float64, tokens int, what string) {
				if tokens == 0 {
					assert.Nil(t, got, "%s: no result line has it, nor the row", what)
					return
				}
				require.NotNil(t, got, "%s: the result lines have it, and so the row", what)
				assert.InDelta(t, j/float64(tokens), *got, 1e-12, what)
			}
			check(row.EnergyJPerOutputToken, j, tokens, "J/tok")
			check(row.NetEnergyJPerOutputToken, netJ, netTokens, "net-J/tok")
		})
	}
}
