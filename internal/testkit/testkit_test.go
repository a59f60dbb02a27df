package testkit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a TestingT that keeps failures instead of failing.
type recorder struct{ failed []string }

func (r *recorder) Errorf(format string, args ...any) { r.failed = append(r.failed, format) }
func (r *recorder) FailNow()                          {}
func (r *recorder) Helper()                           {}

// Golden passes on the same bytes, fails on others and on a missing file,
// and with -update writes the file and passes.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "want.txt")
	var r recorder
	Golden(&r, path, []byte("x"), "go test -update")
	assert.NotEmpty(t, r.failed, "a missing file fails")

	*Update = true
	defer func() { *Update = false }()
	r = recorder{}
	Golden(&r, path, []byte("hello\n"), "go test -update")
	assert.Empty(t, r.failed)
	b, err := os.ReadFile(path)
	assert.NoError(t, err)
	assert.Equal(t, "hello\n", string(b))
	*Update = false

	r = recorder{}
	Golden(&r, path, []byte("hello\n"), "go test -update")
	assert.Empty(t, r.failed)
	Golden(&r, path, []byte("hullo\n"), "go test -update")
	assert.Len(t, r.failed, 1, "different bytes fail")
	assert.Equal(t, 3, *Ptr(3))
}

// ReadFile reads, or fails the test; Run catches a command's exit code and
// both outputs apart; Must passes a value on and panics on an error.
func TestReadFileRunMust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	assert.NoError(t, os.WriteFile(path, []byte("x\n"), 0o644))
	assert.Equal(t, "x\n", string(ReadFile(t, path)))
	r := recorder{}
	func() {
		defer func() { _ = recover() }()
		ReadFile(&r, path+".missing")
	}()
	assert.NotEmpty(t, r.failed, "a missing file fails")

	code, stdout, stderr := Run(func(o, e io.Writer) int {
		_, _ = io.WriteString(o, "out")
		_, _ = io.WriteString(e, "err")
		return 2
	})
	assert.Equal(t, []any{2, "out", "err"}, []any{code, stdout, stderr})

	assert.Equal(t, 7, Must(7, nil))
	assert.Panics(t, func() { Must(0, errors.New("bad")) })
}
