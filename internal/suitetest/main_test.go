package suitetest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is the module's path, the prefix of its packages' import paths.
const module = "github.com/inferencebench/inferencebench"

// root is the repository's root, absolute: the tests read its files and
// run the suite there.
var root string

// binDir holds the suite's test binary, built on first use; TestMain
// removes it.
var binDir string

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "suitetest:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	var err error
	if root, err = filepath.Abs(filepath.Join("..", "..")); err != nil {
		return 0, err
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return 0, fmt.Errorf("the repository root is two folders up from internal/suitetest: %w", err)
	}
	if !strings.HasPrefix(string(mod), "module "+module+"\n") {
		return 0, fmt.Errorf("%s is not the module %s", filepath.Join(root, "go.mod"), module)
	}
	if binDir, err = os.MkdirTemp("", "suitetest-"); err != nil {
		return 0, err
	}
	defer os.RemoveAll(binDir)
	return m.Run(), nil
}

// at is a path of the repository, given from its root with slashes.
func at(path string) string {
	return filepath.Join(root, filepath.FromSlash(path))
}

var (
	buildSuite sync.Once
	suiteBin   string
	suiteErr   error
)

// suite returns the root package's test binary, which runs the benchmark
// (BenchmarkInference), built with go test -c the first time a test asks.
func suite(t *testing.T) string {
	t.Helper()
	buildSuite.Do(func() {
		bin := filepath.Join(binDir, "inference.test")
		cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			suiteErr = fmt.Errorf("go test -c %s: %w\n%s", root, err, out)
			return
		}
		suiteBin = bin
		suiteErr = statSources()
	})
	require.NoError(t, suiteErr)
	return suiteBin
}

// statSources stats every file of the repository (not its hidden folders
// or results/). The binaries the tests build are built from them, and
// go test caches a test's result until a file the test opened or stated
// changes: without this, a change to a package this one does not import
// (internal/driver, cmd/sim) would leave a stale pass in the cache.
func statSources() error {
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "results") {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			_, err = os.Stat(path)
		}
		return err
	})
}

// suiteCommand is the suite's test binary run as go test runs it: in the
// repository's root, with its arguments.
func suiteCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(suite(t), args...)
	cmd.Dir = root
	return cmd
}
