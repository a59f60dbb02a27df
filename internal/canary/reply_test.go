package canary

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestNewCanary(t *testing.T) {
	t.Parallel()
	c := New("hello", 2)
	// sha256("hello"), as `printf hello | sha256sum` prints it.
	assert.Equal(t, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", c.TextSHA256)
	assert.Equal(t, 2, c.OutputTokens)
	assert.Equal(t, "hello", c.Text)

	// A long reply keeps its first 2000 characters, whole ones, and the
	// hash of all of it.
	long := strings.Repeat("é", 1500) + strings.Repeat("x", 1000)
	c = New(long, 900)
	assert.Equal(t, TextMax, utf8.RuneCountInString(c.Text))
	assert.True(t, utf8.ValidString(c.Text))
	assert.Equal(t, strings.Repeat("é", 1500)+strings.Repeat("x", 500), c.Text)
	assert.NotEqual(t, New(c.Text, 900).TextSHA256, c.TextSHA256, "the hash is of the whole reply")
}
