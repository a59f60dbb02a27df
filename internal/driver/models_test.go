package driver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// flavoredSim starts a simulator that plays cfg's flavor, for a test's
// runtime to point at.
func flavoredSim(t *testing.T, flavor sim.Flavor, settings ...string) *sim.Server {
	t.Helper()
	env := map[string]string{"SIM_FLAVOR": string(flavor)}
	for i := 0; i+1 < len(settings); i += 2 {
		env[settings[i]] = settings[i+1]
	}
	cfg, err := config.LoadSimFrom(env)
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

// Probing names a server by its answers: on 8080, which llamacpp and mlx
// share, a server without llama-server's /props is mlx_lm.server, and one
// with it llama-server; a server on another's port gets its own name.
func TestProbeNamesByAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		flavor sim.Flavor
		want   string
		why    string
	}{
		{"mlx on 8080", sim.FlavorMLX, "mlx", "(it does not answer llama-server's GET /props)"},
		{"llama-server on 8080", sim.FlavorLlamaCpp, "llamacpp", "(it answers llama-server's GET /props)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := isolated(t)
			srv := flavoredSim(t, tc.flavor)
			env["LLAMACPP_URL"], env["MLX_URL"] = srv.URL, srv.URL
			var log bytes.Buffer
			s, err := setup(context.Background(), env, &log, Options{})
			require.NoError(t, err)
			t.Cleanup(s.Close)
			require.Len(t, s.Runtimes, 1, "one server, probed once: %s", log.String())
			assert.Equal(t, tc.want, s.Runtimes[0].Name)
			assert.Equal(t, srv.URL, s.Runtimes[0].BaseURL)
			assert.Contains(t, log.String(), "found "+tc.want+" at "+srv.URL+" "+tc.why)
		})
	}
	t.Run("LM Studio on vLLM's port", func(t *testing.T) {
		t.Parallel()
		env := isolated(t)
		srv := flavoredSim(t, sim.FlavorLMStudio)
		env["VLLM_URL"] = srv.URL
		var log bytes.Buffer
		s, err := setup(context.Background(), env, &log, Options{})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		require.Len(t, s.Runtimes, 1, log.String())
		assert.Equal(t, "lmstudio", s.Runtimes[0].Name)
		assert.Contains(t, log.String(), "found lmstudio at "+srv.URL+" (vllm's port; it answers LM Studio's GET /api/v0/models)")
	})
	t.Run("a server on its own port", func(t *testing.T) {
		t.Parallel()
		env := isolated(t)
		srv := flavoredSim(t, sim.FlavorVLLM) // answers Ollama's /api/version too
		env["VLLM_URL"] = srv.URL
		env["OLLAMA_URL"] = flavoredSim(t, sim.FlavorVLLM).URL
		s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		var names []string
		for _, rt := range s.Runtimes {
			names = append(names, rt.Name)
		}
		assert.Equal(t, []string{"ollama", "vllm"}, names, "ollama took its own port; vllm's keeps its name")
	})
}

