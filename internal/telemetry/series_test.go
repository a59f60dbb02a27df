package telemetry

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func snap(t *testing.T, text string) Snapshot {
	t.Helper()
	s, err := Parse(strings.NewReader(text))
	require.NoError(t, err)
	return s
}

// Each server's names: vLLM's gauges and counters (the rates over the
// interval from its counters), SGLang's gauges, llama-server's; a figure
// the server lacks is nil.
func TestSampleOf(t *testing.T) {
	vllm := func(hits, queries, acc, drafted string) Snapshot {
		return snap(t, `# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0"} 0.5
vllm:kv_cache_usage_perc{engine="1"} 0.25
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0"} 3
vllm:num_requests_running{engine="1"} 1
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0"} 2
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total `+hits+`
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total `+queries+`
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total `+acc+`
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total `+drafted+`
`)
	}
	before, after := vllm("100", "400", "10", "20"), vllm("130", "500", "40", "60")
	first := SampleOf(nil, before)
	assert.Equal(t, 0.375, *first.KVCacheUse, "the mean over engines")
	assert.Equal(t, 4.0, *first.Running, "the sum over engines")
	assert.Equal(t, 2.0, *first.Waiting)
	assert.Nil(t, first.PrefixHitRate, "no interval yet")
	assert.Nil(t, first.SpecAcceptRate)
	s := SampleOf(&before, after)
	assert.Equal(t, 0.3, *s.PrefixHitRate, "30 hits of 100 tokens looked up")
	assert.Equal(t, 0.75, *s.SpecAcceptRate, "30 of 40 drafted")
	idle := SampleOf(&after, after)
	assert.Nil(t, idle.PrefixHitRate, "nothing looked up")
	back := SampleOf(&after, before)
	assert.Nil(t, back.PrefixHitRate, "counters went back: a restart")

	sg := SampleOf(nil, snap(t, `# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.28
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 5
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 7
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m"} 0.5
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{model_name="m"} 0.6
`))
	assert.Equal(t, 0.28, *sg.KVCacheUse)
	assert.Equal(t, 5.0, *sg.Running)
	assert.Equal(t, 7.0, *sg.Waiting)
	assert.Equal(t, 0.5, *sg.PrefixHitRate)
	assert.Equal(t, 0.6, *sg.SpecAcceptRate)

	ll := SampleOf(nil, snap(t, `# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 1
`))
	assert.Nil(t, ll.KVCacheUse, "current llama-server builds export no KV-cache gauge")
	assert.Equal(t, 2.0, *ll.Running)
	assert.Equal(t, 1.0, *ll.Waiting)
	assert.False(t, ll.Empty())
	assert.True(t, SampleOf(nil, snap(t, "# TYPE other gauge\nother 1\n")).Empty())
}

// The file: a line a sample, read back; a last line cut short is left
// out, a line of another shape is an error.
func TestSeriesFile(t *testing.T) {
	path := t.TempDir() + "/x" + ExtSeries
	w := NewSeriesWriter(path)
	one, two := 1.0, 2.0
	require.NoError(t, w.Write(ServerSample{Leaf: "a", Count: 1, TS: 0.5, Running: &one}))
	require.NoError(t, w.Write(ServerSample{Leaf: "a", Count: 1, TS: 1.5, Running: &two}))
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"kv_cache_use":null`, "a missing figure is null")
	ss, err := ReadSeries(bytes.NewReader(b))
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.Equal(t, 2.0, *ss[1].Running)
	cut, err := ReadSeries(bytes.NewReader(append(b, `{"leaf":"a","t_`...)))
	require.NoError(t, err)
	assert.Len(t, cut, 2)
	_, err = ReadSeries(strings.NewReader(`{"leaf":"a","t_s":"x"}` + "\n"))
	assert.Error(t, err)
}
