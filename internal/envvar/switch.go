package envvar

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The words of a switch, a setting that is on or off: the one spelling
// the docs give every boolean of the suite.
const (
	On  = "on"
	Off = "off"
)

// ErrSwitch is a switch's value that is neither on nor off, nor a boolean
// written as before.
var ErrSwitch = errors.New("not on or off")

// Switch reads a switch's value v: on or off (any case, blanks around
// left out), or, as switches were written before, a boolean that
// strconv.ParseBool reads (1 or 0, true or false, t or f), for which old
// is true. Any other value is ErrSwitch.
func Switch(v string) (on, old bool, err error) {
	switch s := strings.ToLower(strings.TrimSpace(v)); s {
	case On:
		return true, false, nil
	case Off:
		return false, false, nil
	default:
		b, perr := strconv.ParseBool(s)
		if perr != nil {
			return false, false, ErrSwitch
		}
		return b, true, nil
	}
}

// ParseSwitch is Switch as an env.ParserFunc for bool fields (and *bool
// ones): Parse reads every bool with it unless opts.FuncMap has a parser
// of its own for bool.
func ParseSwitch(v string) (any, error) {
	on, _, err := Switch(v)
	return on, err
}

// Word is a switch's value as the docs spell it: on or off.
func Word(on bool) string {
	if on {
		return On
	}
	return Off
}

// OldSwitches are the variables of the struct v points to (its bool and
// *bool fields' env tags, after prefix) that environ (nil: the process's
// environment) sets in an old spelling of a switch (1, true, …), each as
// a notice that says the new one: `BENCH_IGNORE_EOS=1: write on (1/0 and
// true/false are still read)`.
func OldSwitches(v any, prefix string, environ map[string]string) []string {
	var notes []string
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("env")
		k := f.Type.Kind()
		if !ok || (k != reflect.Bool && !(k == reflect.Pointer && f.Type.Elem().Kind() == reflect.Bool)) {
			continue
		}
		key := prefix + tag
		val := Get(environ, key)
		if on, old, err := Switch(val); err == nil && old {
			notes = append(notes, fmt.Sprintf("%s=%s: write %s (%s=%s); 1/0 and true/false are still read", key, val, Word(on), key, Word(on)))
		}
	}
	return notes
}

// notices is where Say writes: each notice once in a process.
var notices = struct {
	sync.Mutex
	w      io.Writer
	prefix string
	said   map[string]bool
}{w: os.Stderr, prefix: "[inference] ", said: map[string]bool{}}

// Say writes the notice msg on a line of its own after the suite's prefix
// ("[inference] ") to standard error, unless it said msg before in this
// process: a setting read for the suite, cmd/sim and each simulator of a
// run says its notices once, however often it is loaded.
func Say(msg string) {
	notices.Lock()
	defer notices.Unlock()
	if notices.said[msg] {
		return
	}
	notices.said[msg] = true
	fmt.Fprintf(notices.w, "%s%s\n", notices.prefix, msg)
}

// SayTo makes Say write to w after prefix, as if nothing had been said
// yet, and returns what puts the earlier writer back: for a command with a
// prefix of its own, and for tests.
func SayTo(w io.Writer, prefix string) (restore func()) {
	notices.Lock()
	defer notices.Unlock()
	oldW, oldPrefix, oldSaid := notices.w, notices.prefix, notices.said
	notices.w, notices.prefix, notices.said = w, prefix, map[string]bool{}
	return func() {
		notices.Lock()
		defer notices.Unlock()
		notices.w, notices.prefix, notices.said = oldW, oldPrefix, oldSaid
	}
}
