package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BENCH_API: the chat by default; another API by name; a word that is
// none refused with the choices; what goes with the chat alone refused
// with another API; BENCH_EMBED_BATCH in range.
func TestAPISetting(t *testing.T) {
	st, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	assert.Equal(t, "chat", st.API)
	assert.Equal(t, 1, st.EmbedBatch)

	st, err = LoadFrom(map[string]string{"BENCH_API": "embeddings", "BENCH_EMBED_BATCH": "32"})
	require.NoError(t, err)
	assert.Equal(t, "embeddings", st.API)
	assert.Equal(t, 32, st.EmbedBatch)

	for msg, env := range map[string]map[string]string{
		`BENCH_API="anthropic": must be chat, completions, responses, messages or embeddings`: {"BENCH_API": "anthropic"},
		`BENCH_EMBED_BATCH="0": must be a whole number of inputs from 1 to 2048`:              {"BENCH_API": "embeddings", "BENCH_EMBED_BATCH": "0"},
		`BENCH_API="messages": tools (BENCH_TOOLS) are sent with the chat only`:               {"BENCH_API": "messages", "BENCH_TOOLS": "tools.json"},
		`BENCH_API="embeddings": embeddings have no conversation: BENCH_TURNS must be 1`:      {"BENCH_API": "embeddings", "BENCH_TURNS": "3"},
	} {
		_, err := LoadFrom(env)
		require.Error(t, err, msg)
		assert.Contains(t, err.Error(), msg)
	}
}
