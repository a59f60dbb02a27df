package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// discovery are the functions that find the runtimes, whose messages move
// with them out of the driver (issue 39 point 1); they are left to that
// move.
var discovery = []string{"addNamed", "checkSameServer", "addProbed"}

// The driver's messages take the variables they name from config's tags
// (vars.go): no string of its code spells a BENCH_ variable, so that a
// renamed setting cannot leave a message naming one the suite no longer
// reads.
func TestMessagesNameVariablesFromTags(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	spelt := regexp.MustCompile(`BENCH_[A-Z_]+`)
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			in := "a declaration"
			if fd, ok := d.(*ast.FuncDecl); ok {
				in = fd.Name.Name
			}
			if slices.Contains(discovery, in) {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v := spelt.FindString(lit.Value); v != "" {
						t.Errorf("%s: %s spells %s in %s: take it from config.Var (vars.go)", p, in, v, lit.Value)
					}
				}
				return true
			})
		}
	}
}
