package plotkit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/plot"
)

func TestNiceTicks(t *testing.T) {
	labels := func(lo, hi float64) (major []string, minor int) {
		for _, tk := range (NiceTicks{}).Ticks(lo, hi) {
			if tk.Label == "" {
				minor++
			} else {
				major = append(major, tk.Label)
			}
		}
		return major, minor
	}
	major, minor := labels(0, 2500)
	assert.Equal(t, []string{"0", "500", "1000", "1500", "2000", "2500"}, major)
	assert.Equal(t, 5, minor, "halfway between each two")
	major, _ = labels(0.1, 0.7)
	assert.Equal(t, []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}, major, "no 0.6000000000000001")
	major, _ = labels(48, 61)
	assert.Equal(t, []string{"50", "52.5", "55", "57.5", "60"}, major, "a step of 2.5: 13 / 6 is above 2")
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 2600, []string{"0", "500", "1000", "1500", "2000", "2500"}},
		{0, 61.5, []string{"0", "20", "40", "60"}},
		{0, 1.3, []string{"0", "0.25", "0.5", "0.75", "1", "1.25"}},
		{0, 95, []string{"0", "20", "40", "60", "80"}},
	} {
		major, _ = labels(c.lo, c.hi)
		assert.Equal(t, c.want, major, "%v to %v", c.lo, c.hi)
	}
	assert.Equal(t, []plot.Tick{{Value: 5, Label: "5"}}, (NiceTicks{}).Ticks(5, 5), "an empty range: its one value")
}

func TestFileName(t *testing.T) {
	taken := map[string]bool{}
	for _, tc := range []struct{ name, want string }{
		{"ollama", "ollama"},
		{"ollama", "ollama-2"},
		{"ollama", "ollama-3"},
		{"my prompt/v2.1", "my_prompt_v2.1"},
		{"LM Studio", "LM_Studio"},
		{"..", "fallback"},
		{"", "fallback-2"},
		{"../etc", "_etc"},
	} {
		assert.Equal(t, tc.want, FileName(tc.name, "fallback", taken), "%q", tc.name)
	}
}
