package telemetry

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realLlama is testdata/llamacpp-b1-0c1e570.txt, the /metrics of
// llama-server b1-0c1e570 after one chat request of 8 tokens (58 prompt
// tokens evaluated, none cached), with the values set names gives
// replaced (every value with all true: the server before any request).
func realLlama(t *testing.T, all bool, set map[string]float64) Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "llamacpp-b1-0c1e570.txt"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	for i, line := range lines {
		name, _, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := set[name]; ok {
			lines[i] = name + " " + strconv.FormatFloat(v, 'g', 6, 64) + "\n"
		} else if all {
			lines[i] = name + " 0\n"
		}
	}
	return parseText(t, strings.Join(lines, ""))
}

// What the suite reads from the real server's /metrics over its one
// request: its cached prompt tokens (none) from
// llamacpp:prompt_tokens_cached_total, the phase times and generated
// tokens, and n_busy_slots_per_decode as a gauge, no restart.
func TestServerFiguresLlamaCppReal(t *testing.T) {
	idle, after := realLlama(t, true, nil), realLlama(t, false, nil)
	d := Delta(idle, after)
	assert.Empty(t, d.Reset)
	wantValues(t, d, map[string]float64{
		"llamacpp:prompt_tokens_total":        58,
		"llamacpp:prompt_tokens_cached_total": 0,
		"llamacpp:n_busy_slots_per_decode":    1,
	})
	f := DeriveServerFigures(d, 1)
	require.NotNil(t, f.CachedPromptTokens, "llama-server counts its cached prompt tokens")
	assert.Zero(t, *f.CachedPromptTokens)
	assert.Equal(t, "llamacpp:prompt_tokens_cached_total", f.CachedPromptTokensFrom)
	require.NotNil(t, f.GeneratedTokens)
	assert.Equal(t, 8.0, *f.GeneratedTokens)
	require.NotNil(t, f.PrefillSMean)
	assert.InDelta(t, 0.011255, *f.PrefillSMean, 1e-12)
	require.NotNil(t, f.DecodeSMean)
	assert.InDelta(t, 0.005165, *f.DecodeSMean, 1e-12)

	// A later request of 100 prompt tokens, 60 from the cache.
	later := realLlama(t, false, map[string]float64{"llamacpp:prompt_tokens_total": 98, "llamacpp:prompt_tokens_cached_total": 60})
	f = DeriveServerFigures(Delta(after, later), 1)
	require.NotNil(t, f.CachedPromptTokens)
	assert.Equal(t, 60.0, *f.CachedPromptTokens)
}

// The series over the real server's names: the prefix cache's hit rate
// is the cached prompt tokens over all looked up (cached + evaluated);
// the speculative decoding acceptance is accepted / drafted tokens, null
// while nothing was drafted.
func TestSampleOfLlamaCppReal(t *testing.T) {
	idle, after := realLlama(t, true, nil), realLlama(t, false, nil)
	s := SampleOf(&idle, after)
	require.NotNil(t, s.PrefixHitRate, "58 prompt tokens looked up")
	assert.Zero(t, *s.PrefixHitRate, "none found")
	assert.Nil(t, s.SpecAcceptRate, "nothing drafted")
	require.NotNil(t, s.Running)
	assert.Zero(t, *s.Running)
	assert.Nil(t, s.KVCacheUse, "no KV-cache gauge")

	later := realLlama(t, false, map[string]float64{
		"llamacpp:prompt_tokens_total":                   98, // + 40 evaluated
		"llamacpp:prompt_tokens_cached_total":            60, // + 60 from the cache
		"llamacpp:spec_decode_num_draft_tokens_total":    40,
		"llamacpp:spec_decode_num_accepted_tokens_total": 30,
		"llamacpp:spec_decode_num_drafts_total":          10,
	})
	s = SampleOf(&after, later)
	require.NotNil(t, s.PrefixHitRate)
	assert.InDelta(t, 0.6, *s.PrefixHitRate, 1e-12, "60 of 100 looked up")
	require.NotNil(t, s.SpecAcceptRate)
	assert.InDelta(t, 0.75, *s.SpecAcceptRate, 1e-12, "30 of 40 drafted")
	assert.Nil(t, SampleOf(&later, later).PrefixHitRate, "nothing looked up")
	assert.Nil(t, SampleOf(&later, after).PrefixHitRate, "counters went back: a restart")
}
