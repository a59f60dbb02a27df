package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
)

// The most rows the README's settings tables hold together, and the most
// lines of the README: what a new user reads before the first run.
const (
	maxReadmeRows  = 25
	maxReadmeLines = 250
)

// settingsRows are the rows `| `BENCH_…` | default | …` of the markdown
// file at path, by variable, each with its default: the text in code
// quotes, "" for any other text ("none", "probe the local ports", …).
func settingsRows(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	row := regexp.MustCompile("^\\| `(BENCH_[A-Z_]+)` \\| ([^|]*) \\|")
	documented := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		_, dup := documented[m[1]]
		require.False(t, dup, "%s: %s is in the table twice", path, m[1])
		def := strings.TrimSpace(m[2])
		if strings.HasPrefix(def, "`") && strings.HasSuffix(def, "`") {
			def = strings.Trim(def, "`")
		} else {
			def = ""
		}
		documented[m[1]] = def
	}
	return documented
}

// readDefaults are the variables Settings reads, each with its default as
// Settings has it: Default's (the envDefault, or a mode setting's first
// mode); a switch without one is off.
func readDefaults() map[string]string {
	read := map[string]string{}
	st := reflect.TypeFor[Settings]()
	for i := range st.NumField() {
		f := st.Field(i)
		name, ok := f.Tag.Lookup("env")
		if !ok {
			continue // not a variable: Specs, PresetSet
		}
		def := Default(f.Name)
		if def == "" && f.Type.Kind() == reflect.Bool {
			def = "off"
		}
		if name == "BENCH_OUTPUT_DIR" {
			def = DefaultOutputDir // which Load applies
		}
		read[name] = def
	}
	return read
}

// docs/settings.md's table lists exactly the variables Settings reads,
// each with its default.
func TestSettingsPageTable(t *testing.T) {
	assert.Equal(t, readDefaults(), settingsRows(t, "../../docs/settings.md"), "docs/settings.md's table against config.Settings")
}

// The README's settings table lists some of them, each with its default,
// the preset among them; its tables hold at most maxReadmeRows rows, and
// it points to docs/settings.md for the rest.
func TestReadmeSettingsTable(t *testing.T) {
	read := readDefaults()
	documented := settingsRows(t, "../../README.md")
	assert.Contains(t, documented, Var("Preset"))
	for k, def := range documented {
		if assert.Contains(t, read, k, "README.md lists %s, which Settings does not read", k) {
			assert.Equal(t, read[k], def, "README.md: %s's default", k)
		}
	}
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	section := readme[strings.Index(readme, "\n## Settings\n"):]
	section = section[:strings.Index(section[1:], "\n## ")+1]
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `") {
			rows++
		}
	}
	assert.LessOrEqual(t, rows, maxReadmeRows, "rows in the README's settings tables")
	assert.Contains(t, section, "(docs/settings.md)", "the README points to the whole table")
	assert.LessOrEqual(t, strings.Count(readme, "\n"), maxReadmeLines, "README.md's lines")
}

// presetRow is the row of docs/settings.md's presets table for p.
func presetRow(p Preset) string {
	var set []string
	for _, pv := range p.Set {
		set = append(set, "`"+Var(pv.Field)+"="+pv.Value+"`")
	}
	return "| `" + p.Name + "` | " + p.Job + " | " + strings.Join(set, ", ") + " | `" + p.Flags + "` |"
}

// docs/settings.md's presets table is Presets, row by row.
func TestSettingsPagePresets(t *testing.T) {
	b, err := os.ReadFile("../../docs/settings.md")
	require.NoError(t, err)
	var want, got []string
	for _, p := range Presets {
		want = append(want, presetRow(p))
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") && !strings.HasPrefix(line, "| `BENCH_") && strings.Count(line, " | ") == 3 &&
			strings.Contains(line, "`BENCH_") {
			got = append(got, line)
		}
	}
	assert.Equal(t, want, got, "docs/settings.md's presets")
}

// docs/settings.md's table of a runtime's variables lists each variable
// it reads (NAME_URL, …), and its table of runtime names each known server
// with its kind and default URL, then the simulator.
func TestSettingsPageRuntimes(t *testing.T) {
	b, err := os.ReadFile("../../docs/settings.md")
	require.NoError(t, err)
	page := string(b)
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(NAME_[A-Z_]+)` \\|").FindAllStringSubmatch(page, -1) {
		names = append(names, m[1])
	}
	assert.Equal(t, RuntimeVariables("name"), names, "NAME_ rows against the variables a runtime reads")

	var servers []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| (ollama|openai)[^|]* \\| (.*) \\|$").FindAllStringSubmatch(page, -1) {
		servers = append(servers, m[1])
		if m[1] == Sim {
			continue
		}
		s, ok := runtimes.KnownServer(m[1])
		if assert.True(t, ok, "docs/settings.md names %s, not a known server", m[1]) {
			assert.Equal(t, string(s.Kind), m[2], "%s's kind", m[1])
			assert.True(t, strings.HasPrefix(m[3], "`"+s.URL()+"`"), "%s's default URL: %s, want %s", m[1], m[3], s.URL())
		}
	}
	assert.Equal(t, append(append([]string{}, ProbeOrder...), Sim), servers, "the runtime names, in probe order, then sim")
}

// docs/nightly.md's rows of the workflow's runtime variables give each
// known server's default URL; a server the workflow passes no variables
// of yet is named here.
func TestNightlyRuntimeDefaults(t *testing.T) {
	notInWorkflow := map[string]bool{"tgi": true} // .github/workflows/inference-bench.yml has no TGI_*
	b, err := os.ReadFile("../../docs/nightly.md")
	require.NoError(t, err)
	page := string(b)
	for _, s := range runtimes.KnownServers {
		prefix := EnvPrefix(s.Name)
		m := regexp.MustCompile("(?m)^\\| `" + prefix + "URL`.*\\| `(http://[^`]*)`").FindStringSubmatch(page)
		if notInWorkflow[s.Name] {
			assert.Nil(t, m, "docs/nightly.md has %sURL: take %s out of notInWorkflow", prefix, s.Name)
			continue
		}
		if assert.NotNil(t, m, "docs/nightly.md has no row of %sURL", prefix) {
			assert.Equal(t, s.URL(), m[1], "docs/nightly.md: %sURL's default", prefix)
		}
	}
}
