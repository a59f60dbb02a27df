package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages name a setting by Var(field), which panics on a field without
// an env tag: every Var call of the package's code names one, so that no
// bad value a user gives ends in a panic instead of its message.
func TestEveryVarNamesATaggedField(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	calls := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "Var" || len(call.Args) != 1 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok { // checkMode's field, a key of Modes: TestModesDefaultFirst
				return true
			}
			field, _ := strconv.Unquote(lit.Value)
			calls++
			assert.NotPanics(t, func() { assert.True(t, strings.HasPrefix(Var(field), "BENCH_"), field) }, "%s: Var(%q)", p, field)
			return true
		})
	}
	assert.Greater(t, calls, 30, "the messages' variables")
	assert.Panics(t, func() { Var("MaxTokens") }, "a field Load sets, read from no variable")
}

// Each setting of Modes names a field whose default is its first mode,
// written there only (no envDefault tag says it again): unset or empty,
// the setting loads as it, and Default says it; its message lists the
// modes as it always has.
func TestModesDefaultFirst(t *testing.T) {
	st := reflect.TypeFor[Settings]()
	unset, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	empty := map[string]string{}
	for field := range Modes {
		empty[Var(field)] = ""
	}
	blank, err := LoadFrom(empty)
	require.NoError(t, err)
	for field, modes := range Modes {
		f, ok := st.FieldByName(field)
		require.True(t, ok, field)
		_, tagged := f.Tag.Lookup("envDefault")
		assert.False(t, tagged, "%s: an envDefault tag restates the default, Modes' first", field)
		assert.Equal(t, modes[0], Default(field), field)
		assert.Equal(t, modes[0], reflect.ValueOf(unset).FieldByName(field).String(), "%s unset", field)
		assert.Equal(t, modes[0], reflect.ValueOf(blank).FieldByName(field).String(), "%s empty", field)
	}
	assert.Equal(t, "128", Default("MaxTokensDist"), "a default of a tag")
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	s := Settings{Power: "maybe", Cache: "hot", Fresh: "always"}
	for _, field := range []string{"Power", "Cache", "Fresh"} {
		s.checkMode(bad, field)
	}
	assert.Equal(t, []problem{{"BENCH_POWER", "must be auto, on or off"}, {"BENCH_CACHE", "must be cold or warm"}, {"BENCH_FRESH", "must be leaf or off"}}, ps)
}

// BENCH_PROGRESS's words are config's: unset is ProgressAuto (written
// once, no tag), 0 and false say ProgressOff, and any other value is
// kept, a file's path.
func TestProgressWords(t *testing.T) {
	f, _ := reflect.TypeFor[Settings]().FieldByName("Progress")
	_, tagged := f.Tag.Lookup("envDefault")
	assert.False(t, tagged, "an envDefault tag restates ProgressAuto")
	assert.Equal(t, ProgressAuto, Default("Progress"))
	for v, want := range map[string]string{"": ProgressAuto, "0": ProgressOff, "false": ProgressOff, "off": ProgressOff,
		"stderr": ProgressStderr, "/tmp/p.log": "/tmp/p.log"} {
		s, err := LoadFrom(map[string]string{"BENCH_PROGRESS": v})
		require.NoError(t, err)
		assert.Equal(t, want, s.Progress, "BENCH_PROGRESS=%q", v)
	}
}
