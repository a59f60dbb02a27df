package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// futureSlack is how far past now a run may say it started: clocks of
// different machines disagree a little, not by more.
const futureSlack = 10 * time.Minute

// run is one summary file.
type run struct {
	path    string
	id      string // run_id, else the file's base name
	created time.Time
	file    *summary.File
	host    string // host.label, else host.machine, else ""
	// settings are what the run asked of each request
	// (summary.SettingsOf): a row's are part of its series' key.
	settings summary.Settings
	// canaryTexts are the whole texts of the run's canary replies, by
	// their SHA-256, from its request records; nil without them.
	canaryTexts map[string]string
}

// readRuns reads the summaries named by args (files, or folders searched
// at any depth for *.json, the output folder left out) and returns
// them oldest first, or every reason it cannot, each naming its file.
func readRuns(args []string, out string, now time.Time) ([]*run, []error) {
	paths, errs := summaryPaths(args, out)
	if len(errs) > 0 {
		return nil, errs
	}
	runs := make([]*run, len(paths))
	errs = make([]error, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				runs[i], errs[i] = readRun(paths[i], now)
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	var bad []error
	for _, err := range errs {
		if err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		return nil, bad
	}
	slices.SortStableFunc(runs, func(a, b *run) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	// Run ids are the start to the second: two Macs may share one.
	type hostRun struct{ host, id string }
	seen := map[hostRun]*run{}
	for _, r := range runs {
		k := hostRun{r.host, r.id}
		if first, dup := seen[k]; dup {
			bad = append(bad, fmt.Errorf("%s: run %s of host %q is also %s (the same run twice?)", r.path, r.id, r.host, first.path))
			continue
		}
		seen[k] = r
	}
	if len(bad) > 0 {
		return nil, bad
	}
	if len(runs) < 2 {
		return nil, []error{fmt.Errorf("%d run read (%s): a history needs two or more", len(runs), runs[0].path)}
	}
	return runs, nil
}

// summaryPaths expands args: a file is itself, a folder every *.json file
// under it, in lexical order.
func summaryPaths(args []string, out string) ([]string, []error) {
	var (
		paths []string
		errs  []error
	)
	outAbs, _ := filepath.Abs(out)
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			errs = append(errs, err) // *PathError names it
			continue
		}
		if !info.IsDir() {
			paths = append(paths, arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if abs, _ := filepath.Abs(path); abs == outAbs && path != arg {
					return filepath.SkipDir // a history written there before
				}
				return nil
			}
			if d.Name() == verdictsJSON {
				return nil // a history's own output, written there before: no run is named so
			}
			if strings.HasSuffix(d.Name(), summary.ExtJSON) {
				found = append(found, path)
			}
			return nil
		})
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", arg, err))
		case len(found) == 0:
			errs = append(errs, fmt.Errorf("%s: a folder without summary JSON files (*.json)", arg))
		}
		paths = append(paths, found...)
	}
	return paths, errs
}

// readRun reads one summary and checks what a history needs of it.
func readRun(path string, now time.Time) (*run, error) {
	f, settings, err := summary.ReadComparable(path)
	if err != nil {
		return nil, err
	}
	r := &run{path: path, id: f.RunID, file: f, host: f.Host.Label, settings: settings}
	if r.id == "" {
		r.id = strings.TrimSuffix(filepath.Base(path), summary.ExtJSON)
	}
	if r.host == "" {
		r.host = f.Host.Machine
	}
	if f.CreatedAt == "" {
		return nil, fmt.Errorf(`%s: no "created_at": the run cannot be put in order`, path)
	}
	r.created, err = time.Parse(time.RFC3339Nano, f.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf(`%s: "created_at" %q is not a time (want %s)`, path, f.CreatedAt, summary.TimeFormat)
	}
	if r.created.After(now.Add(futureSlack)) {
		return nil, fmt.Errorf(`%s: "created_at" %s is in the future (now is %s)`, path, f.CreatedAt, now.UTC().Format(time.RFC3339))
	}
	if len(f.Summary) == 0 {
		return nil, fmt.Errorf("%s: a summary without rows (no benchmark finished)", path)
	}
	// A row keeps its canary reply's first 2,000 characters; the records
	// keep the whole, to place a change after them.
	if r.canaryTexts, err = records.ReadCanaryTexts(summary.RecordsBeside(path)); err != nil {
		return nil, err // names the records file
	}
	return r, nil
}

// write writes the files into dir, creating it.
func write(dir string, files []outFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		errs = append(errs, os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644))
	}
	return errors.Join(errs...)
}

// outFile is one file the history writes.
type outFile struct {
	name string
	data []byte
}

func describeFiles(dir string, files []outFile) string {
	svgs := 0
	for _, f := range files {
		if strings.HasSuffix(f.name, ".svg") {
			svgs++
		}
	}
	return fmt.Sprintf("%s, %s and %d charts", filepath.Join(dir, historyMD), filepath.Join(dir, verdictsJSON), svgs)
}
