package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnv(t *testing.T) {
	t.Setenv("E2E_TEST_URL", " http://127.0.0.1:41103 ")
	t.Setenv("E2E_TEST_N", "128")
	t.Setenv("E2E_TEST_CONC", "1, 4")
	t.Setenv("E2E_TEST_NAMES", "ollama,,ollama-v1")
	var env envVars
	assert.Equal(t, "http://127.0.0.1:41103", env.str("E2E_TEST_URL"))
	assert.Equal(t, 128, env.integer("E2E_TEST_N"))
	assert.Equal(t, []int{1, 4}, env.integers("E2E_TEST_CONC"))
	assert.Equal(t, []string{"ollama", "ollama-v1"}, env.names("E2E_TEST_NAMES"))
	assert.NoError(t, env.err())
}

// A missing variable is an error that says how the test is meant to run:
// the live tests fail on it rather than skip.
func TestEnvMissing(t *testing.T) {
	t.Setenv("E2E_TEST_URL", "")
	t.Setenv("E2E_TEST_N", "x")
	t.Setenv("E2E_TEST_ZERO", "0")
	t.Setenv("E2E_TEST_CONC", "1,0")
	t.Setenv("E2E_TEST_NAMES", " , ")
	var env envVars
	assert.Empty(t, env.str("E2E_TEST_URL"))
	assert.Zero(t, env.integer("E2E_TEST_N"))
	assert.Zero(t, env.integer("E2E_TEST_ZERO"))
	assert.Nil(t, env.integers("E2E_TEST_CONC"))
	assert.Nil(t, env.names("E2E_TEST_NAMES"))
	t.Setenv("E2E_TEST_UNSET", "")
	assert.Zero(t, env.integer("E2E_TEST_UNSET"))
	assert.EqualError(t, env.err(), "not set: E2E_TEST_URL, E2E_TEST_UNSET. "+
		"This test runs against live servers that a script starts and describes in E2E_* variables: run `bash scripts/e2e-ollama.sh` (TestServers: `bash scripts/e2e-vllm-mlx.sh`; TestServerCounters: `bash scripts/e2e-llamacpp.sh`); "+
		`E2E_TEST_N="x": want an integer of 1 or more; `+
		`E2E_TEST_ZERO="0": want an integer of 1 or more; `+
		`E2E_TEST_CONC="1,0": want a comma list of integers of 1 or more; `+
		`E2E_TEST_NAMES=" , ": want a comma list of names`)
}
