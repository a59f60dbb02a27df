package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
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
	Host      string            // host.label: BENCH_HOST_LABEL or the host name, "" before it
	Versions  map[string]string // runtime name -> version, tidied
	Rows      []row             // prompt set to noPrompt where the file names none
	// Incomplete is set when the file says "complete": false: the run was
	// interrupted, or is still going.
	Incomplete bool
	// Cache is arguments.cache, "warm" for files written before the key
	// existed (summary.Arguments.CacheMode).
	Cache string
	// SLO is arguments.slo, "" when not set.
	SLO string
	// Sweep is arguments.sweep, nil when the run swept no concurrency.
	Sweep *summary.Sweep
	// Fresh is arguments.fresh ("leaf", "off"; "" before it existed), and
	// Runtimes the file's runtimes, with how each was made fresh and its
	// control.
	Fresh    string
	Runtimes []summary.RuntimeInfo
	// Turns is arguments.turns, the turns of each conversation: 1 for
	// runs of single requests, and for files written before the key
	// existed (0); SharedPrefix is arguments.shared_prefix, the tokens of
	// the system message every request began with (0: none).
	Turns, SharedPrefix int
	// API is arguments.api ("chat" where absent), Images arguments.images
	// ("" for none) and EmbedBatch arguments.embed_batch (1 where absent):
	// what else each request asked.
	API, Images string
	EmbedBatch  int
	// IdlePowerW and IdlePowerWSD are host.idle_power_w and its spread,
	// the baseline of net energy; nil without one.
	IdlePowerW, IdlePowerWSD *float64
	// Samples are the leaf runs' values from the .txt beside the file
	// (samples.go), nil without one; SamplesErr is why they could not be
	// read.
	Samples    samples
	SamplesErr error
	// CanaryTexts are the whole texts of the run's canary replies, by
	// their SHA-256, from its request records (nil without them);
	// CanaryErr is why they could not be read.
	CanaryTexts map[string]string
	CanaryErr   error
	// Served is what each runtime's server said it serves
	// (model_metadata.<runtime>.served), by runtime name; a runtime
	// without it is absent.
	Served map[string]summary.Served
}

// row is one line of the file's "summary" list, with the keys the file
// wrote for it: a count such as short_outputs reads as 0 both when it was
// zero and when the file predates it, and only the keys tell them apart.
type row struct {
	summary.Row
	keys map[string]bool
	// batch is the inputs each request of an embeddings row sent
	// (arguments.embed_batch, 1 where absent), 0 in a row of another API.
	batch int
}

// has reports whether the file wrote the key for the row.
func (r row) has(key string) bool { return r.keys[key] }

// key identifies a row across runs. Model is left out on purpose: a new
// version of a runtime may come with a differently named model. A
// closed-loop row has a concurrency and Rate 0; an open-loop row (rate_rps
// set) has concurrency 0 and its rate.
type key struct {
	Runtime, Prompt string
	Concurrency     int
	Rate            float64
}

func keyOf(r row) key {
	k := key{Runtime: r.Runtime, Prompt: r.Prompt, Concurrency: r.Concurrency}
	if r.RateRPS != nil && *r.RateRPS > 0 {
		k.Rate = *r.RateRPS
	}
	return k
}

// open reports whether k is an open-loop row, keyed by its rate.
func (k key) open() bool { return k.Rate > 0 }

// load names k's load for a table cell: the concurrency, or the rate.
func (k key) load() string {
	if k.open() {
		return bench.FormatRate(k.Rate) + " req/s"
	}
	return "conc " + strconv.Itoa(k.Concurrency)
}

