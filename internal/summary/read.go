package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
)

// Read reads a summary JSON file; its errors name the file.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Decode reads a summary JSON. It is lenient: only the "summary" list is
// required, and each row needs its "runtime" and "concurrency" (so the
// earlier harness's files read, with the keys it did not write left zero or
// nil). Its errors say where the document is wrong: "not JSON: line 3,
// column 17: …", or "not a summary JSON: …" naming the key.
func Decode(data []byte) (*File, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty file, want a summary JSON object")
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			line, col := position(trimmed, se.Offset)
			return nil, fmt.Errorf("not JSON: line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("not a summary JSON: the top level is %s, want an object with a \"summary\" list", jsonKind(trimmed[0]))
	}
	var f File
	if err := json.Unmarshal(trimmed, &f); err != nil {
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			return nil, fmt.Errorf("not a summary JSON: %q is %s, want %s", te.Field, te.Value, goKind(te.Type.String()))
		}
		return nil, fmt.Errorf("not a summary JSON: %v", err)
	}
	// What the rows must have, and what the types above cannot tell
	// apart from zero: a missing key.
	var shape struct {
		Summary *[]struct {
			Runtime     *string  `json:"runtime"`
			Prompt      string   `json:"prompt"`
			Concurrency *int     `json:"concurrency"`
			Rate        *float64 `json:"rate_rps"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(trimmed, &shape); err != nil {
		return nil, fmt.Errorf("not a summary JSON: %v", err)
	}
	if shape.Summary == nil {
		return nil, errors.New(`not a summary JSON: no "summary" list`)
	}
	type key struct {
		runtime, prompt string
		conc            int
		rate            float64
	}
	seen := map[key]int{}
	for i, r := range *shape.Summary {
		switch {
		case r.Runtime == nil || *r.Runtime == "":
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has no "runtime"`, i)
		case r.Concurrency == nil:
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has no "concurrency"`, i)
		case *r.Concurrency < 1 && (r.Rate == nil || *r.Rate <= 0):
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has "concurrency" %d, want 1 or more (or a "rate_rps" above 0)`, i, *r.Concurrency)
		}
		rate := 0.0
		if r.Rate != nil {
			rate = *r.Rate
		}
		k := key{*r.Runtime, r.Prompt, *r.Concurrency, rate}
		if j, dup := seen[k]; dup {
			prompt := r.Prompt
			if prompt == "" {
				prompt = "(none)"
			}
			return nil, fmt.Errorf("not a summary JSON: summary[%d] and summary[%d] are both runtime %q, prompt %q, concurrency %d",
				j, i, k.runtime, prompt, k.conc)
		}
		seen[k] = i
	}
	return &f, nil
}

// UnmarshalJSON reads the prompts object in its order.
func (ps *Prompts) UnmarshalJSON(b []byte) error {
	*ps = nil
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: "non-object", Type: reflect.TypeFor[Prompts]()}
	}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return err
		}
		var text string
		if err := dec.Decode(&text); err != nil {
			return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[Prompts](), Field: name.(string)}
		}
		*ps = append(*ps, Prompt{Name: name.(string), Text: text})
	}
	_, err := dec.Token()
	return err
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	// Offset counts the bytes read, the offending one included.
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n') - 1
	return line, max(col, 1)
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]") || strings.HasPrefix(t, "*[]"):
		return "a list"
	case strings.Contains(t, "string"):
		return "a string"
	case strings.Contains(t, "int"):
		return "an integer"
	case strings.Contains(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "map") || strings.Contains(t, "struct") || strings.HasPrefix(t, "summary."):
		return "an object"
	}
	return t
}
