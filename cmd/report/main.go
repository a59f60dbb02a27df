package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

const usage = `usage: report [-o DIR] [-charts=false] RUN.json [MORE.json ...]

Writes DIR/report.md and SVG charts of one or more summary JSON files; with
several, the first is the base the others are compared with.
Run 'go doc ./cmd/report' for details.

`

func main() {
	os.Exit(command(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses (the manual's # Exit status table; 0: written).
const (
	exitFail  = 1 // a file could not be read, or the report written
	exitUsage = 2 // a usage error, or a run's .txt or records given for its summary
)

// command is the command; it returns the exit status.
func command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	dir := fs.String("o", "report", "write report.md and the charts to `DIR`, creating it")
	withCharts := fs.Bool("charts", true, "draw the SVG charts and link them from report.md")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, "report: no summary JSON file given\n\n")
		fs.Usage()
		return exitUsage
	}
	if *dir == "" {
		fmt.Fprint(stderr, "report: -o needs a folder\n\n")
		fs.Usage()
		return exitUsage
	}

	for _, path := range fs.Args() {
		if msg := notSummary(path); msg != "" {
			fmt.Fprintf(stderr, "report: %s\n", msg)
			return exitUsage
		}
	}
	var (
		runs []*run
		errs []error
	)
	for _, path := range fs.Args() {
		r, err := readRun(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		runs = append(runs, r)
	}
	if len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(stderr, "report: %v\n", err)
		}
		return exitFail
	}
	label(runs)
	for _, r := range runs {
		if r.SamplesErr != nil {
			fmt.Fprintf(stderr, "report: warning: %v: the changes against run %s carry no p-values\n", r.SamplesErr, r.Label)
		}
		if r.CanaryErr != nil {
			fmt.Fprintf(stderr, "report: warning: %v: run %s's canary replies are compared by the first characters its rows keep\n", r.CanaryErr, r.Label)
		}
	}

	written, removed, warnings, err := write(*dir, runs, *withCharts)
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "report: removed the earlier report's charts that this one does not draw: %s\n", strings.Join(removed, ", "))
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "report: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return exitFail
	}
	for _, f := range written {
		fmt.Fprintln(stdout, f)
	}
	return 0
}

// notSummary says why path is not to be read as a summary JSON, and
// which file to pass instead, or "" to read it: the .txt and the request
// records a run writes beside its summary.
func notSummary(path string) string {
	var what string
	base, ok := strings.CutSuffix(path, summary.ExtRecords)
	if ok {
		what = "a run's request records"
	} else if base, ok = strings.CutSuffix(path, summary.ExtBench); ok {
		what = "a run's benchmark results (the .txt benchstat and cmd/compare read)"
	} else {
		return ""
	}
	json := base + summary.ExtJSON
	if _, err := os.Stat(json); err == nil {
		return fmt.Sprintf("%s is %s, not its summary: pass %s (the report reads the .txt and records beside it)", path, what, json)
	}
	return fmt.Sprintf("%s is %s, not its summary: pass the summary JSON the run wrote beside it (%s, which is not there)", path, what, json)
}

// write writes report.md and, withCharts, the charts to dir and returns
// the paths written, report.md first; the charts of an earlier report in
// dir that this one does not draw, removed (earlierCharts); and what could
// not be read but only leaves something out (a request records file).
func write(dir string, runs []*run, withCharts bool) (written, removed, warnings []string, err error) {
	var cs map[string][]chartFile
	if withCharts {
		if cs, warnings, err = charts(runs); err != nil {
			return nil, nil, warnings, err
		}
	}
	var md bytes.Buffer
	if err := writeMarkdown(&md, runs, cs); err != nil {
		return nil, nil, warnings, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, warnings, err
	}
	path := filepath.Join(dir, "report.md")
	earlier := earlierCharts(path)
	if err := os.WriteFile(path, md.Bytes(), 0o644); err != nil {
		return nil, nil, warnings, err
	}
	written = []string{path}
	drawn := map[string]bool{}
	for _, p := range append([]string{reportCharts}, prompts(keys(runs))...) {
		for _, c := range cs[p] {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				return written, removed, warnings, err
			}
			written = append(written, path)
			drawn[c.name] = true
		}
	}
	for _, name := range earlier {
		if drawn[name] {
			continue
		}
		err := os.Remove(filepath.Join(dir, name))
		switch {
		case err == nil:
			removed = append(removed, name)
		case !errors.Is(err, fs.ErrNotExist):
			return written, removed, warnings, err
		}
	}
	return written, removed, warnings, nil
}

// earlierCharts returns the charts the report.md at path links, as this
// command writes them ("![alt](name.svg)" lines, a file name in the same
// folder): the charts of an earlier report there, which a new one removes
// where it does not draw them again, so that none is left behind that
// the new report.md does not show. Nothing else in the folder is named:
// a file the report did not link is kept. None if there is no report.md.
func earlierCharts(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "![") || !strings.HasSuffix(line, ")") {
			continue
		}
		i := strings.LastIndex(line, "](")
		if i < 0 {
			continue
		}
		name := line[i+2 : len(line)-1]
		if !strings.HasSuffix(name, ".svg") || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == ".svg" {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
