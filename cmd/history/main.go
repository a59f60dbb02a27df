package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
)

const usage = `usage: history -o DIR [-window K] [-threshold P] [-fail-on-regression] FILES_OR_FOLDERS...

Reads summary JSON files (folders: every *.json in them, at any depth),
judges each series' latest run against the runs before it, and writes
DIR/history.md, DIR/verdicts.json and an SVG chart per runtime and figure.
Run 'go doc ./cmd/history' for details.

`

func main() {
	os.Exit(command(os.Args[1:], os.Stdout, os.Stderr, time.Now()))
}

// Exit codes.
const (
	exitOK         = 0
	exitRegression = 1 // with -fail-on-regression; also a file that could not be written
	exitUsage      = 2 // wrong arguments or input; nothing written
)

// command is the command at time now; it returns the exit code.
func command(args []string, stdout, stderr io.Writer, now time.Time) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var o options
	fs.StringVar(&o.dir, "o", "", "write history.md, verdicts.json and the charts to `DIR`, creating it")
	fs.IntVar(&o.window, "window", 10, "judge each series' latest run against up to `K` runs before it (2 or more; a verdict needs 4)")
	fs.Float64Var(&o.threshold, "threshold", 0.05, "smallest change that counts, a `fraction` (0.05: 5%)")
	fs.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit 1 when any series regressed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := o.check(fs.NArg()); err != nil {
		fmt.Fprintf(stderr, "history: %v\n\n", err)
		fs.Usage()
		return exitUsage
	}
	if o.window < stats.TrendMinBaseline {
		fmt.Fprintf(stderr, "history: -window %d: a verdict needs %d earlier runs, so every series will have too little data to judge\n", o.window, stats.TrendMinBaseline)
	}
	runs, errs := readRuns(fs.Args(), o.dir, now)
	if len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(stderr, "history: %v\n", err)
		}
		fmt.Fprintln(stderr, "history: nothing written")
		return exitUsage
	}
	h := build(runs, o)
	files, err := h.render()
	if err != nil {
		fmt.Fprintf(stderr, "history: %v\n", err)
		return exitRegression
	}
	if err := write(o.dir, files); err != nil {
		fmt.Fprintf(stderr, "history: %v\n", err)
		return exitRegression
	}
	fmt.Fprintf(stdout, "history: %d runs, %d series: wrote %s\n", len(runs), len(h.series), describeFiles(o.dir, files))
	if regressed := h.regressed(); o.failOnRegression && len(regressed) > 0 {
		fmt.Fprintf(stderr, "history: %d series regressed:\n", len(regressed))
		for _, s := range regressed {
			fmt.Fprintf(stderr, "  %s\n", s)
		}
		return exitRegression
	}
	return exitOK
}

// options are the command's flags.
type options struct {
	dir              string
	window           int
	threshold        float64
	failOnRegression bool
}

func (o options) check(args int) error {
	switch {
	case o.dir == "":
		return errors.New("-o: give the folder to write to")
	case o.window < 2:
		return fmt.Errorf("-window %d: want 2 or more runs", o.window)
	case !(o.threshold > 0) || o.threshold >= 1:
		return fmt.Errorf("-threshold %v: want a fraction above 0 and below 1 (0.05 is 5%%)", o.threshold)
	case args == 0:
		return errors.New("no summary JSON file or folder given")
	}
	return nil
}
