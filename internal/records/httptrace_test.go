package records

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A request traced (BENCH_HTTP_TRACE=1) has its times in seconds under
// "http"; one not traced has no "http" key, so that records written
// without the setting are as before.
func TestHTTPTimes(t *testing.T) {
	start := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	traced := runtimes.Result{Start: start, TTFT: 50 * ms, Total: 80 * ms, Chunks: 2, OutputTokens: 2,
		HTTP: &runtimes.HTTPTrace{DNS: 2 * ms, Connect: 3 * ms, TLS: 4 * ms, GotConn: 10 * ms, Wrote: 11 * ms, FirstByte: 40 * ms}}
	plain := traced
	plain.HTTP = nil
	k := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
	recs := OfRound(k, 1, 1, false, start, []runtimes.Result{traced, plain}, Keep{})
	require.NotNil(t, recs[0].HTTP)
	assert.Equal(t, HTTPTimes{DNSS: 0.002, ConnectS: 0.003, TLSS: 0.004, GotConnS: 0.010, WroteS: 0.011, FirstByteS: 0.040}, *recs[0].HTTP)
	b, err := json.Marshal(recs[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"http":{"dns_s":0.002,"connect_s":0.003,"tls_s":0.004,"got_conn_s":0.01,"wrote_s":0.011,"first_byte_s":0.04,"reused":false}`)
	b, err = json.Marshal(recs[1])
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"http"`)
	assert.NotContains(t, string(b), `"ramp"`)
}

// A ramp's request is a warm-up's, in no figure.
func TestRampRecordNotTimed(t *testing.T) {
	assert.True(t, Record{}.Timed())
	assert.False(t, Record{Ramp: true}.Timed())
}
