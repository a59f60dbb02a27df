package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
)

// A side PRODUCT@TAG is its product's runtime under a name of its own:
// its kind, its variables named after the whole name ('@', '.' and '-' as
// '_'), and a URL of its own, never the product's default port.
func TestSides(t *testing.T) {
	st, err := LoadFrom(map[string]string{
		"BENCH_RUNTIMES":   "ollama@0.6.5,ollama@new",
		"OLLAMA_0_6_5_URL": "http://127.0.0.1:11434",
		"OLLAMA_NEW_URL":   "http://127.0.0.1:11435",
		"OLLAMA_NEW_MODEL": "qwen3:8b",
		"OLLAMA_URL":       "http://127.0.0.1:9", // the product's own: not a side's
	})
	require.NoError(t, err)
	require.Len(t, st.Specs, 2)
	old, new := st.Specs[0], st.Specs[1]
	assert.Equal(t, Runtime{Name: "ollama@0.6.5", Kind: runtimes.KindOllama, URL: "http://127.0.0.1:11434", Known: true, Product: "ollama"}, old)
	assert.Equal(t, Runtime{Name: "ollama@new", Kind: runtimes.KindOllama, URL: "http://127.0.0.1:11435", Model: "qwen3:8b", Known: true, Product: "ollama"}, new)
	assert.Equal(t, OrderAlternate, st.Order, "two sides of one product alternate unless BENCH_ORDER says otherwise")
	assert.Equal(t, []string{"OLLAMA_0_6_5_URL", "OLLAMA_0_6_5_MODEL", "OLLAMA_0_6_5_KIND", "OLLAMA_0_6_5_API_KEY", "OLLAMA_0_6_5_VERSION", "OLLAMA_0_6_5_SERVER_ENV"}, RuntimeVariables("ollama@0.6.5"))
	assert.Equal(t, "MLX_OLD_VENV_", EnvPrefix("mlx@old-venv"))

	// A side of an OpenAI-kind server keeps its kind; a plain name with
	// one side of its product counts as two sides.
	st, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "llamacpp,llamacpp@b8000", "LLAMACPP_B8000_URL": "http://127.0.0.1:8081"})
	require.NoError(t, err)
	assert.Equal(t, runtimes.KindOpenAI, st.Specs[1].Kind)
	assert.Equal(t, "llamacpp", st.Specs[1].Product)
	assert.Equal(t, "http://127.0.0.1:8080", st.Specs[0].URL)
	assert.Equal(t, OrderAlternate, st.Order)

	// BENCH_ORDER set is kept; runtimes of two products interleave.
	st, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim@a,sim@b", "BENCH_ORDER": "grouped"})
	require.NoError(t, err)
	assert.Equal(t, OrderGrouped, st.Order)
	st, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "ollama,sim"})
	require.NoError(t, err)
	assert.Equal(t, OrderInterleaved, st.Order)
}

// A side needs its URL, and a side of a product the suite does not know
// is refused naming the known ones; so are bad tags and two names whose
// variables would be one.
func TestSideRefusals(t *testing.T) {
	_, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "ollama@old,ollama@new", "OLLAMA_OLD_URL": "http://127.0.0.1:11434"})
	require.Error(t, err)
	assert.EqualError(t, err, `runtime "ollama@new" has no URL: set OLLAMA_NEW_URL; two sides of ollama are two servers on two ports, so a side never takes its default, http://127.0.0.1:11434`)

	for names, want := range map[string]string{
		"olama@old,olama@new":   `BENCH_RUNTIMES="olama@old,olama@new": "olama@old": "olama" before @ is not a known server; a side PRODUCT@TAG names one of ollama, vllm, llamacpp, lmstudio, sglang, mlx, tgi, sim`,
		"ollama@":               `"ollama@": a side is PRODUCT@TAG, each part of letters, digits, '.', '_' and '-' (ollama@0.6.5)`,
		"ollama@a@b":            `"ollama@a@b": a side is PRODUCT@TAG`,
		"@old":                  `"@old": a side is PRODUCT@TAG`,
		"ollama-old,ollama@old": `"ollama-old" and "ollama@old" would read the same variables (OLLAMA_OLD_URL, …): rename one`,
		"Ollama@old":            `"Ollama@old": runtime names are lower case: did you mean ollama@old?`,
	} {
		_, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": names, "OLLAMA_OLD_URL": "http://127.0.0.1:1"})
		require.Error(t, err, names)
		assert.Contains(t, err.Error(), want, names)
	}
	_, err = LoadRuntimeFrom(map[string]string{}, "mine@old")
	assert.EqualError(t, err, `runtime "mine@old": "mine" before @ is not a known server; a side PRODUCT@TAG names one of ollama, vllm, llamacpp, lmstudio, sglang, mlx, tgi, sim`)
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim@a", "SIM_A_URL": "http://127.0.0.1:1"})
	assert.EqualError(t, err, `SIM_A_URL="http://127.0.0.1:1": the simulator runs in-process and takes no URL`)
}

// Each side of the simulator reads its own settings, SIM_<TAG>_…, over
// the SIM_ ones: one side can decode slower. A bad one is named as set.
func TestSimSides(t *testing.T) {
	env := map[string]string{
		"BENCH_RUNTIMES": "sim@a,sim@b", "SIM_TTFT": "20ms",
		"SIM_B_TOKENS_PER_SEC": "360", "SIM_B_VERSION": "sim-2", "SIM_A_FLAVOR": "ollama",
	}
	st, err := LoadFrom(env)
	require.NoError(t, err, "the sides' variables are the suite's")
	require.Len(t, st.Specs, 2)
	a, b := st.Specs[0], st.Specs[1]
	require.NotNil(t, a.Sim)
	require.NotNil(t, b.Sim)
	assert.Equal(t, "", a.URL)
	assert.Equal(t, 20*time.Millisecond, a.Sim.TTFT, "SIM_TTFT is both sides'")
	assert.Equal(t, 20*time.Millisecond, b.Sim.TTFT)
	assert.Equal(t, 400.0, a.Sim.TokensPerSec)
	assert.Equal(t, 360.0, b.Sim.TokensPerSec)
	assert.Equal(t, "sim-2", b.Sim.Version)
	assert.Equal(t, "sim-2", b.Version, "SIM_B_VERSION is also the side's NAME_VERSION, as SIM_VERSION is sim's")
	assert.EqualValues(t, "ollama", a.Sim.Flavor)
	assert.EqualValues(t, "", b.Sim.Flavor)

	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim@a,sim@b", "SIM_B_TOKENS_PER_SEC": "fast"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `SIM_B_TOKENS_PER_SEC="fast"`)
	assert.NotContains(t, err.Error(), `SIM_TOKENS_PER_SEC`)
	// A side's variable of a side not named is a misspelling.
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim@a,sim@b", "SIM_C_TOKENS_PER_SEC": "1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SIM_C_TOKENS_PER_SEC is not a setting of the suite")
}
