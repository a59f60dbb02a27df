// Package fixturetest checks committed JSON fixtures against freshly
// generated ones, for tests whose fixtures are written from the summary
// format and must follow it.
package fixturetest

import (
	"encoding/json"
	"strconv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestingT is what Subset needs of a *testing.T.
type TestingT interface {
	require.TestingT
	Helper()
}

// Subset checks that every key of the generated JSON has the committed
// file's value, at any depth, and that lists have the same length. A key
// the format gains does not make the file stale; a changed or removed one
// does. update is the command that regenerates the file.
func Subset(t TestingT, path string, committed, generated []byte, update string) {
	t.Helper()
	subset(t, path, decode(t, committed), decode(t, generated), update)
}

func decode(t TestingT, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}

func subset(t TestingT, path string, want, got any, update string) {
	t.Helper()
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !assert.True(t, ok, "%s: is an object, generated is not: %s", path, update) {
			return
		}
		for k, v := range g {
			wv, ok := w[k]
			if assert.True(t, ok, "%s.%s is gone from the summary format: %s", path, k, update) {
				subset(t, path+"."+k, wv, v, update)
			}
		}
	case []any:
		w, ok := want.([]any)
		if !assert.True(t, ok, "%s: is a list, generated is not: %s", path, update) ||
			!assert.Len(t, g, len(w), "%s is stale: %s", path, update) {
			return
		}
		for i := range g {
			subset(t, path+"["+strconv.Itoa(i)+"]", w[i], g[i], update)
		}
	default:
		assert.Equal(t, want, got, "%s is stale: %s", path, update)
	}
}
