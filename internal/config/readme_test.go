package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's settings table lists exactly the variables Settings reads,
// each with its default as Settings has it: a default in code quotes is
// Default's (the envDefault, or a mode setting's first mode) (a switch without one is written `0`), any other text
// means there is none.
func TestReadmeSettingsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	row := regexp.MustCompile("^\\| `(BENCH_[A-Z_]+)` \\| ([^|]*) \\|")
	documented := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		_, dup := documented[m[1]]
		require.False(t, dup, "%s is in the README's table twice", m[1])
		def := strings.TrimSpace(m[2])
		if strings.HasPrefix(def, "`") && strings.HasSuffix(def, "`") {
			def = strings.Trim(def, "`")
		} else {
			def = "" // "none", "probe the local ports", …
		}
		documented[m[1]] = def
	}

	read := map[string]string{}
	st := reflect.TypeFor[Settings]()
	for i := range st.NumField() {
		f := st.Field(i)
		name, ok := f.Tag.Lookup("env")
		if !ok {
			continue // not a variable: Specs
		}
		def := Default(f.Name)
		if def == "" && f.Type.Kind() == reflect.Bool {
			def = "0"
		}
		if name == "BENCH_OUTPUT_DIR" {
			def = DefaultOutputDir // which Load applies
		}
		read[name] = def
	}
	assert.Equal(t, read, documented, "README.md's settings table against config.Settings")
}
