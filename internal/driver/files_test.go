package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reader never sees a partial file, however often it is rewritten.
func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	data := []byte(`{"summary": [{"runtime": "a", "concurrency": 1}]}` + "\n")
	require.NoError(t, writeAtomic(path, data))

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				assert.NoError(t, writeAtomic(path, data))
			}
		}
	})
	for range 200 {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, json.Valid(got), "read a partial file: %d bytes", len(got))
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, []string{"run.json"}, names(t, dir), "no temporary files left")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "readable by others, like a file go test -o writes")
}

// The output folder is created and proved writable before any request;
// what cannot hold the results is an error naming the setting. Tests run
// as root in CI, where permission bits stop nothing, so the unwritable
// places are under a regular file, and /proc.
func TestOpenFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	require.NoError(t, os.WriteFile(file, nil, 0o644))

	for _, tt := range []struct{ dir, want string }{
		{file, `BENCH_OUTPUT_DIR="` + file + `": not a folder`},
		{filepath.Join(file, "results"), `BENCH_OUTPUT_DIR="` + filepath.Join(file, "results") + `": cannot create the folder: mkdir: not a directory`},
		{"/proc/forbidden", `BENCH_OUTPUT_DIR="/proc/forbidden": cannot create the folder: mkdir: `},
		{"/proc", `BENCH_OUTPUT_DIR="/proc": cannot write there: open: `},
	} {
		if _, err := os.Stat("/proc/self"); err != nil && filepath.Dir(tt.dir) == "/" {
			continue // no /proc here
		}
		_, err := openFiles(tt.dir, "20261202T120000Z")
		if assert.Error(t, err, tt.dir) {
			assert.Contains(t, err.Error(), tt.want)
		}
	}

	out := filepath.Join(dir, "results", "nested")
	f, err := openFiles(out, "20261202T120000Z")
	require.NoError(t, err)
	assert.DirExists(t, out, "created on demand")
	assert.Empty(t, names(t, out), "the check leaves nothing behind, and no file is written yet")
	assert.Equal(t, filepath.Join(out, "20261202T120000Z.json"), f.json)
	assert.Equal(t, filepath.Join(out, "20261202T120000Z.requests.jsonl"), f.records)
}

// A run started in the same second as an earlier one gets -2, -3, …; an
// error other than "not there" is an error, not a reason to try the next
// name for ever.
func TestFreeID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, err := freeID(dir, "20261202T120000Z")
	require.NoError(t, err)
	assert.Equal(t, "20261202T120000Z", id)
	for _, name := range []string{"20261202T120000Z.json", "20261202T120000Z-2.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	id, err = freeID(dir, "20261202T120000Z")
	require.NoError(t, err)
	assert.Equal(t, "20261202T120000Z-3", id)
	// A run that was stopped before its first summary left only records.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20261202T120000Z-3.requests.jsonl"), nil, 0o644))
	f, err := openFiles(dir, "20261202T120000Z")
	require.NoError(t, err)
	assert.Equal(t, "20261202T120000Z-4", f.id)
	assert.Equal(t, filepath.Join(dir, "20261202T120000Z-4.txt"), f.txt)

	file := filepath.Join(dir, "afile")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	done := make(chan error, 1)
	go func() { _, err := freeID(file, "x"); done <- err }()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "not a directory")
	case <-time.After(10 * time.Second):
		t.Fatal("freeID did not return")
	}
}

// An interrupt waits for a write under way, but not for ever.
func TestFreeze(t *testing.T) {
	t.Parallel()
	f, err := openFiles(t.TempDir(), "20261202T120000Z")
	require.NoError(t, err)
	f.lock <- struct{}{} // a write that hangs
	start := time.Now()
	assert.False(t, f.freeze(50*time.Millisecond))
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	<-f.lock // the write ends
	assert.True(t, f.freeze(time.Second))
	select {
	case f.lock <- struct{}{}:
		t.Fatal("a write could start after the freeze")
	default:
	}
}

// Records held for their energy are written by writeHeld, after the
// ones appended before them; an interrupt (freeze) writes them without
// energy rather than lose them.
func TestHeldRecords(t *testing.T) {
	t.Parallel()
	rec := func(round int) []records.Record { return []records.Record{{Runtime: "sim", Round: round}} }
	rounds := func(f *files) []int {
		recs, err := records.Read(f.records)
		require.NoError(t, err)
		var out []int
		for _, r := range recs {
			out = append(out, r.Round)
		}
		return out
	}

	f, err := openFiles(t.TempDir(), "20261202T120000Z")
	require.NoError(t, err)
	require.NoError(t, f.appendRecords(rec(1)))
	f.hold(rec(2))
	f.hold(rec(3))
	require.NoError(t, f.appendRecords(rec(4)), "a record appended while others are held goes after them")
	f.hold(rec(5))
	assert.Equal(t, []int{1, 2, 3, 4}, rounds(f))
	require.NoError(t, f.writeHeld(nil))
	assert.Equal(t, []int{1, 2, 3, 4, 5}, rounds(f))

	f, err = openFiles(t.TempDir(), "20261202T120000Z")
	require.NoError(t, err)
	f.hold(rec(1))
	f.hold(rec(2))
	assert.True(t, f.freeze(time.Second))
	assert.Equal(t, []int{1, 2}, rounds(f), "the interrupted leaf's rounds are kept")
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
