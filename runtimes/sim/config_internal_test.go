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

// shown is the default a settings table shows for a variable: a value, or
// none (off, none, echo the request), which says unset.
type shown struct {
	value string
	set   bool
	field string // the Config field the table names, if it names one
}

// The settings tables, docs/simulator.md's and the package documentation's,
// list every SIM_ variable the package names, and only those, each with
// the code's default: the value shown, written out, loads the Config the
// defaults give (zero values taken for what they stand for); a default
// shown as no value (off, none, echo) must be the field's zero value. The
// package documentation's Config field column names the variable's field.
func TestSettingsDocumented(t *testing.T) {
	vars := codeVariables(t)
	require.Contains(t, vars, "SIM_TTFT", "the variables the code names")
	tables := []struct {
		name string
		rows map[string]shown
	}{
		{"docs/simulator.md", markdownTable(t, "../../docs/simulator.md")},
		{"the package documentation", docTable(t, "doc.go")},
	}
	defaults := DefaultConfig().effective()
	for _, table := range tables {
		t.Run(table.name, func(t *testing.T) {
			assert.Equal(t, vars, slices.Sorted(maps.Keys(table.rows)), "the variables in its settings table against those the code names")
			for _, name := range slices.Sorted(maps.Keys(table.rows)) {
				row := table.rows[name]
				field, tagged := envField(name)
				switch _, exists := reflect.TypeFor[Config]().FieldByName(row.field); {
				case row.field == "":
				case tagged:
					assert.Equal(t, field, row.field, "%s: the Config field the table names", name)
				default: // read apart (SIM_METRICS)
					assert.True(t, exists, "%s: the table names field %s, which Config has not", name, row.field)
				}
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
		})
	}
}

// Settings, what cmd/sim's -h shows, are the variables the package reads,
// in their order, each with a line and the default the package
// documentation's table shows: a value that loads the defaults' Config,
// or none (in parentheses) for a zero value.
func TestSettingsForTheCommandLine(t *testing.T) {
	doc := docTable(t, "doc.go")
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
			assert.True(t, strings.HasPrefix(s.Default, "("), "%s: default %q, but the package documentation shows none", s.Var, s.Default)
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
	c.ModelVision = c.modelVision()
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

// docTable reads the package documentation's settings table, whose
// columns start where its header's words do: variable, Config field,
// default, section. A default in parentheses shows none.
func docTable(t *testing.T, path string) map[string]shown {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	h := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "//\tvariable ") })
	require.GreaterOrEqual(t, h, 0, "%s: no settings table", path)
	header := strings.TrimPrefix(lines[h], "//\t")
	var at []int
	for _, col := range []string{"Config field", "default", "section"} {
		at = append(at, strings.Index(header, col))
	}
	require.True(t, slices.IsSorted(at) && at[0] > 0, "%s: the settings table's header: %s", path, header)
	rows := map[string]shown{}
	for _, line := range lines[h+1:] {
		line, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			break
		}
		if !assert.Greater(t, len(line), at[2], "%s: %s", path, line) {
			continue
		}
		name := strings.TrimSpace(line[:at[0]])
		s := shown{field: strings.Fields(line[at[0]:at[1]])[0]}
		if def := strings.TrimSpace(line[at[1]:at[2]]); !strings.HasPrefix(def, "(") {
			s.value, s.set = strings.Fields(def)[0], true
		}
		assert.Regexp(t, `^SIM_[A-Z0-9_]+$`, name, "%s: %s", path, line)
		_, dup := rows[name]
		assert.False(t, dup, "%s: %s twice", path, name)
		rows[name] = s
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
