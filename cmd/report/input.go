package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// noPrompt is the prompt of rows that name none (the earlier harness wrote
// no "prompt" key).
const noPrompt = "(none)"

// run is one summary JSON file, as the report shows it.
type run struct {
	File      string // as given on the command line
	Label     string // how tables and legends name the run
	ID        string
	CreatedAt string
	Platform  string
	CPU       string
	Versions  map[string]string // runtime name -> version, tidied
	Rows      []row             // prompt set to noPrompt where the file names none
	// Incomplete is set when the file says "complete": false: the run was
	// interrupted, or is still going.
	Incomplete bool
}

// row is one line of the file's "summary" list.
type row = summary.Row

// key identifies a row across runs. Model is left out on purpose: a new
// version of a runtime may come with a differently named model.
type key struct {
	Runtime, Prompt string
	Concurrency     int
}

func keyOf(r row) key { return key{r.Runtime, r.Prompt, r.Concurrency} }

// readRun reads one summary JSON file. Its errors name the file.
func readRun(path string) (*run, error) {
	f, err := summary.Read(path)
	if err != nil {
		return nil, err
	}
	r := &run{
		File: path, ID: f.RunID, CreatedAt: f.CreatedAt,
		Platform: f.Host.Platform, CPU: f.Host.CPU,
		Versions:   map[string]string{},
		Incomplete: f.Complete != nil && !*f.Complete,
	}
	for name, v := range f.Versions {
		if v != nil {
			r.Versions[name] = tidyVersion(*v)
		}
	}
	for _, rw := range f.Summary {
		if rw.Prompt == "" {
			rw.Prompt = noPrompt
		}
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
			if !seen[keyOf(rw)] {
				seen[keyOf(rw)] = true
				out = append(out, keyOf(rw))
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
		if keyOf(rw) == k {
			return rw, true
		}
	}
	return row{}, false
}
