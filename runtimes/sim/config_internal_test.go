package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shown is the default the settings table shows for a variable: a value,
// or none (off, none, echo the request), which says unset.
type shown struct {
	value string
	set   bool
}

// docsTable is docs/simulator.md, whose settings table is the one list of
// the SIM_ variables with their defaults for people.
const docsTable = "../../docs/simulator.md"

// The settings table, docs/simulator.md's, lists every SIM_ variable the
// package names, and only those, each with the code's default: the value
// shown, written out, loads the Config the defaults give (zero values
// taken for what they stand for); a default shown as no value (off, none,
// echo) must be the field's zero value.
func TestSettingsDocumented(t *testing.T) {
	vars := codeVariables(t)
	require.Contains(t, vars, "SIM_TTFT", "the variables the code names")
	rows := markdownTable(t, docsTable)
	defaults := DefaultConfig().effective()
	assert.Equal(t, vars, slices.Sorted(maps.Keys(rows)), "the variables in its settings table against those the code names")
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		row := rows[name]
		field, tagged := envField(name)
		if !row.set {
			if assert.True(t, tagged, "%s: shown with no default value", name) {
				assert.True(t, reflect.ValueOf(defaults).FieldByName(field).IsZero(),
					"%s: shown with no default value, but its default is %v", name, reflect.ValueOf(defaults).FieldByName(field))
			}
			continue
		}
		cfg, err := load(map[string]string{name: row.value})
		if assert.NoError(t, err, "%s=%s, the default shown", name, row.value) {
			assert.Equal(t, defaults, cfg.effective(), "%s=%s, the default shown, is not the code's default", name, row.value)
		}
	}
}

// The package documentation keeps no copy of the settings table: it
// points to docs/simulator.md's, and every SIM_ variable it speaks of is
// one of that table's.
func TestPackageDocPointsToTheTable(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	rows := markdownTable(t, docsTable)
	tableLines := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "//\tSIM_") || strings.HasPrefix(line, "//\tvariable ") {
			tableLines++
		}
	}
	assert.Zero(t, tableLines, "doc.go: lines of a settings table (docs/simulator.md has the one)")
	assert.True(t, strings.Contains(string(b), "docs/simulator.md's settings table"), "doc.go does not point to docs/simulator.md's settings table")
	for _, name := range simName.FindAllString(string(b), -1) {
		assert.Contains(t, rows, name, "doc.go names %s, which docs/simulator.md's table does not list", name)
	}
}

// Settings, what cmd/sim's -h shows, are the variables the package reads,
// in their order, each with a line and the default docs/simulator.md's
// table shows: a value that loads the defaults' Config, or none (in
// parentheses) for a zero value.
func TestSettingsForTheCommandLine(t *testing.T) {
	doc := markdownTable(t, docsTable)
	defaults := DefaultConfig().effective()
	var names, bools []string
	for _, s := range Settings() {
		names = append(names, s.Var)
		if s.Bool {
			bools = append(bools, s.Var)
		}
		assert.NotEmpty(t, s.Usage, "%s: no line", s.Var)
		shown := doc[s.Var]
		if !shown.set {
			assert.True(t, strings.HasPrefix(s.Default, "("), "%s: default %q, but docs/simulator.md shows none", s.Var, s.Default)
			continue
		}
		value := strings.Fields(s.Default + " ")[0]
		assert.Equal(t, shown.value, value, "%s: the default against the package documentation's", s.Var)
		cfg, err := load(map[string]string{s.Var: value})
		if assert.NoError(t, err, "%s=%s", s.Var, value) {
			assert.Equal(t, defaults, cfg.effective(), "%s=%s, the default shown, is not the code's default", s.Var, value)
		}
	}
	assert.Equal(t, variables(), names, "in the order internal/config reads them")
	assert.Equal(t, []string{"SIM_TOOLS_HELD", "SIM_CLOSE_AFTER_STREAM", "SIM_METRICS", "SIM_PROMPT_TOKENS_DETAILS"}, bools, "the booleans")
}

// effective is c as the server plays it: each field whose zero value
// stands for a default holds that default.
func (c Config) effective() Config {
	c.Flavor, c.Reset, c.PrefixCache = c.flavor(), c.resetMode(), c.prefixCacheMode()
	c.ReasoningField, c.Context = c.reasoningField(), c.ctxLen()
	c.TokensPerChunk, c.FaultEvery = c.perChunk(), c.every()
	c.ToolCalls = c.toolCalls()
	c.Quantization, c.Models, c.ModelTools = c.quantization(), c.modelsMode(), c.modelTools()
	c.ModelVision, c.Logprobs = c.modelVision(), c.logprobsMode()
	c.Version = c.version()
	return c
}

