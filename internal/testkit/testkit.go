// Package testkit holds what the project's tests share and import
// nothing of the project for: the -update flag, golden files, pointers,
// reading a file, running a command's entry point and reading a
// command's manual (its doc comment) against its code.
// It is imported by tests only.
package testkit

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Update is the -update flag of every test binary that imports testkit:
// rewrite the golden files and fixtures in testdata rather than compare.
var Update = flag.Bool("update", false, "rewrite the golden files and fixtures in testdata")

// TestingT is what Golden needs of a *testing.T.
type TestingT interface {
	require.TestingT
	Helper()
}

// Golden compares got with the file at path; with -update it writes got
// there (creating its folder) instead. how is the command that does so,
// for the message of a stale file.
func Golden(t TestingT, path string, got []byte, how string) {
	t.Helper()
	if *Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s writes it", how)
	assert.Equal(t, string(want), string(got), "%s differs: run %s and review the diff", path, how)
}

// Ptr returns a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }

// ReadFile is the bytes of the file at path; a test that cannot read it
// fails.
func ReadFile(t TestingT, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// Run calls a command's entry point with buffers for its output and
// returns its exit code, stdout and stderr.
func Run(command func(stdout, stderr io.Writer) int) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = command(&out, &errs)
	return code, out.String(), errs.String()
}

// Must is v, for a call that cannot fail in a test's own data; it panics
// if it did.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
