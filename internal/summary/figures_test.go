package summary

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// Every key the list of figures names is a key of a summary row, of a
// number: the tools read the figures by these keys.
func TestFiguresAreRowKeys(t *testing.T) {
	kinds := map[string]reflect.Kind{}
	// The fields of the embedded Quality are the row's keys too, as
	// encoding/json writes them.
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Row]()) {
		if f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		k := f.Type.Kind()
		if k == reflect.Pointer {
			k = f.Type.Elem().Kind()
		}
		kinds[name] = k
	}
	for _, f := range figures.All {
		if f.Key == "" {
			continue
		}
		require.Contains(t, kinds, f.Key, f.Name)
		if f == figures.ServerMemory {
			assert.Equal(t, reflect.Uint64, kinds[f.Key], "bytes, counted")
			continue
		}
		assert.Equal(t, reflect.Float64, kinds[f.Key], "%s: %s", f.Name, f.Key)
	}
	for _, k := range []string{figures.KeySuccesses, figures.KeyFailures, figures.KeyShortOutputs, figures.KeyModelLoads, figures.KeyTruncatedPrompts} {
		assert.Equal(t, reflect.Int, kinds[k], k)
	}
	// And a row written has them under those keys.
	one := 1.5
	var back map[string]json.RawMessage
	data, err := json.Marshal(Row{TTFTP50: &one, DecodeTPSMean: &one})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	assert.JSONEq(t, "1.5", string(back[figures.TTFTP50.Key]))
	assert.JSONEq(t, "1.5", string(back[figures.Decode.Key]))
}