// readRun reads one summary JSON file, as summary.Read does (once, so that
// a file the suite rewrites meanwhile is read whole). Its errors name the
// file.
func readRun(path string) (*run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	f, err := summary.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	keys, err := rowKeys(data, len(f.Summary))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &run{
		File: path, ID: f.RunID, CreatedAt: f.CreatedAt,
		// /proc/cpuinfo pads some model names with spaces.
		Platform: f.Host.Platform, CPU: strings.Join(strings.Fields(f.Host.CPU), " "),
		Host:         f.Host.Label,
		Versions:     map[string]string{},
		Incomplete:   f.Complete != nil && !*f.Complete,
		Cache:        f.Arguments.CacheMode(),
		Sweep:        f.Arguments.Sweep,
		Fresh:        f.Arguments.Fresh,
		Runtimes:     f.Runtimes,
		Turns:        max(f.Arguments.Turns, 1),
		SharedPrefix: f.Arguments.SharedPrefix,
		API:          cmp.Or(f.Arguments.API, "chat"),
		Images:       f.Arguments.Images,
		EmbedBatch:   max(f.Arguments.EmbedBatch, 1),
		IdlePowerW:   f.Host.IdlePowerW, IdlePowerWSD: f.Host.IdlePowerWSD,
	}
	if f.Arguments.SLO != nil {
		r.SLO = *f.Arguments.SLO
	}
	for name, meta := range f.ModelMetadata {
		if sv, ok := summary.ServedIn(meta); ok {
			if r.Served == nil {
				r.Served = map[string]summary.Served{}
			}
			r.Served[name] = sv
		}
	}
	for name, v := range f.Versions {
		if v != nil {
			r.Versions[name] = summary.TidyVersion(*v)
		}
	}
	r.Samples, r.SamplesErr = readSamples(r)
	for i, rw := range f.Summary {
		if rw.Prompt == "" {
			rw.Prompt = noPrompt
		}
		nr := row{Row: rw, keys: keys[i]}
		if r.embeddings() {
			nr.batch = r.EmbedBatch
		}
		r.Rows = append(r.Rows, nr)
	}
	r.CanaryTexts, r.CanaryErr = readCanaryTexts(r)
	if r.Sweep != nil {
		for i, s := range r.Sweep.Stops {
			if s.Prompt == "" {
				r.Sweep.Stops[i].Prompt = noPrompt
			}
		}
	}
	return r, nil
}

// apiEmbeddings is arguments.api of an embeddings run.
const apiEmbeddings = "embeddings"

// embeddings reports whether r is an embeddings run (BENCH_API=embeddings):
// its rows have requests/s and input tokens/s, a reply time for TTFT, and
// no figure of output tokens.
func (r *run) embeddings() bool { return r.API == apiEmbeddings }

// rowKeys returns, for each of the n rows of a summary JSON that
// summary.Decode has read, the keys it wrote with a value other than null.
func rowKeys(data []byte, n int) ([]map[string]bool, error) {
	var f struct {
		Summary []map[string]json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.Summary) != n {
		return nil, fmt.Errorf("not a summary JSON: a row is not an object (%v)", err)
	}
	out := make([]map[string]bool, len(f.Summary))
	for i, r := range f.Summary {
		out[i] = map[string]bool{}
		for k, v := range r {
			if string(v) != "null" {
				out[i][k] = true
			}
		}
	}
	return out, nil
}

// label names the runs: by run ID, or by file name where IDs are missing
// or shared; runs of several hosts (host.label) by their host, followed by
// the ID where a host has more than one run, so that tables and legends
// put hosts side by side.
func label(runs []*run) {
	ids := map[string]int{}
	hosts := map[string]int{}
	for _, r := range runs {
		ids[r.ID]++
		hosts[r.Host]++
	}
	names := map[string]int{}
	for _, r := range runs {
		r.Label = r.ID
		if r.ID == "" || ids[r.ID] > 1 {
			r.Label = strings.TrimSuffix(filepath.Base(r.File), filepath.Ext(r.File))
		}
		if len(hosts) > 1 && r.Host != "" {
			if hosts[r.Host] == 1 {
				r.Label = r.Host
			} else {
				r.Label = r.Host + " " + r.Label
			}
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
