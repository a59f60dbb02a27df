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

// The server's memory (server-rss-B) is said beside the verdict, the
// largest centre over the leaves on each side, unjudged: a runtime's
// cost, not a speed.
func TestVerdictSaysMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, conc1, conc4 float64) string {
		var b strings.Builder
		b.WriteString("Unit decode-p50-tok/s better=higher\nUnit agg-tok/s better=higher\nUnit ttft-ns better=lower\n" +
			"Unit server-rss-B better=lower\n\n")
		for i := range 6 {
			for c, rss := range map[int]float64{1: conc1, 4: conc4} {
				fmt.Fprintf(&b, "BenchmarkInference/runtime=ollama/prompt=short/conc=%d-2 3 1e8 ns/op %g agg-tok/s %g decode-p50-tok/s %g server-rss-B %d ttft-ns\n",
					c, 300+float64(i), 400+float64(i), rss+float64(i), 50000000+i*1000)
			}
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	r := runCompare(t, opts{}, write("old.txt", 150<<20, 160<<20), write("new.txt", 2<<30, 1<<30))
	require.Equal(t, 0, r.code, r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.True(t, strings.HasSuffix(v[0], "; the server held 2.0 GiB at most (base 160 MiB)"), v[0])
	assert.NotContains(t, r.stdout, "server-rss-B at", "not among the judged tests")
}
