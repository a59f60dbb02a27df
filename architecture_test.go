package inference

import (
	"go/parser"
	"go/token"
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

// docs/architecture.md's import lines are the module's imports: every
// arrow it draws is an import of the code, and every import of one of the
// module's packages by another is drawn.
func TestArchitectureArrows(t *testing.T) {
	page, err := os.ReadFile("docs/architecture.md")
	require.NoError(t, err)
	drawn := drawnImports(t, string(page))

	const module = "github.com/inferencebench/inferencebench/"
	actual := map[string][]string{}
	fset := token.NewFileSet()
	add := func(from, file string) {
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			to := strings.Trim(imp.Path.Value, `"`)
			if rest, ok := strings.CutPrefix(to, module); ok && !slices.Contains(actual[from], rest) {
				actual[from] = append(actual[from], rest)
			}
		}
		if _, ok := actual[from]; !ok {
			actual[from] = nil
		}
	}
	add("inference_test.go", "inference_test.go")
	err = filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || e.Name() == "docs" || e.Name() == "results") && path != "." {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && filepath.Dir(path) != "." {
			add(filepath.ToSlash(filepath.Dir(path)), path)
		}
		return nil
	})
	require.NoError(t, err)
	for _, imps := range actual {
		slices.Sort(imps)
	}
	require.Contains(t, actual, "internal/driver", "the walk found the module's packages")
	assert.Equal(t, actual, drawn, "docs/architecture.md's import lines against the code's imports")
}

// drawnImports reads the import lines of docs/architecture.md's first code
// block: "FROM[, FROM…] ──► TO, TO…" or "… ──► none of the module", a
// line ending in a comma going on with the next.
func drawnImports(t *testing.T, page string) map[string][]string {
	t.Helper()
	_, after, ok := strings.Cut(page, "**Imports**")
	require.True(t, ok, "docs/architecture.md has its Imports picture")
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	drawn := map[string][]string{}
	var pending string
	for line := range strings.SplitSeq(block, "\n") {
		line = pending + strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, ",") {
			pending = line + " "
			continue
		}
		pending = ""
		from, to, ok := strings.Cut(line, "──►")
		require.True(t, ok, "import line %q has no arrow", line)
		var tos []string
		if to = strings.TrimSpace(to); to != "none of the module" {
			tos = strings.Split(to, ", ")
			slices.Sort(tos)
		}
		for f := range strings.SplitSeq(from, ",") {
			f = strings.TrimSpace(f)
			_, twice := drawn[f]
			require.False(t, twice, "%s has two import lines", f)
			drawn[f] = tos
		}
	}
	return drawn
}
