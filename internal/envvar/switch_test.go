package envvar

import (
	"bytes"
	"testing"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSwitch(t *testing.T) {
	for _, tc := range []struct {
		in      string
		on, old bool
	}{
		{"on", true, false}, {"off", false, false}, {" ON ", true, false}, {"Off", false, false},
		{"1", true, true}, {"0", false, true}, {"true", true, true}, {"FALSE", false, true}, {"t", true, true},
	} {
		on, old, err := Switch(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.on, on, tc.in)
		assert.Equal(t, tc.old, old, tc.in)
	}
	for _, bad := range []string{"", "yes", "no", "2", "enabled"} {
		_, _, err := Switch(bad)
		assert.ErrorIs(t, err, ErrSwitch, bad)
	}
}

type switches struct {
	Trace  bool  `env:"X_TRACE"`
	Text   bool  `env:"X_TEXT"`
	Maybe  *bool `env:"X_MAYBE"`
	Number int   `env:"X_NUMBER"`
}

// Parse reads bools as switches, names the variable of a bad one, and
// OldSwitches names those written as before, each with its new word.
func TestParseSwitches(t *testing.T) {
	environ := map[string]string{"X_TRACE": "on", "X_TEXT": "1", "X_MAYBE": "false", "X_NUMBER": "1"}
	var s switches
	require.NoError(t, Parse(&s, env.Options{Environment: environ}))
	assert.True(t, s.Trace)
	assert.True(t, s.Text)
	require.NotNil(t, s.Maybe)
	assert.False(t, *s.Maybe)
	assert.Equal(t, []string{
		"X_TEXT=1: write on (X_TEXT=on); 1/0 and true/false are still read",
		"X_MAYBE=false: write off (X_MAYBE=off); 1/0 and true/false are still read",
	}, OldSwitches(&s, "", environ), "the number's 1 is no switch")

	err := Parse(&s, env.Options{Environment: map[string]string{"X_TRACE": "yes"}})
	require.Error(t, err)
	assert.Equal(t, `X_TRACE="yes": not on or off`, err.Error())
}

// Say writes a notice once, after the prefix, however often it is said.
func TestSayOnce(t *testing.T) {
	var buf bytes.Buffer
	restore := SayTo(&buf, "[x] ")
	defer restore()
	Say("a")
	Say("b")
	Say("a")
	assert.Equal(t, "[x] a\n[x] b\n", buf.String())
	restore2 := SayTo(&buf, "")
	Say("a")
	restore2()
	assert.Equal(t, "[x] a\n[x] b\na\n", buf.String(), "SayTo starts afresh")
	Say("a")
	assert.Equal(t, "[x] a\n[x] b\na\n", buf.String(), "restored with what was said")
}
