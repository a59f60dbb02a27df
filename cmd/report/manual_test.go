package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The manual (go doc ./cmd/report) holds the command's tables, once: its
// # Exit status rows are the statuses the code returns (its exit…
// constants, and 0), and its # Flags rows the flags it registers by name.
func TestManualTablesAreTheCodes(t *testing.T) {
	problems, err := testkit.ManualProblems(".")
	require.NoError(t, err)
	assert.Empty(t, problems, "cmd/report/doc.go against the code")
}

// fileRow is a row of the manual's table of the files report writes,
// to its name's fixed part: "report.md" is report.md, "ttft-<prompt>.svg"
// ttft, "turns.svg" turns.
var fileRow = regexp.MustCompile(`^([a-z]+(?:-[a-z]+)*)(?:-<[a-z]+>)?\.svg$|^report\.md$`)

// The manual's table of the files report writes is the code's: each
// chart the code names (the prefix of a chartSet.file call, or a whole
// file name) has its row, and each row's name is one the code builds.
func TestManualFilesAreTheCodes(t *testing.T) {
	section, err := testkit.ManualSection(".", "Files")
	require.NoError(t, err)
	named, prefixes := codeFileNames(t)
	var rows []string
	for _, row := range testkit.ManualKeys(section) {
		m := fileRow.FindStringSubmatch(row)
		if m == nil {
			continue // a usage line or an example
		}
		if m[1] == "" {
			m[1] = "report.md"
		}
		rows = append(rows, m[1])
		assert.True(t, named[m[1]] || prefixes[m[1]], "the manual's %s: the code builds no such file", row)
	}
	for name := range named {
		assert.Contains(t, rows, name, "the code writes %s; the manual's table of files has no row of it", name)
	}
}

// codeFileNames are the files the package's code names: named, the
// prefixes of chartSet.file calls and whole file names (report.md,
// turns.svg: turns); prefixes, the literals that end in "-" ("series-").
func codeFileNames(t *testing.T) (named, prefixes map[string]bool) {
	t.Helper()
	named, prefixes = map[string]bool{}, map[string]bool{}
	whole := regexp.MustCompile(`^([a-z]+(?:-[a-z]+)*)\.svg$`)
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") || path == "doc.go" {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "file" && len(call.Args) > 0 {
					if lit, ok := call.Args[0].(*ast.BasicLit); ok {
						named[strings.Trim(lit.Value, `"`)] = true
					}
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, _ := strconv.Unquote(lit.Value)
			switch m := whole.FindStringSubmatch(v); {
			case v == "report.md":
				named[v] = true
			case m != nil:
				named[m[1]] = true
			case strings.HasSuffix(v, "-") && len(v) > 1:
				prefixes[strings.TrimSuffix(v, "-")] = true
			}
			return true
		})
	}
	require.NotEmpty(t, named)
	return named, prefixes
}
