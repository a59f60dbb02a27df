package summary

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// A control as the files have it (cmd/compare's fixtures, written by
// stats.Control's own tags before the shape moved here) reads into
// stats' values and writes back byte for byte.
func TestControlJSONShape(t *testing.T) {
	const written = `{"leaf":"runtime=ollama/prompt=short/conc=1",` +
		`"first":{"requests":3,"successes":3,"ttft_s_p50":0.05045064,"decode_tps_mean":400},` +
		`"end":{"requests":12,"successes":12,"ttft_s_p50":0.050515386,"decode_tps_mean":200},` +
		`"ttft_change":0.0012833533925438179,"decode_change":-0.5,"ttft_threshold":0.1,"decode_threshold":0.1,` +
		`"drifted":true,"verdict":"drifted","requests_first":3,"requests_end":12,` +
		`"ttft_p_value":1,"decode_p_value":0,"alpha":0.01}`
	var c Control
	require.NoError(t, json.Unmarshal([]byte(written), &c))
	assert.Equal(t, -0.5, c.DecodeChange)
	assert.Equal(t, 200.0, *c.End.DecodeTPSMean)
	assert.Equal(t, 12, c.RequestsEnd)
	assert.Equal(t, stats.ControlDrifted, c.Verdict)
	assert.NotEmpty(t, c.Drift("ollama"), "stats' judgement reads the values back")
	back, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Equal(t, written, string(back))
}

// A control that got no verdict says why, under a key of its own beside
// the verdict; read back, stats says the same reason.
func TestControlUnjudgedReason(t *testing.T) {
	c := Control{stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", Verdict: stats.ControlTooFew, RequestsFirst: 3, RequestsEnd: 3,
		Unjudged: "ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)"}}
	b, err := json.Marshal(&c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"verdict":"too few requests",`)
	assert.Contains(t, string(b), `"unjudged_reason":"ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)"}`)
	var back Control
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, c.Unjudged, back.WhyUnjudged())
}

// A change that is no number (a figure missing on a side) is written
// null and read back as none, NaN, not as a change of 0.
func TestControlNoChange(t *testing.T) {
	c := Control{stats.Control{Leaf: "runtime=sim/prompt=short/conc=1", TTFTChange: math.NaN(), TTFTThreshold: math.NaN(), DecodeChange: 0.25, DecodeThreshold: 0.1}}
	b, err := json.Marshal(&c)
	require.NoError(t, err)
	assert.True(t, bytes.Contains(b, []byte(`"ttft_change":null,"decode_change":0.25,"ttft_threshold":null,"decode_threshold":0.1`)), string(b))
	var back Control
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(back.TTFTChange), "null reads back as no change: %v", back.TTFTChange)
	assert.True(t, math.IsNaN(back.TTFTThreshold))
	assert.Equal(t, 0.25, back.DecodeChange)
}