// envField is the Config field whose env tag is name.
func envField(name string) (string, bool) {
	ty := reflect.TypeFor[Config]()
	for i := range ty.NumField() {
		if f := ty.Field(i); f.Tag.Get("env") == name {
			return f.Name, true
		}
	}
	return "", false
}

var simName = regexp.MustCompile(`SIM_[A-Z0-9_]+`)

// codeVariables is every SIM_ variable the package's code names in a
// string or a struct tag: those it reads, and those its errors speak of.
func codeVariables(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, f := range packageFiles(t) {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				names = append(names, simName.FindAllString(lit.Value, -1)...)
			}
			return true
		})
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// packageFiles are the package's non-test files, parsed.
func packageFiles(t *testing.T) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	return files
}

// markdownTable reads the settings table of the markdown file: its rows
// `NAME` | default | ..., or `NAME1`, `NAME2` | default1, default2 | ...;
// a default in backquotes is a value, any other (off, none) shows none.
func markdownTable(t *testing.T, path string) map[string]shown {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "\n| variable | default |")
	require.True(t, ok, "%s: no settings table", path)
	rows := map[string]shown{}
	for _, line := range strings.Split(table, "\n")[2:] { // after the header and |---|
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		require.GreaterOrEqual(t, len(cells), 4, "%s: %s", path, line)
		names := simName.FindAllString(cells[1], -1)
		defaults := strings.Split(cells[2], ",")
		if !assert.Len(t, defaults, len(names), "%s: a default for each variable: %s", path, line) {
			continue
		}
		for i, name := range names {
			var s shown
			if _, v, ok := strings.Cut(defaults[i], "`"); ok {
				s.value, _, _ = strings.Cut(v, "`")
				s.set = true
			}
			_, dup := rows[name]
			assert.False(t, dup, "%s: %s twice", path, name)
			rows[name] = s
		}
	}
	return rows
}

// The package reads no environment: internal/config's LoadSim reads the
// SIM_ variables, and the package, and whoever embeds it, is handed a
// Config.
func TestNoEnvironmentRead(t *testing.T) {
	readers := []string{"os.Getenv", "os.LookupEnv", "os.Environ", "os.ExpandEnv",
		"envvar.Parse", "env.Parse", "env.ParseWithOptions", "env.ParseAs", "env.ParseAsWithOptions"}
	for _, f := range packageFiles(t) {
		for _, d := range f.Decls {
			in := "a declaration outside any function"
			if fd, ok := d.(*ast.FuncDecl); ok {
				in = fd.Name.Name
			}
			ast.Inspect(d, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok {
					if call := x.Name + "." + sel.Sel.Name; slices.Contains(readers, call) {
						t.Errorf("%s calls %s: the package reads no environment (internal/config's LoadSim does)", in, call)
					}
				}
				return true
			})
		}
	}
}

// SIM_LOGPROBS unset is the flavor's habit: Ollama answers the fields
// from 0.12.11, LM Studio never; a version that is no number is taken as
// new.
func TestLogprobsHabit(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want LogprobsMode
	}{
		{Config{}, LogprobsOn},
		{Config{Flavor: FlavorLMStudio}, LogprobsOff},
		{Config{Flavor: FlavorLMStudio, Logprobs: LogprobsOn}, LogprobsOn},
		{Config{Flavor: FlavorOllama}, LogprobsOn},
		{Config{Flavor: FlavorOllama, Version: "0.6.5"}, LogprobsOff},
		{Config{Flavor: FlavorOllama, Version: "0.12.10"}, LogprobsOff},
		{Config{Flavor: FlavorOllama, Version: "v0.12.11"}, LogprobsOn},
		{Config{Flavor: FlavorOllama, Version: "0.13"}, LogprobsOn},
		{Config{Flavor: FlavorOllama, Version: "0.9.0-rc1"}, LogprobsOff},
		{Config{Flavor: FlavorOllama, Version: "0.6.5", Logprobs: LogprobsOn}, LogprobsOn},
		{Config{Flavor: FlavorVLLM, Version: "0.6.5"}, LogprobsOn},
	} {
		assert.Equal(t, c.want, c.cfg.logprobsMode(), "%+v", c.cfg)
	}
}
