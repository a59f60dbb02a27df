package fixturetest

import (
	"os"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// WriteRun writes r's summary JSON and benchstat file to dir/<ID>.json and
// dir/<ID>.txt, creating dir, and returns their paths.
func WriteRun(t TestingT, r *summary.Run, dir string) (jsonPath, txtPath string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := summary.PathsOf(dir, r.ID)
	jsonPath, txtPath = p.JSON, p.Bench
	js, err := r.File().Encode()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(jsonPath, js, 0o644))
	txt, err := r.Benchfmt()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(txtPath, txt, 0o644))
	return jsonPath, txtPath
}
