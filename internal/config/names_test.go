package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A misspelt setting stops the run before anything is read, naming the
// variable and the setting it is closest to; its value, which may be a
// key, is not repeated.
func TestMisspeltSettingRefused(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"BENCH_CONCURENCY": "1"}, "BENCH_CONCURENCY is not a setting of the suite: did you mean BENCH_CONCURRENCY?"},
		{map[string]string{"BENCH_WARMUP": "0"}, "BENCH_WARMUP is not a setting of the suite: did you mean BENCH_WARMUPS?"},
		{map[string]string{"SIM_TTF": "10ms"}, "SIM_TTF is not a setting of the suite: did you mean SIM_TTFT?"},
		{map[string]string{"SIM_METRIC": "0"}, "SIM_METRIC is not a setting of the suite: did you mean SIM_METRICS?"},
		{map[string]string{"BENCH_SOMETHING_ELSE_ENTIRELY": "1"}, "BENCH_SOMETHING_ELSE_ENTIRELY is not a setting of the suite (the closest is "},
		{map[string]string{"BENCH_GO_TIMEOUT": "3h"}, "BENCH_GO_TIMEOUT: no longer read"},
		// A runtime's near misses, named or probed.
		{map[string]string{"OLLAMA_MODLE": "qwen3:8b"}, "OLLAMA_MODLE is not a setting of runtime ollama: did you mean OLLAMA_MODEL?"},
		{map[string]string{"BENCH_RUNTIMES": "vllm-metal", "VLLM_METAL_ULR": "http://127.0.0.1:8001"}, "VLLM_METAL_ULR is not a setting of runtime vllm-metal: did you mean VLLM_METAL_URL?"},
		{map[string]string{"BENCH_RUNTIMES": "mine", "MINE_URL": "http://127.0.0.1:1", "MINE_APIKEY": "sk-secret"}, "MINE_APIKEY is not a setting of runtime mine: did you mean MINE_API_KEY?"},
		{map[string]string{"LMSTUDIO_VERSOIN": "0.3.30"}, "LMSTUDIO_VERSOIN is not a setting of runtime lmstudio: did you mean LMSTUDIO_VERSION?"},
	} {
		_, err := LoadFrom(tc.env)
		if assert.Error(t, err, "%v", tc.env) {
			assert.Contains(t, err.Error(), tc.want)
			for _, v := range tc.env {
				if strings.HasPrefix(v, "sk-") {
					assert.NotContains(t, err.Error(), v, "a key's value is never written")
				}
			}
		}
	}
	// Every one is said at once.
	_, err := LoadFrom(map[string]string{"BENCH_CONCURENCY": "1", "SIM_TTF": "1ms"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BENCH_CONCURENCY")
	assert.Contains(t, err.Error(), "SIM_TTF")
}

// A known runtime's name in another case is refused, saying names are
// lower case, not that it needs a URL.
func TestRuntimeNameCase(t *testing.T) {
	for _, name := range []string{"Sim", "OLLAMA", "vLLM"} {
		_, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": name})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), `BENCH_RUNTIMES="`+name+`": "`+name+`": runtime names are lower case: did you mean `+strings.ToLower(name)+"?")
		assert.NotContains(t, err.Error(), "_URL", name)
	}
	// A near miss of a known name without a URL is a typo first: the fix
	// leads, the runtime of its own it could be follows.
	_, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "olama"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `runtime "olama" is not a known runtime: did you mean ollama? (a runtime of its own needs OLAMA_URL; names with defaults: ollama, `)
	assert.NotContains(t, err.Error(), "has no URL", "the likely fix first")
	// With its URL it is a runtime of its own.
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "olama", "OLAMA_URL": "http://127.0.0.1:11435"})
	require.NoError(t, err)
}

