package summary

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A row's HTTP figures are over its traced successful requests: the
// phases of opening a connection over those that opened one, the share
// of TTFT spent opening connections over all of them.
func TestRowHTTPTrace(t *testing.T) {
	ms := time.Millisecond
	fresh := runtimes.Result{TTFT: 100 * ms, HTTP: &runtimes.HTTPTrace{DNS: 2 * ms, Connect: 4 * ms, TLS: 14 * ms, GotConn: 21 * ms, Wrote: 22 * ms, FirstByte: 90 * ms}}
	reused := runtimes.Result{TTFT: 100 * ms, HTTP: &runtimes.HTTPTrace{GotConn: 1 * ms, Wrote: 2 * ms, FirstByte: 50 * ms, Reused: true}}
	failed := fresh
	failed.Err = runtimes.NewError(runtimes.ClassReset, "reset")
	untraced := runtimes.Result{TTFT: 100 * ms}
	var row Row
	row.addHTTPTrace([]stats.Round{{Results: []runtimes.Result{fresh, reused, failed, untraced}}})
	require.NotNil(t, row.HTTPTraced)
	assert.Equal(t, 2, *row.HTTPTraced, "the failed and the untraced request are left out")
	assert.Equal(t, 1, *row.HTTPReusedConns)
	assert.InDelta(t, 0.004, *row.ConnectSMean, 1e-12, "over the one request that opened a connection")
	assert.InDelta(t, 0.014, *row.TLSSMean, 1e-12)
	assert.InDelta(t, 0.011, *row.GotConnSMean, 1e-12)
	assert.InDelta(t, 0.070, *row.FirstByteSMean, 1e-12)
	assert.InDelta(t, 0.1, *row.ConnectShareOfTTFT, 1e-12, "20 ms of 200 ms")

	var none Row
	none.addHTTPTrace([]stats.Round{{Results: []runtimes.Result{untraced}}})
	assert.Equal(t, Row{}, none, "no traced request, no figure")
}
