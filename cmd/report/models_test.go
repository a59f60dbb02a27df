package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// modelsRun writes a summary of three runtimes whose servers said what
// they serve (lmstudio's version from LMSTUDIO_VERSION, mlx's unknown),
// with lmstudio's quantization q, and returns its path.
func modelsRun(t *testing.T, dir string, created time.Time, q string) string {
	t.Helper()
	r := summary.NewRun(created)
	r.Complete = true
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", Model: "qwen3:8b"},
		{Name: "lmstudio", Kind: "openai", Model: "qwen/qwen3-8b"},
		{Name: "mlx", Kind: "openai", Model: "mlx-community/Qwen3-8B-4bit"},
	}
	r.Versions = map[string]*string{"ollama": testkit.Ptr("0.12.3"), "lmstudio": testkit.Ptr("0.3.30"), "mlx": nil}
	r.ModelMetadata = map[string]json.RawMessage{}
	served := map[string]string{
		"ollama":   `{"family":"qwen3","parameters":"8.2B","quantization":"Q4_K_M","format":"GGUF","context":40960}`,
		"lmstudio": `{"family":"qwen3","parameters":null,"quantization":"` + q + `","format":"MLX","context":32768}`,
		"mlx":      `{"family":null,"parameters":null,"quantization":"4-bit","format":"MLX","context":null}`,
	}
	for name, s := range served {
		r.SetMetadata(name, summary.ServedKey, json.RawMessage(s))
	}
	b, err := r.File().Encode()
	require.NoError(t, err)
	path := filepath.Join(dir, r.ID+".json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// The report shows each runtime's model side by side, warns of runtimes
// that serve other weights, and names every version, NAME_VERSION's
// included, in its run header.
func TestModelsTable(t *testing.T) {
	dir := t.TempDir()
	path := modelsRun(t, dir, time.Date(2026, 12, 3, 2, 17, 0, 0, time.UTC), "4-bit")
	code, _, stderr := report("-charts=false", "-o", dir, path)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	t.Log(md)
	assert.Contains(t, md, "| lmstudio 0.3.30, ollama 0.12.3 |", "the versions in the run's header")
	assert.Contains(t, md, "## Models\n")
	assert.Contains(t, md, "| runtime | model | family | parameters | quantization | format | context |\n|---|---|---|---:|---|---|---:|\n"+
		"| ollama | qwen3:8b | qwen3 | 8.2B | Q4_K_M | GGUF | 40960 |\n"+
		"| lmstudio | qwen/qwen3-8b | qwen3 | — | 4-bit | MLX | 32768 |\n"+
		"| mlx | mlx-community/Qwen3-8B-4bit | — | — | 4-bit | MLX | — |\n")
	assert.Contains(t, md, "> **Warning: runtimes that serve other weights**: a difference between them is partly the weights'.\n>\n"+
		"> - ollama serves Q4_K_M, lmstudio serves MLX 4-bit: not the same weights\n"+
		"> - ollama serves Q4_K_M, mlx serves MLX 4-bit: not the same weights\n\n")
	assert.NotContains(t, md, "lmstudio serves MLX 4-bit, mlx", "the same quantization: no warning")
	assert.Less(t, strings.Index(md, "## Models"), strings.Index(md, "The files have no rows"), "at the top, after the runs")
}

// With several runs, a line per runtime per run, and the warnings name
// their run.
func TestModelsTableRuns(t *testing.T) {
	dir := t.TempDir()
	old := modelsRun(t, dir, time.Date(2026, 12, 2, 2, 17, 0, 0, time.UTC), "Q4_K_M")
	new := modelsRun(t, dir, time.Date(2026, 12, 3, 2, 17, 0, 0, time.UTC), "8-bit")
	code, _, stderr := report("-charts=false", "-o", dir, old, new)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, md, "| run | runtime | model | family | parameters | quantization | format | context |\n")
	assert.Contains(t, md, "| 20261202T021700Z | lmstudio | qwen/qwen3-8b | qwen3 | — | Q4_K_M | MLX | 32768 |\n")
	assert.Contains(t, md, "| 20261203T021700Z | lmstudio | qwen/qwen3-8b | qwen3 | — | 8-bit | MLX | 32768 |\n")
	assert.Contains(t, md, "> - lmstudio serves MLX 8-bit, mlx serves MLX 4-bit: not the same weights (20261203T021700Z)\n")
	assert.Contains(t, md, "> - ollama serves Q4_K_M, mlx serves MLX 4-bit: not the same weights (20261202T021700Z, 20261203T021700Z)\n", "one line for both runs")
	assert.Contains(t, md, "> - ollama serves Q4_K_M, lmstudio serves MLX 8-bit: not the same weights (20261203T021700Z)\n", "Q4_K_M on both in the base")
}

// Files written before the key have no table.
func TestNoModelsTableWithoutServed(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := report("-charts=false", "-o", dir, seed)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))), "## Models")
}
