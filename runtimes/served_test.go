package runtimes

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sources(t *testing.T, models string) servedSources {
	t.Helper()
	var m servedSources
	require.NoError(t, json.Unmarshal([]byte(models), &m))
	return m
}

// The model's /v1/models entry is the one with its id, or the only one.
func TestServedEntry(t *testing.T) {
	two := sources(t, `{"data":[{"id":"a"},{"id":"b"}]}`)
	assert.Equal(t, 1, two.entry("b"))
	assert.Equal(t, -1, two.entry("c"), "of two, neither is the model")
	assert.Equal(t, 0, sources(t, `{"data":[{"id":"a"}]}`).entry("c"), "the only one")
	assert.Equal(t, -1, sources(t, `{}`).entry("c"))
}

// The model's names, the most telling first: the file, the entry's root
// and id, the name asked for.
func TestServedNames(t *testing.T) {
	m := sources(t, `{"data":[{"id":"m","root":"org/m-GGUF"}],"props":{"model_path":"/models/m-Q4_K_M.gguf"}}`)
	assert.Equal(t, []string{"/models/m-Q4_K_M.gguf", "org/m-GGUF", "m", "asked"}, m.names(0, "asked"))
	assert.Equal(t, []string{"/models/m-Q4_K_M.gguf", "asked"}, m.names(-1, "asked"))
}

// The first source to say a fact wins; a blank says nothing.
func TestSetOnce(t *testing.T) {
	var p *string
	setOnce(&p, "  ")
	assert.Nil(t, p)
	setOnce(&p, " llama ")
	setOnce(&p, "qwen")
	require.NotNil(t, p)
	assert.Equal(t, "llama", *p)
}

// Ollama's /api/show: the architecture stands in for a blank family, and
// a parameter size that is not a number is left out.
func TestServedFromShow(t *testing.T) {
	var s Served
	s.fromShow(sources(t, `{"show":{"details":{"family":"","parameter_size":"many","quantization_level":"q4_k_m","format":"gguf"},
		"model_info":{"general.architecture":"Qwen3"}}}`).Show)
	assert.Equal(t, "qwen3", *s.Family)
	assert.Nil(t, s.Parameters)
	assert.Equal(t, "Q4_K_M", *s.Quantization)
	assert.Equal(t, FormatGGUF, *s.Format)
	var none Served
	none.fromShow(nil)
	assert.Equal(t, Served{}, none)
}

// LM Studio's entry: its loaded context before its most.
func TestServedFromLMStudio(t *testing.T) {
	var s Served
	s.fromLMStudio(sources(t, `{"lmstudio":{"arch":"Llama","quantization":"4bit","compatibility_type":"mlx","max_context_length":32768,"loaded_context_length":4096}}`).LMStudio)
	assert.Equal(t, "llama", *s.Family)
	assert.Equal(t, "4-bit", *s.Quantization)
	assert.Equal(t, FormatMLX, *s.Format)
	assert.Equal(t, 4096, *s.Context)
}

// The /v1/models entry tells llama.cpp (meta, owned_by llamacpp, or
// /props beside it); a missing owned_by states no format.
func TestServedFromEntry(t *testing.T) {
	for _, tc := range []struct {
		about, models string
		llama         bool
		format        string
		params        string
		context       int
	}{
		{"llama-server's meta", `{"data":[{"id":"m","owned_by":"llamacpp","meta":{"n_params":8.03e9,"n_ctx_train":131072}}]}`, true, "", "8.0B", 131072},
		{"llama-server's meta, with /props: its n_ctx, not the training context", `{"data":[{"id":"m","meta":{"n_ctx_train":131072}}],"props":{}}`, true, "", "", 0},
		{"owned_by llamacpp", `{"data":[{"id":"m","owned_by":"llamacpp"}]}`, true, "", "", 0},
		{"no owned_by (mlx_lm.server, or a generic OpenAI server): format not stated", `{"data":[{"id":"m"}]}`, false, "", "", 0},
		{"vLLM: owned_by vllm", `{"data":[{"id":"m","owned_by":"vllm"}]}`, false, "", "", 0},
		{"no entry, /props", `{"props":{}}`, true, "", "", 0},
	} {
		m := sources(t, tc.models)
		var s Served
		assert.Equal(t, tc.llama, m.fromEntry(&s, m.entry("m")), tc.about)
		assert.Equal(t, tc.format, deref(s.Format), tc.about)
		assert.Equal(t, tc.params, deref(s.Parameters), tc.about)
		got := 0
		if s.Context != nil {
			got = *s.Context
		}
		assert.Equal(t, tc.context, got, tc.about)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
