package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// noPrompt is the prompt of rows that name none (the earlier harness wrote
// no "prompt" key).
const noPrompt = "(none)"

// run is one summary JSON file.
type run struct {
	File      string // as given on the command line
	Label     string // how tables and legends name the run
	ID        string
	CreatedAt string
	Platform  string
	CPU       string
	Versions  map[string]string // runtime name -> version, tidied
	Rows      []row
	// Incomplete is set when the file says "complete": false: the run was
	// interrupted, or is still going.
	Incomplete bool
}

// key identifies a row across runs. Model is left out on purpose: a new
// version of a runtime may come with a differently named model.
type key struct {
	Runtime, Prompt string
	Concurrency     int
}

// row is one line of the file's "summary" list. Figures that are missing
// or null are nil; the report shows them as "—".
type row struct {
	Runtime     string
	Model       string
	Prompt      string // noPrompt if the file names none
	Concurrency int

	Successes, Failures *int
	// Errors are the failures by class, as the file has them (none in
	// files of the earlier harness).
	Errors map[string]errorCount

	TTFTMean, TTFTP50, TTFTP95 *float64 // seconds
	Decode, Request, Aggregate *float64 // tokens/s, means
}

func (r row) key() key { return key{r.Runtime, r.Prompt, r.Concurrency} }

// file is what is read of a summary JSON; see internal/summary's doc for
// every key. Only "summary" is required.
type file struct {
	RunID     *string `json:"run_id"`
	CreatedAt *string `json:"created_at"`
	Host      *struct {
		Platform *string `json:"platform"`
		CPU      *string `json:"cpu"`
	} `json:"host"`
	Versions map[string]*string `json:"versions"`
	Summary  *[]jsonRow         `json:"summary"`
	Complete *bool              `json:"complete"`
}

// errorCount is one class of a row's "errors".
type errorCount struct {
	Count int    `json:"count"`
	First string `json:"first"`
}

type jsonRow struct {
	Runtime     *string `json:"runtime"`
	Model       *string `json:"model"`
	Prompt      *string `json:"prompt"`
	Concurrency *int    `json:"concurrency"`

	Successes *int `json:"successes"`
	Failures  *int `json:"failures"`

	Errors map[string]errorCount `json:"errors"`

	TTFTMean  *float64 `json:"ttft_s_mean"`
	TTFTP50   *float64 `json:"ttft_s_p50"`
	TTFTP95   *float64 `json:"ttft_s_p95"`
	Decode    *float64 `json:"decode_tps_mean"`
	Request   *float64 `json:"request_tps_mean"`
	Aggregate *float64 `json:"aggregate_output_tps_mean"`
}

// readRun reads and checks one summary JSON file. Its errors name the file.
func readRun(path string) (*run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	r, err := parseRun(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.File = path
	return r, nil
}

func parseRun(data []byte) (*run, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty file, want a summary JSON object")
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(trimmed, se.Offset)
			return nil, fmt.Errorf("not JSON: line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("not a summary JSON: the top level is %s, want an object with a \"summary\" list", kind(trimmed[0]))
	}
	var f file
	if err := json.Unmarshal(trimmed, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("not a summary JSON: %q is %s, want %s", te.Field, te.Value, goKind(te.Type.String()))
		}
		return nil, fmt.Errorf("not a summary JSON: %v", err)
	}
	if f.Summary == nil {
		return nil, errors.New(`not a summary JSON: no "summary" list`)
	}
	r := &run{Versions: map[string]string{}}
	r.ID = deref(f.RunID)
	r.Incomplete = f.Complete != nil && !*f.Complete
	r.CreatedAt = deref(f.CreatedAt)
	if f.Host != nil {
		r.Platform, r.CPU = deref(f.Host.Platform), deref(f.Host.CPU)
	}
	for name, v := range f.Versions {
		if v != nil {
			r.Versions[name] = tidyVersion(*v)
		}
	}
	seen := map[key]int{}
	for i, jr := range *f.Summary {
		switch {
		case jr.Runtime == nil || *jr.Runtime == "":
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has no "runtime"`, i)
		case jr.Concurrency == nil:
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has no "concurrency"`, i)
		case *jr.Concurrency < 1:
			return nil, fmt.Errorf(`not a summary JSON: summary[%d] has "concurrency" %d, want 1 or more`, i, *jr.Concurrency)
		}
		rw := row{
			Runtime: *jr.Runtime, Model: deref(jr.Model), Prompt: deref(jr.Prompt),
			Concurrency: *jr.Concurrency,
			Successes:   jr.Successes, Failures: jr.Failures, Errors: jr.Errors,
			TTFTMean: jr.TTFTMean, TTFTP50: jr.TTFTP50, TTFTP95: jr.TTFTP95,
			Decode: jr.Decode, Request: jr.Request, Aggregate: jr.Aggregate,
		}
		if rw.Prompt == "" {
			rw.Prompt = noPrompt
		}
		if j, dup := seen[rw.key()]; dup {
			return nil, fmt.Errorf("not a summary JSON: summary[%d] and summary[%d] are both runtime %q, prompt %q, concurrency %d",
				j, i, rw.Runtime, rw.Prompt, rw.Concurrency)
		}
		seen[rw.key()] = i
		r.Rows = append(r.Rows, rw)
	}
	return r, nil
}

// tidyVersion makes a server's version text fit a table cell: its last
// non-empty line (the seed's vLLM version came after pages of log lines),
// without the "ollama version is " of `ollama --version`.
func tidyVersion(v string) string {
	lines := strings.Split(strings.TrimSpace(v), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if i := strings.Index(last, "version is "); i >= 0 {
		last = strings.TrimSpace(last[i+len("version is "):])
	}
	return last
}

// label names the runs: by run ID, or by file name where IDs are missing
// or shared.
func label(runs []*run) {
	ids := map[string]int{}
	for _, r := range runs {
		ids[r.ID]++
	}
	names := map[string]int{}
	for _, r := range runs {
		r.Label = r.ID
		if r.ID == "" || ids[r.ID] > 1 {
			r.Label = strings.TrimSuffix(filepath.Base(r.File), filepath.Ext(r.File))
		}
		names[r.Label]++
	}
	// Still ambiguous (the same file twice): number them.
	for i, r := range runs {
		if names[r.Label] > 1 {
			r.Label = fmt.Sprintf("%s #%d", r.Label, i+1)
		}
	}
}

// keys returns every row key of the runs in first-seen order, base first.
func keys(runs []*run) []key {
	var out []key
	seen := map[key]bool{}
	for _, r := range runs {
		for _, rw := range r.Rows {
			if !seen[rw.key()] {
				seen[rw.key()] = true
				out = append(out, rw.key())
			}
		}
	}
	return out
}

// prompts returns the prompts of keys in first-seen order.
func prompts(ks []key) []string {
	var out []string
	for _, k := range ks {
		if !slices.Contains(out, k.Prompt) {
			out = append(out, k.Prompt)
		}
	}
	return out
}

// find returns r's row for k.
func (r *run) find(k key) (row, bool) {
	for _, rw := range r.Rows {
		if rw.key() == k {
			return rw, true
		}
	}
	return row{}, false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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

func kind(c byte) string {
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
	case strings.HasPrefix(t, "map") || strings.Contains(t, "struct") || strings.Contains(t, "jsonRow"):
		return "an object"
	}
	return t
}
