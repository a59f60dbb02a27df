package fixturetest

import (
	"os"

	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
)

// BenchNames returns the benchmark names in the benchstat file at path, in
// order, and fails t on any line benchfmt cannot read.
func BenchNames(t TestingT, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var names []string
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			names = append(names, string(rec.Name))
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", path, rec)
		}
	}
	require.NoError(t, r.Err())
	return names
}
