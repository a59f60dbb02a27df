package driver

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// tracedRun runs the conc=1 leaf of the simulator for 8 rounds with
// settings, and returns its row, its timed records and the arguments.
func tracedRun(t *testing.T, settings map[string]string) (summary.Row, []records.Record, summary.Arguments) {
	t.Helper()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_CONCURRENCY": "1", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1",
		"BENCH_CONTROL": "off", "BENCH_MAX_TOKENS": "4", "SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "1000",
	}, settings)
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := slices.Collect(d.Leaves())[0]
	runLeaf(t, d, k, 8)
	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	var timed []records.Record
	for _, r := range recs {
		if r.Timed() {
			timed = append(timed, r)
		}
	}
	require.Len(t, f.Summary, 1)
	return f.Summary[0], timed, f.Arguments
}

// BENCH_HTTP_TRACE=1 puts each request's connection times in its record
// and their means in the row: on a server that closes every connection
// after its reply (SIM_CLOSE_AFTER_STREAM=1, as llama-server) requests
// dial once the pool's other connections are used up, and a connect time
// is recorded exactly for those that did, a share of the TTFT; on one
// that keeps them alive every timed request reuses a connection.
func TestHTTPTraceOnTheSimulator(t *testing.T) {
	t.Parallel()
	t.Run("fresh", func(t *testing.T) {
		t.Parallel()
		row, timed, args := tracedRun(t, map[string]string{"BENCH_HTTP_TRACE": "1", "SIM_CLOSE_AFTER_STREAM": "1"})
		assert.True(t, args.HTTPTrace)
		require.NotNil(t, row.HTTPTraced)
		assert.Equal(t, 8, *row.HTTPTraced)
		// A request may take a connection of the suite's earlier
		// requests that were no chat (the server keeps those), or be sent
		// again on one when the server closes the one it took; once the
		// pool holds no more (5 at most for conc=1), each dials.
		assert.LessOrEqual(t, *row.HTTPReusedConns, 5)
		require.NotNil(t, row.ConnectSMean)
		assert.Positive(t, *row.ConnectSMean)
		require.NotNil(t, row.ConnectShareOfTTFT)
		assert.Positive(t, *row.ConnectShareOfTTFT)
		assert.Less(t, *row.ConnectShareOfTTFT, 1.0)
		require.NotNil(t, row.FirstByteSMean)
		assert.LessOrEqual(t, *row.FirstByteSMean, *row.TTFTMean)
		require.Len(t, timed, 8)
		for i, r := range timed {
			require.NotNil(t, r.HTTP)
			assert.Equal(t, r.HTTP.Reused, r.HTTP.ConnectS == 0, "request %d: a connect time exactly when it dialled", i)
		}
		assert.False(t, timed[7].HTTP.Reused, "the last request found no connection to reuse")
	})
	t.Run("keep-alive", func(t *testing.T) {
		t.Parallel()
		row, timed, _ := tracedRun(t, map[string]string{"BENCH_HTTP_TRACE": "1"})
		require.NotNil(t, row.HTTPTraced)
		assert.Equal(t, 8, *row.HTTPReusedConns, "every timed request reused a connection")
		assert.Nil(t, row.ConnectSMean, "no timed request opened a connection")
		assert.Zero(t, *row.ConnectShareOfTTFT)
		for _, r := range timed {
			require.NotNil(t, r.HTTP)
			assert.True(t, r.HTTP.Reused)
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		row, timed, args := tracedRun(t, nil)
		assert.False(t, args.HTTPTrace)
		assert.Nil(t, row.HTTPTraced)
		assert.Nil(t, row.FirstByteSMean)
		for _, r := range timed {
			assert.Nil(t, r.HTTP)
		}
	})
}
