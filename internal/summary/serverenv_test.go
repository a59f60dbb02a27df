package summary

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// withServerEnv is suiteFile with ollama's server settings as stated
// (nil: none stated).
func withServerEnv(t *testing.T, env map[string]string) Settings {
	t.Helper()
	return settingsOf(t, suiteFile(t, func(f *File) { f.Runtimes[0].ServerEnv = env }))
}

// Two runs whose servers were started with other settings that change
// results (OLLAMA_NUM_PARALLEL) are not comparable, the setting named;
// a key one run stated and the other left out is the server's default
// there; a run that stated none compares as before server_env was kept.
func TestServerEnvDifferences(t *testing.T) {
	one := withServerEnv(t, map[string]string{"OLLAMA_NUM_PARALLEL": "1", "OLLAMA_FLASH_ATTENTION": "1"})
	four := withServerEnv(t, map[string]string{"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_FLASH_ATTENTION": "1"})
	assert.Equal(t, []Difference{{Setting: "ollama server OLLAMA_NUM_PARALLEL", Env: "OLLAMA_SERVER_ENV", Old: "1", New: "4"}}, Differences(one, four))
	assert.Empty(t, Differences(one, one))

	bare := withServerEnv(t, map[string]string{"OLLAMA_NUM_PARALLEL": "1"})
	assert.Equal(t, []Difference{{Setting: "ollama server OLLAMA_FLASH_ATTENTION", Env: "OLLAMA_SERVER_ENV", Old: "1", New: "(unset)"}}, Differences(one, bare))
	assert.Equal(t, []Difference{{Setting: "ollama server OLLAMA_FLASH_ATTENTION", Env: "OLLAMA_SERVER_ENV", Old: "(unset)", New: "1"}}, Differences(bare, one))

	none := withServerEnv(t, nil)
	assert.Empty(t, Differences(none, four), "none stated: unknown, not different")
	assert.Empty(t, Differences(four, none))

	// A series of history is its runtime's with those settings.
	assert.Contains(t, four.Of("ollama", "short", false), Value{Setting: "server OLLAMA_NUM_PARALLEL", Value: "4"})
	assert.NotContains(t, four.Of("vllm", "short", false), Value{Setting: "server OLLAMA_NUM_PARALLEL", Value: "4"}, "another runtime's server")
	assert.Equal(t, "server OLLAMA_NUM_PARALLEL 1 → 4", Change(Value{Setting: "server OLLAMA_NUM_PARALLEL", Value: "1"}, Value{Setting: "server OLLAMA_NUM_PARALLEL", Value: "4"}))
	for _, v := range none.Of("ollama", "short", false) {
		assert.NotContains(t, v.Setting, "server ", "none stated: none in the series")
	}
}
