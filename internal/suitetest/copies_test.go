package suitetest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// minCopyLines is the least length, in lines of its body, of a test
// helper that two packages may not each write: shorter ones (a one-line
// wrapper) say what they do as plainly as a call would.
const minCopyLines = 4

// A test helper is written once: no function of one package's tests has
// the same parameters and body as one of another package's (the names
// may differ). A helper two packages need goes to a test-only package
// (internal/testkit, internal/resulttest, internal/svgtest,
// internal/fixturetest). The message names each copy.
func TestNoCopiedTestHelpers(t *testing.T) {
	fset := token.NewFileSet()
	where := map[string][]string{} // by the printed parameters and body
	for dir, files := range walkPackages(t) {
		for _, file := range files.tests {
			f, err := parser.ParseFile(fset, at(file), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil || strings.HasPrefix(fn.Name.Name, "Test") || strings.HasPrefix(fn.Name.Name, "Benchmark") {
					continue
				}
				if fset.Position(fn.Body.Rbrace).Line-fset.Position(fn.Body.Lbrace).Line-1 < minCopyLines {
					continue
				}
				var b bytes.Buffer
				require.NoError(t, printer.Fprint(&b, token.NewFileSet(), &ast.FuncDecl{Recv: fn.Recv, Name: ast.NewIdent("_"), Type: fn.Type, Body: fn.Body}))
				where[b.String()] = append(where[b.String()], fmt.Sprintf("%s %s (%s)", file, fn.Name.Name, dir))
			}
		}
	}
	var copies []string
	for _, key := range slices.Sorted(maps.Keys(where)) {
		if dirs := where[key]; len(dirs) > 1 && !samePackage(dirs) {
			slices.Sort(dirs)
			copies = append(copies, strings.Join(dirs, " = "))
		}
	}
	if len(copies) > 0 {
		t.Errorf("test helpers written more than once (move each to a test-only package):\n%s", strings.Join(copies, "\n"))
	}
}

// samePackage says whether every place (file name (dir)) is in one
// package's folder.
func samePackage(places []string) bool {
	dir := func(s string) string { return s[strings.LastIndex(s, "("):] }
	for _, p := range places[1:] {
		if dir(p) != dir(places[0]) {
			return false
		}
	}
	return true
}
