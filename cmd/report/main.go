package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const usage = `usage: report [-o DIR] [-charts=false] RUN.json [MORE.json ...]

Writes DIR/report.md and SVG charts of one or more summary JSON files; with
several, the first is the base the others are compared with.
Run 'go doc ./cmd/report' for details.

`

func main() {
	os.Exit(command(os.Args[1:], os.Stdout, os.Stderr))
}

// command is the command; it returns the exit code: 0 done, 1 a file could not
// be read or written, 2 a usage error.
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
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, "report: no summary JSON file given\n\n")
		fs.Usage()
		return 2
	}
	if *dir == "" {
		fmt.Fprint(stderr, "report: -o needs a folder\n\n")
		fs.Usage()
		return 2
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
		return 1
	}
	label(runs)

	written, warnings, err := write(*dir, runs, *withCharts)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "report: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return 1
	}
	for _, f := range written {
		fmt.Fprintln(stdout, f)
	}
	return 0
}

// write writes report.md and, withCharts, the charts to dir and returns
// the paths written, report.md first, and what could not be read but
// only leaves something out (a request records file).
func write(dir string, runs []*run, withCharts bool) (written, warnings []string, err error) {
	var cs map[string][]chartFile
	if withCharts {
		if cs, warnings, err = charts(runs); err != nil {
			return nil, warnings, err
		}
	}
	var md bytes.Buffer
	if err := writeMarkdown(&md, runs, cs); err != nil {
		return nil, warnings, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, warnings, err
	}
	path := filepath.Join(dir, "report.md")
	if err := os.WriteFile(path, md.Bytes(), 0o644); err != nil {
		return nil, warnings, err
	}
	written = []string{path}
	for _, p := range append([]string{reportCharts}, prompts(keys(runs))...) {
		for _, c := range cs[p] {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				return written, warnings, err
			}
			written = append(written, path)
		}
	}
	return written, warnings, nil
}
