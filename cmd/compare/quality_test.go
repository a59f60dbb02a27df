package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quality figures are said after the verdict, unjudged: a runtime
// whose agreement fell from 100% to 89% and whose decode did not move is
// "no change" with "agrees on 89.06% of tokens (base 100%)", and its exit
// status is not a regression's.
func TestVerdictSaysQuality(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, agree, exact float64) string {
		var b strings.Builder
		b.WriteString("Unit decode-p50-tok/s better=higher\nUnit agg-tok/s better=higher\nUnit ttft-ns better=lower\n" +
			"Unit agree-top1/tok better=higher\nUnit exact-right/question better=higher\n\n")
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkInference/runtime=sim/prompt=short/conc=1-2 3 1e8 ns/op %g agg-tok/s %g agree-top1/tok %g decode-p50-tok/s %g exact-right/question %d ttft-ns\n",
				300+float64(i), agree, 400+float64(i), exact, 50000000+i*1000)
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	r := runCompare(t, opts{}, write("old.txt", 1, 0.6), write("new.txt", 0.890625, 0.5))
	require.Equal(t, 0, r.code, r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.True(t, strings.HasPrefix(v[0], "verdict: sim, NEW vs OLD: no change ("), v[0])
	assert.True(t, strings.HasSuffix(v[0], "; agrees on 89.06% of tokens (base 100%), exact answers 50% (base 60%)"), v[0])
	assert.NotContains(t, r.stdout, "agree-top1/tok at", "not among the judged tests")
}
