package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// Runs that sent images have the TTFT-by-image-size section: each
// runtime and load's rows of every run, from the fewest pixels a request
// sent to the most, the run without images first; a run without images
// alone has no such section.
func TestImagesSection(t *testing.T) {
	dir := t.TempDir()
	write := func(name, id, images string, ttft float64) string {
		path := filepath.Join(dir, name)
		extra := ""
		if images != "" {
			extra = `,"images":` + images
		}
		require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"`+id+`","summary":[
 {"runtime":"vllm","prompt":"p","concurrency":1,"requests":4,"successes":4,"ttft_s_p50":`+ftoa(ttft)+`,"ttft_s_mean":`+ftoa(ttft)+`,"ttft_s_p95":`+ftoa(ttft*1.5)+`,"prompt_tokens_mean":100`+extra+`}]}`), 0o644))
		return path
	}
	big := write("big.json", "20261203T000003Z", `2,"image_size":"512x512"`, 0.4)
	none := write("none.json", "20261203T000001Z", "", 0.05)
	small := write("small.json", "20261203T000002Z", `1,"image_size":"256x256"`, 0.1)

	code, _, stderr := report("-o", dir, big, none, small)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	i := strings.Index(md, "## TTFT by image size\n")
	require.GreaterOrEqual(t, i, 0, md)
	assert.Contains(t, md[i:], "| runtime | load | run | images | requests | TTFT p50 ms | TTFT mean ms | TTFT p95 ms | prompt tok |\n"+
		"|---|---|---|---|---:|---:|---:|---:|---:|\n"+
		"| vllm | conc 1 | 20261203T000001Z | none | 4 | 50.0 | 50.0 | 75.0 | 100.0 |\n"+
		"|  | | 20261203T000002Z | 1 × 256x256 | 4 | 100.0 | 100.0 | 150.0 | 100.0 |\n"+
		"|  | | 20261203T000003Z | 2 × 512x512 | 4 | 400.0 | 400.0 | 600.0 | 100.0 |\n")

	plainDir := t.TempDir()
	code, _, stderr = report("-o", plainDir, none)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(plainDir, "report.md"))), "TTFT by image size")
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
