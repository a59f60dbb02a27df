package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An input length's prompt name reads back as the length it names, and
// only its own spelling does: one rule both ways.
func TestInputName(t *testing.T) {
	for spec, name := range map[string]string{
		"512":               "in512",
		"8k":                "in8192",
		"normal:1024,256":   "in-normal-1024-256",
		"normal:1k,0.5":     "in-normal-1024-0.5",
		"uniform:128-2048":  "in-uniform-128-2048",
		"uniform:2k-2k":     "in-uniform-2048-2048",
		"Normal:1024, 256 ": "in-normal-1024-256",
	} {
		d, err := ParseDistribution(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, name, InputName(d), spec)
		back, ok := ParseInputName(name)
		require.True(t, ok, name)
		assert.Equal(t, d.String(), back.String(), name)
	}
	for _, name := range []string{"in", "in0", "in0512", "in-512", "in-normal-1024", "in-normal-1k-256", "in-uniform-2048-128",
		"in-lognormal-5-1", "in-normal-1024-256-", "input", "short", "in-uniform-0-5"} {
		_, ok := ParseInputName(name)
		assert.False(t, ok, name)
	}
}

// ParseLength is every length's parser: "k" is 1024, a fraction or a
// word is no length, and its errors say which.
func TestParseLength(t *testing.T) {
	for s, want := range map[string]int{"512": 512, " 8k ": 8192, "2K": 2048, "0": 0} {
		n, err := ParseLength(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, n, s)
	}
	for s, msg := range map[string]string{
		"1.5k": `"1.5k" is not a whole number of tokens (e.g. 512, 8k)`,
		"abc":  `"abc" is not a number of tokens (e.g. 512, 8k)`,
		"-512": `"-512" is below 0`,
		"":     `"" is not a number of tokens`,
		"2e9":  `"2e9" is not a whole number of tokens`,
	} {
		_, err := ParseLength(s)
		assert.ErrorContains(t, err, msg, s)
	}
}
