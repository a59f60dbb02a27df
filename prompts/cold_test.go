package prompts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every request of a run, and of any other run, starts differently: no
// two markers share their first word, however close their fields.
func TestColdMarkersDifferFromTheFirstToken(t *testing.T) {
	seen := map[string]Marker{}
	for _, salt := range []int64{1733140000000000000, 1733140000000000001} {
		for leaf := 1; leaf <= 6; leaf++ {
			for _, warm := range []bool{true, false} {
				for round := 1; round <= 5; round++ {
					for i := range 8 {
						m := Marker{Run: "20261202T114519Z", Salt: salt, Leaf: leaf, Warmup: warm, Round: round, Request: i}
						first := strings.Fields(m.String())[0]
						if other, dup := seen[first]; dup {
							t.Fatalf("%v and %v start alike: %s", m, other, first)
						}
						seen[first] = m
					}
				}
			}
		}
	}
	m := Marker{Run: "20261202T114519Z", Salt: 1, Leaf: 7, Round: 3, Request: 2}
	assert.Regexp(t, `^\[[0-9a-f]{12} run 20261202T114519Z L7 r3 i2\]$`, m.String())
	m.Warmup = true
	assert.Contains(t, m.String(), " w3 ")
	assert.Equal(t, m.String()+"\nWhy is the sky blue?", Cold("Why is the sky blue?", m))
}
