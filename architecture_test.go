package inference

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/architecture.md's table names every package of the module, and no
// package that is gone: a package added without a row, or a row left
// behind, fails here.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	page, err := os.ReadFile("docs/architecture.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var named []string
	for _, m := range row.FindAllStringSubmatch(string(page), -1) {
		if m[1] != "inference_test.go" {
			named = append(named, m[1])
		}
	}

	var packages []string
	err = filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || e.Name() == "docs" || e.Name() == "results") && path != "." {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(path, ".go") && filepath.Dir(path) != "." {
			if dir := filepath.ToSlash(filepath.Dir(path)); !slices.Contains(packages, dir) {
				packages = append(packages, dir)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, packages, "runtimes/sim", "the walk found the module's packages")
	slices.Sort(packages)
	slices.Sort(named)
	assert.Equal(t, packages, named, "docs/architecture.md's table against the module's packages")
}
