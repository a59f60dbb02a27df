package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// Seven nights agreeing on 98% of tokens, then one at 88% with the same
// speed: the agreement regressed (-10%), and -fail-on-regression fails
// on it though nothing got slower.
func TestQualityRegressionFails(t *testing.T) {
	dir := t.TempDir()
	for n := range 8 {
		agree := 0.98
		if n == 7 {
			agree = 0.88
		}
		nightOf(t, dir, n, noise[min(n, len(noise)-1)], nil, func(f *summary.File) {
			f.Summary[0].Quality = summary.Quality{Reference: "ollama", AgreeBy: "token", AgreeTop1Ratio: testkit.Ptr(agree)}
		})
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCmd("-o", out, "-fail-on-regression", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "mac-studio · mlx · qwen3-8b · short · conc=1 · cold: top-1 agreement -10.2%")
	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	s := v.find(t, "mlx", 1, 0)
	a := s.figure(t, "agree-top1")
	assert.Equal(t, "regression", a.Verdict)
	require.NotNil(t, a.Latest)
	assert.InDelta(t, 0.88, *a.Latest, 1e-12)
	assert.Equal(t, "unchanged", s.figure(t, "decode").Verdict)
}
