package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// A row whose server said "stop" of replies that reached the length asked
// for counts them as length and says how many in stop_at_cap; a row
// without such replies has no stop_at_cap key.
func TestRowStopAtCap(t *testing.T) {
	r := NewRun(time.Now())
	k := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	var rd stats.Round
	rd.Wall, rd.MaxTokens = time.Second, 16
	for i := range 3 {
		res := resulttest.Sent(time.Now(), 100*ms, time.Second, 80, 16)
		res.FinishReason = "stop"
		if i == 2 {
			res.OutputTokens = 10 // it reached its end
		}
		rd.Results = append(rd.Results, res)
	}
	r.Add(k, []stats.Round{rd}, Telemetry{})
	row := r.Rows()[0]
	assert.Equal(t, map[string]int{"length": 2, "stop": 1}, row.FinishReasons)
	b, err := json.Marshal(row)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"stop_at_cap":2`)

	r = NewRun(time.Now())
	rd.Results = rd.Results[2:]
	r.Add(k, []stats.Round{rd}, Telemetry{})
	b, err = json.Marshal(r.Rows()[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), `stop_at_cap`)
}