// Every variable the suite reads, every one other tools of the
// repository read, and the servers' own variables beside a runtime's are
// let through.
func TestKnownAndForeignVariablesAccepted(t *testing.T) {
	names := []string{"mine", "vllm-metal"}
	known := slices.Concat(Variables(), SimVariables(), RuntimeVariables("ollama"), RuntimeVariables("mine"), RuntimeVariables("vllm-metal"), RuntimeVariables(Sim))
	require.Contains(t, known, "BENCH_CONCURRENCY")
	require.Contains(t, known, "SIM_METRICS", "read apart from Config's fields, listed all the same")
	require.Contains(t, known, "VLLM_METAL_API_KEY")
	for _, k := range known {
		assert.NoError(t, checkNames(map[string]string{k: "x"}, names), k)
	}
	for k := range Foreign {
		assert.NoError(t, checkNames(map[string]string{k: "x"}, nil), k)
	}
	// An empty variable is unset (envtest.Clean blanks them so).
	assert.NoError(t, checkNames(map[string]string{"BENCH_CONCURENCY": ""}, nil))

	// The servers' own variables, probed (every known name) or named.
	servers := map[string]string{
		// Ollama's envconfig.
		"OLLAMA_HOST": "0.0.0.0:11434", "OLLAMA_MODELS": "/Volumes/models", "OLLAMA_NUM_PARALLEL": "4",
		"OLLAMA_KEEP_ALIVE": "30m", "OLLAMA_MAX_LOADED_MODELS": "2", "OLLAMA_MAX_QUEUE": "512", "OLLAMA_ORIGINS": "*",
		"OLLAMA_DEBUG": "1", "OLLAMA_FLASH_ATTENTION": "1", "OLLAMA_KV_CACHE_TYPE": "q8_0", "OLLAMA_CONTEXT_LENGTH": "8192",
		"OLLAMA_HOME": "/tmp", "OLLAMA_TMPDIR": "/tmp", "OLLAMA_NOPRUNE": "1", "OLLAMA_NOHISTORY": "1",
		"OLLAMA_LLM_LIBRARY": "cpu", "OLLAMA_SCHED_SPREAD": "1", "OLLAMA_GPU_OVERHEAD": "0", "OLLAMA_LOAD_TIMEOUT": "5m",
		"OLLAMA_NEW_ENGINE": "1", "OLLAMA_MULTIUSER_CACHE": "1", "OLLAMA_INTEL_GPU": "0", "OLLAMA_MAX_VRAM": "0",
		"OLLAMA_RUNNERS_DIR": "/tmp", "OLLAMA_AUTH": "1",
		// vLLM's, and a Kubernetes service named vllm's.
		"VLLM_USE_V1": "1", "VLLM_LOGGING_LEVEL": "DEBUG", "VLLM_HOST_IP": "10.0.0.1", "VLLM_PORT": "tcp://10.0.0.2:8000",
		"VLLM_MODEL_REDIRECT_PATH": "/tmp/redirect", "VLLM_SERVICE_HOST": "10.0.0.2",
		// The vllm-metal plugin's, MLX's, SGLang's, llama.cpp's.
		"VLLM_METAL_MEMORY_FRACTION": "0.8", "VLLM_METAL_USE_MLX": "1", "MLX_METAL_FAST_SYNCH": "1",
		"SGLANG_LOG_LEVEL": "info", "LLAMA_ARG_CTX_SIZE": "8192",
	}
	assert.NoError(t, checkNames(servers, nil))
	assert.NoError(t, checkNames(servers, []string{"ollama", "vllm-metal", "vllm", "sglang", "mlx"}))
	_, err := LoadFrom(merge(servers, map[string]string{"BENCH_RUNTIMES": "ollama,vllm-metal", "VLLM_METAL_URL": "http://127.0.0.1:8001"}))
	assert.NoError(t, err)
}

// Every BENCH_ or SIM_ name the repository uses, in its code, scripts,
// workflows and documents, is one the suite reads, one another tool reads
// (Foreign), a retired one, or shown refused ("did you mean"): none is
// refused wrongly, and none the suite reads is missing from its list.
func TestRepositoryNamesKnown(t *testing.T) {
	known := slices.Concat(Variables(), SimVariables(), RuntimeVariables(Sim))
	name := regexp.MustCompile(`\b(?:BENCH|SIM)_[A-Z0-9_]*[A-Z0-9]\b`)
	var files []string
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if n := e.Name(); n == ".git" || n == "results" || n == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".yml", ".yaml", "":
			if !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, files, filepath.Join("../..", ".github/workflows/inference-bench.yml"))
	require.Contains(t, files, filepath.Join("../..", ".ci/run"))
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			for _, k := range name.FindAllString(line, -1) {
				seen[k] = true
				switch {
				case slices.Contains(known, k), Foreign[k] != "", Retired[k] != "", simSide(k):
				case strings.Contains(line, "did you mean"), strings.Contains(line, "is not a setting"):
					// shown refused
				default:
					t.Errorf("%s:%d: %s is neither read by the suite nor in config.Foreign: the suite would refuse it", f, i+1, k)
				}
			}
		}
	}
	for _, k := range []string{"BENCH_COUNT", "BENCH_FAIL_ON_REGRESSION", "SIM_FLAVOR", "BENCH_CONCURRENCY"} {
		assert.True(t, seen[k], "%s: the walk read the workflow, the docs and the code", k)
	}
	for k := range Foreign {
		assert.True(t, seen[k], "config.Foreign lets %s through, which nothing in the repository uses", k)
	}
}

// simSide reports whether k is a variable of a simulator's side sim@TAG
// (SIM_B_TOKENS_PER_SEC), which the suite reads when sim@b is named.
func simSide(k string) bool {
	for _, v := range SimVariables() {
		if tag, ok := strings.CutSuffix(strings.TrimPrefix(k, "SIM_"), "_"+strings.TrimPrefix(v, "SIM_")); ok && tag != "" && k != v {
			return slices.Contains(SimSideVariables(strings.ToLower(tag)), k)
		}
	}
	return false
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// The README quotes the refusals as the suite prints them.
func TestReadmeQuotesTheRefusals(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	for _, env := range []map[string]string{{"BENCH_CONCURENCY": "1"}, {"OLLAMA_MODLE": "qwen3:8b", "OLLAMA_MODELS": "/tmp/models"}} {
		_, err := LoadFrom(env)
		require.Error(t, err)
		assert.Contains(t, string(readme), "\n[inference] "+err.Error()+"\n", "README.md quotes the refusal of %v", env)
	}
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "Sim"})
	require.Error(t, err)
	msg := strings.TrimPrefix(err.Error(), `BENCH_RUNTIMES="Sim": `)
	assert.Contains(t, strings.Join(strings.Fields(string(readme)), " "), "`"+msg+"`")
}
