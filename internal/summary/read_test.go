package summary

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The earlier harness's file reads, with what it did not write left zero.
func TestReadSeed(t *testing.T) {
	f, err := Read(seedPath)
	require.NoError(t, err)
	assert.Equal(t, "20260831T114727Z", f.RunID)
	assert.Nil(t, f.Complete, "the earlier harness wrote no complete key")
	assert.Equal(t, "macOS-15.6-arm64-arm-64bit", f.Host.Platform)
	require.NotNil(t, f.Arguments.Seed)
	assert.Equal(t, 42, *f.Arguments.Seed)
	assert.Equal(t, "warm", f.Arguments.CacheMode(), "written before BENCH_CACHE: every request sent the same prompt")
	assert.Equal(t, stats.Number(600), f.Arguments.Timeout)
	assert.Equal(t, []string{"short", "medium", "code"}, []string{f.Prompts[0].Name, f.Prompts[1].Name, f.Prompts[2].Name}, "prompts in the file's order")
	require.Len(t, f.Summary, 2)
	r := f.Summary[1]
	assert.Equal(t, "vllm-metal", r.Runtime)
	assert.Equal(t, "", r.Prompt)
	assert.Equal(t, 4, r.Concurrency)
	assert.Equal(t, 20, r.Successes)
	require.NotNil(t, r.AggregateTPSMean)
	assert.InDelta(t, 54.66256367620249, *r.AggregateTPSMean, 1e-12)
	assert.Nil(t, r.PromptTPSMean)
	assert.Nil(t, r.OutputTokensMin)
	assert.Contains(t, *f.Versions["vllm"], "0.28.0+cpu")
}

// What the suite writes reads back into the same file, byte for byte.
func TestReadRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	require.NoError(t, err)
	f, err := Decode(data)
	require.NoError(t, err)
	require.NotNil(t, f.Complete)
	again, err := f.Encode()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\n", "empty file, want a summary JSON object"},
		{"goos: linux\n", "not JSON: line 1, column 1: invalid character 'g'"},
		{"{\n  \"summary\": [\n    {\"runtime\": x}\n  ]\n}\n", "not JSON: line 3, column 17: invalid character 'x'"},
		{"[]", `not a summary JSON: the top level is a list, want an object with a "summary" list`},
		{`{"name": "x"}`, `not a summary JSON: no "summary" list`},
		{`{"summary": {}}`, `not a summary JSON: "summary" is object, want a list`},
		{`{"summary": [{"concurrency": 1}]}`, `not a summary JSON: summary[0] has no "runtime"`},
		{`{"summary": [{"runtime": "a", "concurrency": 1}, {"runtime": "a"}]}`, `not a summary JSON: summary[1] has no "concurrency"`},
		{`{"summary": [{"runtime": "a", "concurrency": 0}]}`, `not a summary JSON: summary[0] has "concurrency" 0, want 1 or more`},
		{`{"summary": [{"runtime": "a", "concurrency": "4"}]}`, `not a summary JSON: "summary.concurrency" is string, want an integer`},
		{`{"summary": [{"runtime": "a", "concurrency": 4, "ttft_s_mean": "0.3"}]}`, `not a summary JSON: "summary.ttft_s_mean" is string, want a number`},
		{`{"prompts": ["a"], "summary": []}`, `not a summary JSON: "prompts" is non-object, want an object`},
		{`{"summary": [{"runtime": "a", "concurrency": 4}, {"runtime": "a", "concurrency": 4}]}`,
			`not a summary JSON: summary[0] and summary[1] are both runtime "a", prompt "(none)", concurrency 4`},
	} {
		_, err := Decode([]byte(tt.in))
		if assert.Error(t, err, tt.in) {
			assert.Contains(t, err.Error(), tt.want)
		}
	}
	_, err := Read(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "missing.json")
}
