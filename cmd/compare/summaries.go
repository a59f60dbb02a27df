package main

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// What benchstat cannot say, from the summary JSON beside each .txt: the
// runtimes' versions, and the canary replies that changed between OLD and
// NEW (BENCH_CANARY).

// summaryBeside reads the summary JSON of the run whose .txt in is: nil,
// and no error, when there is none (a .txt copied alone).
func summaryBeside(in input) (*summary.File, error) {
	path := strings.TrimSuffix(in.path, summary.ExtBench) + summary.ExtJSON
	if path == in.path {
		return nil, nil
	}
	f, err := summary.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the summary beside it: %w", in, err)
	}
	return f, nil
}

// notes are the lines compare prints before benchstat's tables: each
// runtime's versions (OLD → NEW where they differ), and each canary reply
// that changed, with the versions it changed between. files has one
// summary per run, nil where there is none.
func notes(files []*summary.File) []string {
	var out []string
	var names []string
	for _, f := range files {
		if f == nil {
			return nil
		}
		for _, rt := range f.Runtimes {
			if !slices.Contains(names, rt.Name) {
				names = append(names, rt.Name)
			}
		}
	}
	var vs []string
	for _, name := range names {
		var each []string
		for _, f := range files {
			each = append(each, orUnknown(f.VersionOf(name)))
		}
		if len(each) == 2 && each[0] == each[1] {
			each = each[:1]
		}
		vs = append(vs, name+" "+strings.Join(each, " → "))
	}
	if len(vs) > 0 {
		out = append(out, "versions: "+strings.Join(vs, ", "))
	}
	if len(files) == 2 {
		out = append(out, canaryChanges(files[0], files[1])...)
	}
	return out
}

// canaryChanges says, for each row of new whose canary reply differs from
// its row's in old (the same runtime, prompt and load), how it changed.
func canaryChanges(old, new *summary.File) []string {
	type key struct {
		runtime, prompt string
		conc            int
		rate            float64
	}
	keyOf := func(r summary.Row) key {
		k := key{r.Runtime, r.Prompt, r.Concurrency, 0}
		if r.RateRPS != nil {
			k.rate = *r.RateRPS
		}
		return k
	}
	before := map[key]*summary.Canary{}
	for _, r := range old.Summary {
		before[keyOf(r)] = r.Canary
	}
	var out []string
	said := map[string]bool{}
	for _, r := range new.Summary {
		d := summary.DescribeCanaryChange(r.Runtime, r.Prompt, old.VersionOf(r.Runtime), new.VersionOf(r.Runtime), before[keyOf(r)], r.Canary)
		// A reply changes alike at every load: say it once.
		if d != "" && !said[d] {
			said[d] = true
			out = append(out, "canary: "+d)
		}
	}
	return out
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
