package summary

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

func TestNotSameWeights(t *testing.T) {
	served := func(params, quant, format string) Served {
		var s Served
		if params != "" {
			s.Parameters = testkit.Ptr(params)
		}
		if quant != "" {
			s.Quantization = testkit.Ptr(quant)
		}
		if format != "" {
			s.Format = testkit.Ptr(format)
		}
		return s
	}
	for _, tc := range []struct {
		a, b Served
		want string
	}{
		{served("8.2B", "Q4_K_M", "GGUF"), served("", "4-bit", "MLX"), "a serves Q4_K_M, b serves MLX 4-bit: not the same weights"},
		{served("8.2B", "Q4_K_M", "GGUF"), served("8.19B", "q4_k_m", "GGUF"), ""},
		{served("8.2B", "Q4_K_M", ""), served("32B", "Q4_K_M", ""), "a serves 8.2B, b serves 32B: not the same weights"},
		{served("0.6B", "Q8_0", "GGUF"), served("8.2B", "4bit", "MLX"), "a serves 0.6B Q8_0, b serves 8.2B MLX 4-bit: not the same weights"},
		{served("8B", "", ""), served("8.2B", "", ""), "" /* within rounding */},
		{served("", "Q4_K_M", ""), served("", "", "MLX"), "" /* one unknown */},
		{Served{}, Served{}, ""},
	} {
		assert.Equal(t, tc.want, NotSameWeights("a", tc.a, "b", tc.b))
	}
}

func TestServedIn(t *testing.T) {
	s, ok := ServedIn(json.RawMessage(`{"data":[],"served":{"family":"qwen3","parameters":null,"quantization":"Q4_K_M","format":"GGUF","context":4096}}`))
	assert.True(t, ok)
	assert.Equal(t, "qwen3", *s.Family)
	assert.Nil(t, s.Parameters)
	assert.Equal(t, 4096, *s.Context)
	for _, raw := range []string{``, `null`, `{"data":[]}`, `"text"`} {
		_, ok := ServedIn(json.RawMessage(raw))
		assert.False(t, ok, raw)
	}
	assert.Equal(t, "family qwen3, quantization Q4_K_M, format GGUF, context 4096; not stated: parameters", ServedFacts(s))
	assert.Equal(t, "its server states no family, parameters, quantization, format or context", ServedFacts(Served{}))
}
