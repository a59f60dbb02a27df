package driver

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// OLLAMA_URL at an mlx_lm.server (the simulator playing one: it answers
// the OpenAI endpoints alone) is said and refused before any request:
// every Ollama request would fail with HTTP 404. The same server named by
// a runtime of the OpenAI kind answers its requests: said, not refused.
// A server that answers as the runtime named is not said at all.
func TestNamedRuntimeAnswersAsAnother(t *testing.T) {
	t.Parallel()
	mlx := flavoredSim(t, sim.FlavorMLX)
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "ollama", "OLLAMA_URL": mlx.URL})
	var log bytes.Buffer
	_, err := setup(context.Background(), env, &log, Options{})
	require.Error(t, err)
	assert.Equal(t, "OLLAMA_URL "+mlx.URL+" answers as an OpenAI server (only the OpenAI endpoints answer, GET /v1/models: vLLM, SGLang, mlx_lm.server), "+
		"not Ollama (Ollama's GET /api/version does not answer there): every request of Ollama's protocol would fail (HTTP 404); "+
		"point OLLAMA_URL at Ollama, or name the runtime after the server that answers (BENCH_RUNTIMES and its NAME_URL)", err.Error())
	assert.NotContains(t, log.String(), "serves", "refused before the model was described")

	// llama-server's name on it, of the OpenAI kind: it runs, said.
	env = merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "llamacpp", "LLAMACPP_URL": mlx.URL})
	log.Reset()
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	assert.Contains(t, log.String(), "[inference] LLAMACPP_URL "+mlx.URL+" answers as an OpenAI server (")
	assert.Contains(t, log.String(), "not llama-server (llama-server's GET /props does not answer there): its requests go to the OpenAI endpoints, which answer")

	// Ollama's name on the simulator playing Ollama: nothing said.
	ollama := flavoredSim(t, sim.FlavorOllama)
	env = merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "ollama", "OLLAMA_URL": ollama.URL})
	log.Reset()
	s, err = setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	assert.NotContains(t, log.String(), "answers as")
}

// The server that answered is named by its own endpoint where it has one,
// else by the port, else the servers it may be are listed.
func TestAnsweringServer(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "llama-server (llama-server's GET /props answers)", answeringServer(probeSays("llamacpp"), "http://127.0.0.1:9999"))
	assert.Equal(t, "mlx_lm.server (only the OpenAI endpoints answer, GET /v1/models, on its default port 8080)", answeringServer(probeSays(), "http://127.0.0.1:8080"))
	assert.Equal(t, "vLLM (only the OpenAI endpoints answer, GET /v1/models, on its default port 8000)", answeringServer(probeSays(), "http://localhost:8000/"))
	assert.Contains(t, answeringServer(probeSays(), "http://127.0.0.1:9999"), "an OpenAI server (")
}

func probeSays(servers ...string) runtimes.Probe {
	return runtimes.Probe{Answered: true, Says: servers}
}
