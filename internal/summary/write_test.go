package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results", "nested") // created on demand
	r := fixtureRun("0.28.0+cpu", fixtureCreated)

	jsonPath, txtPath, err := r.WriteFiles(dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "20260831T114727Z.json"), jsonPath)
	assert.Equal(t, filepath.Join(dir, "20260831T114727Z.txt"), txtPath)

	wantJSON, err := r.encode()
	require.NoError(t, err)
	wantTxt, err := r.benchfmt()
	require.NoError(t, err)
	for path, want := range map[string][]byte{jsonPath: wantJSON, txtPath: wantTxt} {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), path)
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "%s readable by others, like a file go test -o writes", path)
	}
	assert.Equal(t, []string{"20260831T114727Z.json", "20260831T114727Z.txt"}, names(t, dir), "no temporary files left")
}

// A reader never sees a partial file, however often it is rewritten.
func TestWriteJSONIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	r := fixtureRun("0.28.0+cpu", fixtureCreated)
	require.NoError(t, r.WriteJSON(path))

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				assert.NoError(t, r.WriteJSON(path))
			}
		}
	})
	for range 200 {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, json.Valid(data), "read a partial file: %d bytes", len(data))
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, []string{"run.json"}, names(t, dir), "no temporary files left")
}

// Tests run as root in CI, where permission bits stop nothing, so the
// unwritable folder is one whose parent is a regular file.
func TestWriteUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	r := fixtureRun("0.28.0+cpu", fixtureCreated)
	target := filepath.Join(blocker, "results")

	tests := []struct {
		name  string
		write func() error
		path  string
	}{
		{"json", func() error { return r.WriteJSON(filepath.Join(target, "a.json")) }, filepath.Join(target, "a.json")},
		{"benchfmt", func() error { return r.WriteBenchfmt(filepath.Join(target, "a.txt")) }, filepath.Join(target, "a.txt")},
		{"both", func() error { _, _, err := r.WriteFiles(target); return err }, filepath.Join(target, r.ID+".json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.write()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.path, "the error names the file")
		})
	}
	assert.Equal(t, []string{"blocker"}, names(t, dir))

	_, _, err := (&Run{}).WriteFiles(dir)
	assert.ErrorContains(t, err, "no ID")
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
