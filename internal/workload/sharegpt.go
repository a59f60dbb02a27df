package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// The reasons a ShareGPT conversation is skipped (Workload.Skipped).
const (
	SkipModelFirst = "starts with a model turn"
	SkipNoHuman    = "no human turn"
	SkipEmptyHuman = "an empty human turn"
	SkipLateSystem = "a system turn after the first human turn"
)

// sgItem is one ShareGPT conversation as the file has it.
type sgItem struct {
	ID            json.RawMessage `json:"id"`
	Conversations *[]sgTurn       `json:"conversations"`
}

type sgTurn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// The "from" values of ShareGPT files by what they are: ShareGPT's own
// (human, gpt, system) and those other dumps use for the same.
var (
	sgUser   = []string{"human", "user"}
	sgModel  = []string{"gpt", "assistant", "chatgpt", "bing", "bard", "model"}
	sgSystem = []string{"system"}
)

const sgRoles = `human or user; gpt, assistant, chatgpt, bing, bard or model; system`

func roleOf(from string) string {
	for _, r := range sgUser {
		if from == r {
			return "user"
		}
	}
	for _, r := range sgModel {
		if from == r {
			return "model"
		}
	}
	for _, r := range sgSystem {
		if from == r {
			return "system"
		}
	}
	return ""
}

// idText is a ShareGPT id as text: a string's value, another value's JSON.
func idText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// conversation turns one ShareGPT item into an Item, or the reason it is
// skipped, or an error message (unknown roles).
func (it *sgItem) conversation() (item Item, skip, msg string) {
	var unknown []string
	for _, t := range *it.Conversations {
		if roleOf(t.From) == "" && !containsStr(unknown, t.From) {
			unknown = append(unknown, t.From)
		}
	}
	if len(unknown) > 0 {
		q := make([]string, len(unknown))
		for i, u := range unknown {
			q[i] = strconv.Quote(u)
		}
		verb := "is not a ShareGPT role"
		if len(q) > 1 {
			verb = "are not ShareGPT roles"
		}
		return Item{}, "", fmt.Sprintf(`"from" %s %s (%s)`, strings.Join(q, ", "), verb, sgRoles)
	}
	var system, pending []string
	started := false // a user or model turn has been seen
	for _, t := range *it.Conversations {
		switch roleOf(t.From) {
		case "system":
			if started {
				return Item{}, SkipLateSystem, ""
			}
			if s := strings.TrimSpace(t.Value); s != "" {
				system = append(system, t.Value)
			}
		case "model":
			if len(item.Turns) == 0 && len(pending) == 0 {
				return Item{}, SkipModelFirst, ""
			}
			if len(pending) > 0 {
				item.Turns = append(item.Turns, strings.Join(pending, "\n\n"))
				pending = pending[:0]
			}
			started = true
		case "user":
			if strings.TrimSpace(t.Value) == "" {
				return Item{}, SkipEmptyHuman, ""
			}
			pending = append(pending, t.Value)
			started = true
		}
	}
	if len(pending) > 0 {
		item.Turns = append(item.Turns, strings.Join(pending, "\n\n"))
	}
	if len(item.Turns) == 0 {
		return Item{}, SkipNoHuman, ""
	}
	item.System = strings.Join(system, "\n\n")
	item.ID = idText(it.ID)
	return item, "", ""
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (w *Workload) skip(reason string) {
	if w.Skipped == nil {
		w.Skipped = map[string]int{}
	}
	w.Skipped[reason]++
}

// readShareGPT reads a JSON array of ShareGPT conversations from br,
// whose next byte is its '['. It decodes one conversation at a time, so
// that with Options.N only the sample is kept.
func (w *Workload) readShareGPT(br *bufio.Reader, opts Options) error {
	w.Kind = Conversations
	dec := json.NewDecoder(br)
	// fail is an error at byte off of what br reads (the line found by
	// reading the file again, only when there is an error).
	fail := func(item int, id string, off int64, err error, msg string, args ...any) error {
		return &Error{What: "workload", Path: w.Path, Item: item, ID: id, Line: w.lineAt(off), Msg: fmt.Sprintf(msg, args...), Err: err}
	}
	if _, err := dec.Token(); err != nil {
		return fail(-1, "", dec.InputOffset(), err, "not JSON: %v", err)
	}
	res := newReservoir(opts)
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var it sgItem
		if err := dec.Decode(&it); err != nil {
			return fail(i, "", errOffset(err, start), err, "%s", jsonMsg(err))
		}
		if it.Conversations == nil {
			if i == 0 {
				return fail(i, "", start, nil, `an object without "conversations": %s`, expected)
			}
			return fail(i, idText(it.ID), start, nil, `no "conversations"`)
		}
		w.Total++
		item, skip, msg := it.conversation()
		switch {
		case msg != "":
			return fail(i, idText(it.ID), start, nil, "%s", msg)
		case skip != "":
			w.skip(skip)
			continue
		}
		item.Index = i
		res.add(item)
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return fail(w.Total, "", dec.InputOffset(), err, "%s", jsonMsg(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fail(-1, "", dec.InputOffset(), err, "more after the array's closing ']'")
	}
	w.Items = res.sample()
	return nil
}

// errOffset is where in the stream a json.Decoder's error in the value
// that starts at start is: a syntax error says where in the stream, a type
// error where in the value.
func errOffset(err error, start int64) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.As(err, &te):
		return start + te.Offset
	}
	return start
}

// jsonMsg words a JSON decoding error for a person.
func jsonMsg(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Sprintf("%s: a JSON %s, want %s", field, te.Value, typeWord(te.Type.Kind().String()))
	case errors.As(err, &se):
		return "not JSON: " + se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the file ends in the middle of a JSON value"
	}
	if s, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown key " + s
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func typeWord(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "a whole number"
	case "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// lineAt is the line (from 1) of the first byte at or after offset off of
// the file's content, white space and commas skipped; 0 if it cannot be
// read again.
func (w *Workload) lineAt(off int64) int {
	f, err := os.Open(w.Path)
	if err != nil {
		return 0
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	line := 1
	for i := int64(0); ; i++ {
		c, err := br.ReadByte()
		if err != nil {
			return line
		}
		if i >= off && !isSpace(c) && c != ',' {
			return line
		}
		if c == '\n' {
			line++
		}
	}
}