// The drive of addProbed itself, with the known ports given: a sim
// flavored as mlx where llamacpp and mlx share a port is named mlx.
func TestAddProbedMLX(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	s, err := setup(context.Background(), merge(env, map[string]string{"BENCH_RUNTIMES": "sim"}), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	s.Runtimes, s.Run.Runtimes = nil, nil
	url := flavoredSim(t, sim.FlavorMLX, "SIM_SERVED_MODEL", "mlx-community/Qwen3-8B-4bit").URL
	closed := closedURL(t)
	known := []config.Runtime{
		{Name: "ollama", Kind: runtimes.KindOllama, URL: closed},
		{Name: "llamacpp", Kind: runtimes.KindOpenAI, URL: url},
		{Name: "mlx", Kind: runtimes.KindOpenAI, URL: url + "/"},
	}
	require.NoError(t, s.addProbed(context.Background(), known, config.Runtime{Name: "sim", Kind: runtimes.KindOpenAI}))
	require.Len(t, s.Runtimes, 1)
	assert.Equal(t, "mlx", s.Runtimes[0].Name)
	assert.Equal(t, "mlx-community/Qwen3-8B-4bit", s.Runtimes[0].Model)
	served, ok := summary.ServedIn(s.Run.ModelMetadata["mlx"])
	require.True(t, ok)
	require.NotNil(t, served.Format)
	assert.Equal(t, "MLX", *served.Format)
	require.NotNil(t, served.Quantization)
	assert.Equal(t, "4-bit", *served.Quantization)
}

// Each runtime's model is said at the start and kept in the summary; a
// pair whose stated quantizations differ gets a warning, a pair that
// agrees none.
func TestModelsSideBySide(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "ollama,lmstudio,llamacpp"
	env["OLLAMA_URL"] = flavoredSim(t, sim.FlavorVLLM).URL // Ollama's endpoints, Q4_K_M
	env["LMSTUDIO_URL"] = flavoredSim(t, sim.FlavorLMStudio, "SIM_QUANTIZATION", "4bit").URL
	env["LLAMACPP_URL"] = flavoredSim(t, sim.FlavorLlamaCpp, "SIM_SERVED_MODEL", "/models/sim-Q4_K_M.gguf", "SIM_CONTEXT", "8192").URL
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	out := log.String()
	assert.Contains(t, out, "[inference] ollama serves sim-model: family sim, 500.00M parameters, quantization Q4_K_M, format GGUF, context 40960\n")
	assert.Contains(t, out, "[inference] lmstudio serves sim-model: family sim, quantization 4-bit, format MLX, context 40960; not stated: parameters\n")
	assert.Contains(t, out, "[inference] llamacpp serves /models/sim-Q4_K_M.gguf: family sim, 500.00M parameters, quantization Q4_K_M, format GGUF, context 8192\n")
	assert.Contains(t, out, "[inference] warning: ollama serves Q4_K_M, lmstudio serves MLX 4-bit: not the same weights\n")
	assert.Contains(t, out, "[inference] warning: lmstudio serves MLX 4-bit, llamacpp serves Q4_K_M: not the same weights\n")
	assert.NotContains(t, out, "warning: ollama serves Q4_K_M, llamacpp", "the same weights: no warning")
	assert.Equal(t, 2, strings.Count(out, "warning:"))
	assert.Greater(t, strings.Index(out, "warning:"), strings.Index(out, "llamacpp serves"), "the warnings after every runtime's line")

	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(s.Run.ModelMetadata["lmstudio"], &meta))
	assert.JSONEq(t, `{"family":"sim","parameters":null,"quantization":"4-bit","format":"MLX","context":40960}`, string(meta["served"]))
}

