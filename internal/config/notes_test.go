package config

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The settings the notes name are the ones Settings reads: the names
// come from its env tags, so a renamed setting fails here.
func TestNoteSettingsAreRead(t *testing.T) {
	st := reflect.TypeFor[Settings]()
	tag := func(field string) string {
		f, ok := st.FieldByName(field)
		if !ok {
			t.Fatalf("Settings has no field %s", field)
		}
		return f.Tag.Get("env")
	}
	assert.Equal(t, tag("KeepAlive"), NoteSettings.KeepAlive)
	assert.Equal(t, tag("NumCtx"), NoteSettings.NumCtx)
	assert.Equal(t, tag("Cache"), NoteSettings.Cache)
}
