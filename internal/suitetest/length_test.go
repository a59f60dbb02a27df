package suitetest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Length limits of the code that is not tests (issue 39): a function
// longer than maxFuncLines is one a reader has to hold whole in mind, so at
// most maxLongFuncs may be (each saying why in its comment); a file longer
// than maxFileLines says why, in a comment line of its own ("// This file
// is long because …") or of its package ("// config.go is long because …").
const (
	maxFuncLines = 80
	maxLongFuncs = 3
	maxFileLines = 600
	longReason   = "is long because"
)

// TestFunctionLengths fails when more than maxLongFuncs functions of the
// code exceed maxFuncLines lines (from func to the closing brace), or a
// file of the code exceeds maxFileLines lines with no reason; the message
// lists the offenders with their lengths.
func TestFunctionLengths(t *testing.T) {
	fset := token.NewFileSet()
	var longFuncs, longFiles []string
	for _, files := range walkPackages(t) {
		for _, file := range files.code {
			src, err := os.ReadFile(at(file))
			require.NoError(t, err)
			f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
			require.NoError(t, err)
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				lines := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Pos()).Line + 1
				if lines > maxFuncLines {
					longFuncs = append(longFuncs, fmt.Sprintf("%s %s: %d lines", file, funcName(fn), lines))
				}
			}
			if lines := fset.File(f.Pos()).LineCount(); lines > maxFileLines && !saysWhyLong(t, file, files.code) {
				longFiles = append(longFiles, fmt.Sprintf("%s: %d lines", file, lines))
			}
		}
	}
	slices.Sort(longFuncs)
	slices.Sort(longFiles)
	assert.LessOrEqual(t, len(longFuncs), maxLongFuncs,
		"functions over %d lines, at most %d may be:\n%s", maxFuncLines, maxLongFuncs, strings.Join(longFuncs, "\n"))
	assert.Empty(t, longFiles,
		"files over %d lines without a comment line saying %q (this file's, or its package's naming it):\n%s",
		maxFileLines, longReason, strings.Join(longFiles, "\n"))
}

// funcName is a function's name, a method's with its receiver's type.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if index, ok := typ.(*ast.IndexExpr); ok {
		typ = index.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// saysWhyLong reports whether file has a comment line "This file is long
// because", or a file of its package one naming it ("name.go is long
// because").
func saysWhyLong(t *testing.T, file string, pkg []string) bool {
	t.Helper()
	for _, other := range pkg {
		src, err := os.ReadFile(at(other))
		require.NoError(t, err)
		for _, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "//") {
				continue
			}
			if other == file && strings.Contains(line, "This file "+longReason) ||
				strings.Contains(line, path.Base(file)+" "+longReason) {
				return true
			}
		}
	}
	return false
}
