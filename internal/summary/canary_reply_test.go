package summary

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/runtimes"
)

func TestNewCanary(t *testing.T) {
	t.Parallel()
	c := NewCanary("hello", 2)
	// sha256("hello"), as `printf hello | sha256sum` prints it.
	assert.Equal(t, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", c.TextSHA256)
	assert.Equal(t, 2, c.OutputTokens)
	assert.Equal(t, "hello", c.Text)

	// A long reply keeps its first 2000 characters, whole ones, and the
	// hash of all of it.
	long := strings.Repeat("é", 1500) + strings.Repeat("x", 1000)
	c = NewCanary(long, 900)
	assert.Equal(t, CanaryTextMax, utf8.RuneCountInString(c.Text))
	assert.True(t, utf8.ValidString(c.Text))
	assert.Equal(t, strings.Repeat("é", 1500)+strings.Repeat("x", 500), c.Text)
	assert.NotEqual(t, NewCanary(c.Text, 900).TextSHA256, c.TextSHA256, "the hash is of the whole reply")
}

// A row keeps the canary of its first leaf run that has one.
func TestRowCanary(t *testing.T) {
	t.Parallel()
	r := NewRun(time.Now())
	k := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}
	rd := []Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10}}}}
	r.Add(k, rd, Telemetry{}) // its canary failed
	r.Add(k, rd, Telemetry{Canary: NewCanary("first", 1)})
	r.Add(k, rd, Telemetry{Canary: NewCanary("second", 1)})
	other := k
	other.Concurrency = 4
	r.Add(other, rd, Telemetry{})
	rows := r.Rows()
	require.Len(t, rows, 2)
	require.NotNil(t, rows[0].Canary)
	assert.Equal(t, "first", rows[0].Canary.Text)
	assert.Nil(t, rows[1].Canary)
}
