package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// Each figure the report shows reads the row's value under the key the
// list of figures gives it: a row with only that key set has the figure,
// and a row without it has not.
func TestFiguresReadTheirKeys(t *testing.T) {
	for _, f := range []figure{ttftMean, ttftP50, ttftP95, ttftP99, ttfcP50, ttfcP99, tpotMean, tpotP99, itlP50, itlP99, prefillTPS, decodeTPS, requestTPS, aggregateTPS, goodputRPS, sloMet, promptTokens, cachedTokens, cacheHit, cachedShare, energyPerToken, powerW, serverPrefill, serverDecode, clientDecode, serverGenerated, achievedRPS, sendLagP99, throughputRPS, netEnergyPerToken, netPowerW, coverage, requestEnergy, prefillRequestEnergy, decodeRequestEnergy, prefillTokenEnergy, decodeTokenEnergy} {
		if f.Key == "" {
			continue // computed from other figures
		}
		var r summary.Row
		require.NoError(t, json.Unmarshal([]byte(`{"`+f.Key+`": 0.25}`), &r), f.Key)
		got := f.of(r)
		require.NotNil(t, got, "%s does not read %s", f.Name, f.Key)
		assert.Equal(t, 0.25, *got, f.Name)
		assert.Nil(t, f.of(summary.Row{}), f.Name)
	}
}
