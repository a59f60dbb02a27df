package runtimes_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// runtimes is a client that knows nothing of the suite: no string its
// code holds (its messages, its errors) names one of the suite's
// variables (BENCH_…); the driver and config word those. Comments may
// say which setting reaches a field; tests are not looked at.
func TestNoSuiteVariableInMessages(t *testing.T) {
	for _, dir := range []string{".", "sim"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, src, 0)
			require.NoError(t, err)
			ast.Inspect(file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "BENCH_") {
					t.Errorf("%s: a string names a suite variable: %s", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
	}
}

// A request with tools through another API than the chat fails before
// it is sent with an error the caller can tell (ErrToolsChatOnly, a
// *ToolsAPIError naming the API), worded without any suite variable.
func TestToolsOtherAPIError(t *testing.T) {
	srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 2000})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, api := range []runtimes.API{runtimes.APICompletions, runtimes.APIResponses, runtimes.APIMessages, runtimes.APIEmbeddings} {
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 5 * time.Second, API: api})
		require.NoError(t, err)
		res := rt.Do(t.Context(), runtimes.Request{Prompt: "hi", MaxTokens: 4, Tools: []byte(`[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`)})
		require.Error(t, res.Err, api)
		assert.ErrorIs(t, res.Err, runtimes.ErrToolsChatOnly, api)
		var te *runtimes.ToolsAPIError
		require.ErrorAs(t, res.Err, &te, api)
		assert.Equal(t, api, te.API)
		assert.NotContains(t, res.Err.Error(), "BENCH_", api)
		assert.Contains(t, res.Err.Error(), "not "+string(api), api)
	}
}