// NAME_VERSION records a version for a server that states none (LM
// Studio), and replaces, saying so, one that states another.
func TestNameVersion(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "lmstudio,vllm,mlx"
	env["LMSTUDIO_URL"] = flavoredSim(t, sim.FlavorLMStudio).URL
	env["LMSTUDIO_VERSION"] = "0.3.30"
	env["VLLM_URL"] = flavoredSim(t, sim.FlavorVLLM).URL
	env["VLLM_VERSION"] = "0.11.0+metal"
	env["MLX_URL"] = flavoredSim(t, sim.FlavorMLX).URL
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	version := func(name string) any {
		if v := s.Run.Versions[name]; v != nil {
			return *v
		}
		return nil
	}
	assert.Equal(t, "0.3.30", version("lmstudio"))
	assert.Equal(t, "0.11.0+metal", version("vllm"))
	assert.Nil(t, version("mlx"), "mlx_lm states none and MLX_VERSION is unset")
	assert.Contains(t, log.String(), `vllm: VLLM_VERSION="0.11.0+metal" is recorded as its version, instead of the "`+sim.Version+`" its server states`)
	assert.NotContains(t, log.String(), "lmstudio: LMSTUDIO_VERSION", "nothing replaced")

	s.Run.Add(bench.Key{Runtime: "lmstudio", Model: "sim-model", Prompt: "short", Concurrency: 1}, okRounds(), summary.Telemetry{})
	require.NoError(t, s.Finish())
	b, err := os.ReadFile(s.files.json)
	require.NoError(t, err)
	var f struct {
		Versions map[string]*string `json:"versions"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotNil(t, f.Versions["lmstudio"])
	assert.Equal(t, "0.3.30", *f.Versions["lmstudio"], "in the summary file")
}

// The simulator's lmstudio and mlx flavors have no Ollama API.
func TestSimKindOllamaNeedsOllamaFlavor(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "sim"
	env["SIM_KIND"] = "ollama"
	env["SIM_FLAVOR"] = "mlx"
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	assert.ErrorContains(t, err, "SIM_KIND=ollama: SIM_FLAVOR=mlx plays a server without Ollama's API")
}

// A model the server does not list is refused before any chat request,
// naming what it serves (vLLM and Ollama would answer each request 404),
// in both protocols; the names a server matches are kept: Ollama's
// ":latest", mlx_lm.server's "default_model", and any name to
// llama-server, which serves its one model whatever is asked.
func TestModelNotServed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, runtimes, model string
		env                   map[string]string
		flavor                sim.Flavor
		served                string
		refused               string // "": accepted
	}{
		{"vllm", "vllm", "llama3", nil, sim.FlavorVLLM, "inferencebench-e2e",
			`VLLM_MODEL="llama3": vllm (URL): the server does not serve the model "llama3": it serves "inferencebench-e2e"; set it to a model the server serves`},
		{"ollama", "ollama", "llama3", nil, sim.FlavorVLLM, "qwen3:8b",
			`OLLAMA_MODEL="llama3": ollama (URL): the server does not serve the model "llama3": it serves "qwen3:8b"`},
		{"ollama without a tag", "ollama", "qwen3", nil, sim.FlavorVLLM, "qwen3:latest", ""},
		{"ollama-v1 without a tag", "ollama-v1", "qwen3", map[string]string{"OLLAMA_V1_KIND": "openai"}, sim.FlavorVLLM, "qwen3:latest", ""},
		{"probed", "", "llama3", nil, sim.FlavorMLX, "inferencebench-e2e", // answers no Ollama endpoint
			`VLLM_MODEL="llama3": vllm (URL): the server does not serve the model "llama3"`},
		{"llama-server answers any name", "llamacpp", "llama3", nil, sim.FlavorLlamaCpp, "/models/q.gguf", ""},
		{"mlx_lm.server's default_model", "mlx", "default_model", nil, sim.FlavorMLX, "/models/qwen", ""},
		{"mlx_lm.server", "mlx", "llama3", nil, sim.FlavorMLX, "/models/qwen", `MLX_MODEL="llama3": mlx (URL): the server does not serve the model "llama3": it serves "/models/qwen"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, requests := countingSim(t, tc.flavor, "SIM_SERVED_MODEL", tc.served)
			env := merge(isolated(t), tc.env)
			name := cmp.Or(tc.runtimes, "vllm")
			env["BENCH_RUNTIMES"] = tc.runtimes
			env[config.EnvPrefix(name)+"URL"] = url
			env[config.EnvPrefix(name)+"MODEL"] = tc.model
			var log bytes.Buffer
			s, err := setup(context.Background(), env, &log, Options{})
			if tc.refused == "" {
				require.NoError(t, err)
				t.Cleanup(s.Close)
				assert.Equal(t, tc.model, s.Runtimes[0].Model)
				return
			}
			require.Error(t, err, log.String())
			assert.Contains(t, err.Error(), strings.ReplaceAll(tc.refused, "URL", url))
			assert.Zero(t, requests.chats.Load(), "no chat request")
		})
	}
	// The simulator's own runtime, in both protocols.
	for _, kind := range simKinds {
		t.Run("sim "+kind, func(t *testing.T) {
			t.Parallel()
			env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "SIM_KIND": kind, "SIM_SERVED_MODEL": "inferencebench-e2e", "SIM_MODEL": "llama3"})
			_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), `SIM_MODEL="llama3": sim (http://`)
			assert.Contains(t, err.Error(), `the server does not serve the model "llama3": it serves "inferencebench-e2e"`)
		})
	}
}

// GGUF against MLX weights is warned of even where neither server states
// a quantization; a server whose models' entries have no owned_by
// (mlx_lm.server's, or a generic OpenAI server's) and whose model's name
// says no format is "format unknown", never MLX by guess: a Hugging Face
// safetensors folder is no MLX conversion.
func TestFormatsSideBySide(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "ollama,mlx,openai"
	env["OLLAMA_URL"] = flavoredSim(t, sim.FlavorVLLM).URL // GGUF, Q4_K_M
	env["MLX_URL"] = flavoredSim(t, sim.FlavorMLX, "SIM_SERVED_MODEL", "mlx-community/Qwen3-0.6B").URL
	env["OPENAI_URL"] = flavoredSim(t, sim.FlavorMLX, "SIM_SERVED_MODEL", "/models/Qwen3-0.6B").URL
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	out := log.String()
	assert.Contains(t, out, "[inference] mlx serves mlx-community/Qwen3-0.6B: format MLX; not stated: family, parameters, quantization, context\n")
	assert.Contains(t, out, "[inference] openai serves /models/Qwen3-0.6B (its server states no family, parameters, quantization, format or context)\n")
	assert.Contains(t, out, "[inference] warning: ollama serves GGUF weights, mlx serves MLX: not the same weights (the quantization of mlx is not stated)\n")
	assert.Equal(t, 1, strings.Count(out, "warning:"), "a format not stated warns of nothing: %s", out)
}
