package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NAME_SERVER_ENV is the server's settings as KEY=VALUE pairs; anything
// else, and any secret, is refused naming the variable.
func TestServerEnv(t *testing.T) {
	rt, err := LoadRuntimeFrom(map[string]string{"OLLAMA_SERVER_ENV": " OLLAMA_NUM_PARALLEL=4  OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 "}, "ollama")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_FLASH_ATTENTION": "1", "OLLAMA_KV_CACHE_TYPE": "q8_0"}, rt.ServerEnv)

	rt, err = LoadRuntimeFrom(map[string]string{}, "ollama")
	require.NoError(t, err)
	assert.Nil(t, rt.ServerEnv, "unset: none stated")

	for _, tc := range []struct{ value, want string }{
		{"OLLAMA_NUM_PARALLEL", `OLLAMA_SERVER_ENV: "OLLAMA_NUM_PARALLEL" is not KEY=VALUE`},
		{"OLLAMA_NUM_PARALLEL=", `OLLAMA_SERVER_ENV: "OLLAMA_NUM_PARALLEL=" is not KEY=VALUE`},
		{"4X=1", `OLLAMA_SERVER_ENV: "4X" is not a variable's name`},
		{"HF_TOKEN=hf_abc", "OLLAMA_SERVER_ENV: HF_TOKEN looks like a secret, and the settings are written to the summary: leave it out"},
		{"OPENAI_API_KEY=sk-1", "OLLAMA_SERVER_ENV: OPENAI_API_KEY looks like a secret"},
		{"DB_PASSWORD=x", "OLLAMA_SERVER_ENV: DB_PASSWORD looks like a secret"},
		{"OLLAMA_HOST=http://u:hunter2@127.0.0.1:11434", "OLLAMA_SERVER_ENV: OLLAMA_HOST is a URL with a password"},
		{"A=1 A=2", "OLLAMA_SERVER_ENV: A is given twice"},
		{"OLLAMA_NUM_PARALLEL=4 sk-hunter2", "OLLAMA_SERVER_ENV: item 2 is not KEY=VALUE"},
	} {
		_, err := LoadRuntimeFrom(map[string]string{"OLLAMA_SERVER_ENV": tc.value}, "ollama")
		require.Error(t, err, tc.value)
		assert.Contains(t, err.Error(), tc.want, tc.value)
		assert.NotContains(t, err.Error(), "hunter2", "a password is never repeated")
		assert.NotContains(t, err.Error(), "hf_abc")
	}
	// Keys whose parts only look alike are no secrets.
	rt, err = LoadRuntimeFrom(map[string]string{"OLLAMA_SERVER_ENV": "OLLAMA_KEEP_ALIVE=5m OLLAMA_KV_CACHE_TYPE=f16 OLLAMA_HOST=http://127.0.0.1:11434"}, "ollama")
	require.NoError(t, err)
	assert.Len(t, rt.ServerEnv, 3)
	// A side's own.
	rt, err = LoadRuntimeFrom(map[string]string{"OLLAMA_NEW_URL": "http://127.0.0.1:11435", "OLLAMA_NEW_SERVER_ENV": "OLLAMA_NUM_PARALLEL=1"}, "ollama@new")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"OLLAMA_NUM_PARALLEL": "1"}, rt.ServerEnv)
}
