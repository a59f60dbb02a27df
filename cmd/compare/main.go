package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

const usageText = `usage: scripts/compare.sh OLD NEW    compare two runs (old vs new, with significance)
       scripts/compare.sh RUN        one run's runtimes side by side (-col /runtime)
       scripts/compare.sh -list      the runs in $BENCH_OUTPUT_DIR: date, host, runtimes and versions
   or: go run ./cmd/compare [-dir DIR] [-min-effect 3%] OLD NEW | RUN | -list

OLD, NEW, RUN: a run ID (read from $BENCH_OUTPUT_DIR/<id>.txt, results/ if unset), a file path
(relative to DIR, by default the current folder), or NAME@VERSION: the newest run of runtime NAME
at VERSION (ollama@0.6.5 ollama@0.7.0 compares ollama's figures alone). It ends with a verdict
on the headline figures (decode, TTFT, aggregate rate; Holm over every leaf, changes of
-min-effect or more) and exits 4 on a regression, 3 with no verdict. The manual: go doc ./cmd/compare
`

func main() {
	os.Exit(program{
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		lookupEnv: os.LookupEnv,
	}.run(context.Background(), os.Args[1:]))
}

// program is one run of compare with its surroundings, so that tests can
// run it in-process.
type program struct {
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
	// benchstat is the command that runs benchstat, given its arguments
	// after these; empty means go tool benchstat.
	benchstat []string
	// minEffect is the smallest change the verdict calls (-min-effect).
	minEffect float64
}

// Exit statuses other than benchstat's.
const (
	exitFail  = 1 // a run is missing, unreadable, or would compare nothing
	exitUsage = 2
	// exitNoVerdict: benchstat compared, but there is no verdict to rely
	// on: too few samples, or a run whose control drifted.
	exitNoVerdict = 3
	// exitRegression (judge.go): the verdict called a figure worse.
)

// effectFlag is -min-effect's value, a fraction: "3%" or "0.03".
type effectFlag float64

func (e *effectFlag) String() string { return pct(float64(*e)) }

func (e *effectFlag) Set(v string) error {
	s, isPct := strings.CutSuffix(strings.TrimSpace(v), "%")
	f, err := strconv.ParseFloat(s, 64)
	if isPct {
		f /= 100
	}
	if err != nil || !(f >= 0) || f >= 1 {
		return fmt.Errorf("-min-effect %q: want a share below 100%%: 3%% or 0.03 (0 calls any change beyond noise)", v)
	}
	*e = effectFlag(f)
	return nil
}

// failure is an error whose lines are printed each after "compare: ".
type failure []string

func (f failure) Error() string { return strings.Join(f, "\n") }

func fail(format string, args ...any) failure { return failure{fmt.Sprintf(format, args...)} }

func (p program) run(ctx context.Context, args []string) int {
	usage := func(format string, args ...any) int {
		fmt.Fprintf(p.stderr, "compare: "+format+"\n", args...)
		fmt.Fprint(p.stderr, usageText)
		return exitUsage
	}
	// The flag package's own messages and usage are replaced by these.
	flags := flag.NewFlagSet("compare", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.Usage = func() {}
	dir := flags.String("dir", "", "take relative paths from `DIR` (default: the current folder)")
	listRuns := flags.Bool("list", false, "list the runs in BENCH_OUTPUT_DIR")
	minEffect := effectFlag(stats.DefaultMinEffect)
	flags.Var(&minEffect, "min-effect", "the smallest change the verdict calls: `3%` or 0.03")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(p.stderr, usageText)
			return 0
		}
		return usage("%v", err)
	}
	args = flags.Args()
	p.minEffect = float64(minEffect)
	if len(args) > 0 && args[0] == "help" {
		fmt.Fprint(p.stderr, usageText)
		return 0
	}
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") {
			return usage("bad argument %q: want a run ID, a file or NAME@VERSION", a)
		}
	}
	var status int
	var err error
	switch {
	case *listRuns && len(args) > 0:
		return usage("-list takes no argument, got %d", len(args))
	case *listRuns:
		err = p.list()
	case len(args) < 1 || len(args) > 2:
		return usage("want 1 or 2 arguments, got %d", len(args))
	default:
		status, err = p.compare(ctx, *dir, args)
	}
	if err != nil {
		var f failure
		if !errors.As(err, &f) {
			f = failure{err.Error()}
		}
		for _, l := range f {
			fmt.Fprintf(p.stderr, "compare: %s\n", l)
		}
		return exitFail
	}
	return status
}

// compare resolves the arguments, checks the files, runs benchstat and
// gives the verdict. It returns the exit status, or an error for compare to
// print.
func (p program) compare(ctx context.Context, dir string, args []string) (int, error) {
	wd, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	if dir == "" {
		dir = wd
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	root, err := findRoot(wd)
	if err != nil {
		return 0, err
	}
	// A folder set blank is an error only for an argument that needs it.
	outdir, outdirErr := suiteconfig.OutputDir(p.lookupEnv)

	roles := []string{"OLD", "NEW"}
	if len(args) == 1 {
		roles = []string{"RUN"}
	}
	ins, only, err := p.resolveAll(args, dir, root, outdir, outdirErr)
	if err != nil {
		return 0, err
	}
	var runs []*runFile
	for i, in := range ins {
		in.role = roles[i]
		r, err := readRun(in, only)
		if err != nil {
			return 0, err
		}
		runs = append(runs, r)
	}

	files := p.summariesBeside(runs)
	if len(runs) == 2 && sameRun(runs[0].input, runs[1].input) {
		return 0, fail("this is the same run: %s and %s hold the same results: nothing to compare; "+
			"compare it with another run (scripts/compare.sh -list)", runs[0].input, runs[1].input)
	}
	var bsArgs []string
	if len(runs) == 2 {
		bsArgs, err = checkPair(runs[0], runs[1], settingsDiffer(files[0], files[1]))
	} else {
		bsArgs, err = checkOne(runs[0])
	}
	if err != nil {
		return 0, err
	}
	if only != "" {
		// benchstat compares the runtime's rows alone, as the checks did.
		bsArgs = append([]string{"-filter", "/runtime:" + strconv.Quote(only)}, bsArgs...)
	}
	for _, n := range notes(files, only) {
		fmt.Fprintln(p.stderr, n)
	}
	for i, f := range files {
		for _, d := range drifts(f, only) {
			fmt.Fprintf(p.stderr, "control: %s: %s\n", runs[i].input, d.long)
		}
		for _, u := range unjudged(f, only) {
			fmt.Fprintf(p.stderr, "control: %s: %s\n", runs[i].input, u)
		}
	}
	status, err := p.runBenchstat(ctx, root, bsArgs)
	if err != nil || status != 0 {
		return status, err
	}
	return p.verdict(root, bsArgs, runs, files)
}

// summariesBeside reads the summary beside each run; one it cannot read
// is said, and the comparison goes on, as benchstat needs only the .txt.
func (p program) summariesBeside(runs []*runFile) []beside {
	var files []beside
	for _, r := range runs {
		f, err := summaryBeside(r.input)
		if err != nil {
			what := "no versions or canary replies from it"
			if f.file != nil {
				what = "its canary replies compared by the first 2,000 characters its rows keep"
			}
			fmt.Fprintf(p.stderr, "compare: %v; %s\n", err, what)
		}
		files = append(files, f)
	}
	return files
}

// resolveAll finds the file of each argument (resolve), a NAME@VERSION
// among the runs in the output folder, and returns the runtime the
// comparison is limited to: NAME, where two arguments are, one of them
// NAME@VERSION ("" otherwise).
func (p program) resolveAll(args []string, dir, root, outdir string, outdirErr error) ([]input, string, error) {
	var ins []input
	var specs []versionSpec
	var saved []savedRun
	read := false
	for _, a := range args {
		in, err := resolve(a, dir, root, outdir, outdirErr)
		var f failure
		spec, isSpec := parseVersionSpec(a)
		if err == nil || !isSpec || !errors.As(err, &f) {
			if err != nil {
				return nil, "", err
			}
			ins = append(ins, in)
			continue
		}
		// Not a file: NAME@VERSION.
		if outdirErr != nil {
			return nil, "", fail("%s: %v", a, outdirErr)
		}
		abs := outdir
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		if !read {
			if saved, err = readRuns(abs, p.stderr); err != nil {
				return nil, "", err
			}
			read = true
		}
		r, why, err := findVersion(saved, spec, displayOutdir(abs, root), likeOf(ins))
		if err != nil {
			return nil, "", err
		}
		in, err = resolve(r.bench, dir, root, outdir, outdirErr)
		if err != nil {
			return nil, "", err
		}
		fmt.Fprintf(p.stderr, "run: %s is %s (%s, started %s UTC), %s\n",
			spec, r.id, orUnknown(r.host()), r.created.UTC().Format("2006-01-02 15:04"), why)
		ins = append(ins, in)
		specs = append(specs, spec)
	}
	if len(specs) == 0 || len(args) == 1 {
		return ins, "", nil
	}
	for _, s := range specs[1:] {
		if s.runtime != specs[0].runtime {
			return nil, "", fail("%s and %s name different runtimes: NAME@VERSION compares one runtime's versions; "+
				"to put two runtimes side by side, compare one run that ran both: scripts/compare.sh RUN", specs[0], s)
		}
	}
	if ins[0].path == ins[1].path {
		return nil, "", fail("%s and %s are the same run (%s): nothing to compare", args[0], args[1], ins[0].label)
	}
	return ins, specs[0].runtime, nil
}

// sameRun reports whether two inputs are one run: one file, or a run
// copied: its results and the summary beside them (or none beside
// either) the same byte for byte.
func sameRun(a, b input) bool {
	if a.path == b.path {
		return true
	}
	for _, ext := range []string{".txt", ".json"} {
		x, errX := os.ReadFile(strings.TrimSuffix(a.path, ".txt") + ext)
		y, errY := os.ReadFile(strings.TrimSuffix(b.path, ".txt") + ext)
		if (errX == nil) != (errY == nil) || !bytes.Equal(x, y) {
			return false
		}
		if ext == ".txt" && errX != nil {
			return false // unreadable: readRun said why
		}
	}
	return true
}

// findRoot returns the repository root: the nearest folder above dir (or
// dir) whose go.mod is this module's.
func findRoot(dir string) (string, error) {
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isModule(data) {
			// The root as the shell's pwd -P gives it, so that paths
			// under it are recognised whatever links lead there.
			return filepath.EvalSymlinks(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fail("%s is not inside the inferencebench repository (no go.mod of %s above it): "+
				"run compare from there (scripts/compare.sh does)", dir, summary.Pkg)
		}
		d = parent
	}
}

func isModule(gomod []byte) bool {
	s := bufio.NewScanner(bytes.NewReader(gomod))
	for s.Scan() {
		if f := strings.Fields(s.Text()); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == summary.Pkg {
			return true
		}
	}
	return false
}

// input is a file to compare.
type input struct {
	role  string // OLD, NEW or RUN
	path  string // absolute
	label string // for benchstat and messages: relative to the root if inside it, else path
}

func (in input) String() string { return in.role + " (" + in.label + ")" }

// resolve finds the file of an argument: a file path (relative ones from
// dir), else a run ID, read from outdir/<id>.txt (a relative outdir is
// taken from the root; outdirErr, why there is no outdir, fails it).
func resolve(arg, dir, root, outdir string, outdirErr error) (input, error) {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	st, err := os.Stat(p)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return input{}, fail("%s is not a file", arg)
	case err == nil:
	case !errors.Is(err, os.ErrNotExist):
		return input{}, err
	case strings.ContainsAny(arg, "/."+string(filepath.Separator)):
		return input{}, fail("no such file: %s", arg)
	default:
		if outdirErr != nil {
			return input{}, fail("run %s: %v", arg, outdirErr)
		}
		if !filepath.IsAbs(outdir) {
			outdir = filepath.Join(root, outdir)
		}
		p = summary.PathsOf(outdir, arg).Bench
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return input{}, fail("no run %s: there is no %s (BENCH_OUTPUT_DIR=%s)", arg, p, displayOutdir(outdir, root))
		}
	}
	// The folder's links resolved, as the shell's pwd -P would.
	d, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return input{}, err
	}
	in := input{path: filepath.Join(d, filepath.Base(p))}
	in.label = in.path
	if rel, err := filepath.Rel(root, in.path); err == nil && filepath.IsLocal(rel) {
		in.label = filepath.ToSlash(rel)
	}
	return in, nil
}

// displayOutdir is BENCH_OUTPUT_DIR as it was set, for messages.
func displayOutdir(outdir, root string) string {
	if rel, err := filepath.Rel(root, outdir); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return outdir
}

// runBenchstat runs benchstat with args from root, where go.mod's tool line
// provides it, prints its output and returns its exit status; it fails if
// the output compares nothing.
func (p program) runBenchstat(ctx context.Context, root string, args []string) (int, error) {
	command := p.benchstat
	if len(command) == 0 {
		goBin, err := exec.LookPath("go")
		if err != nil {
			return 0, fail("cannot run go tool benchstat: %v", err)
		}
		command = []string{goBin, "tool", "benchstat"}
	}
	cmd := exec.CommandContext(ctx, command[0], append(command[1:len(command):len(command)], args...)...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = p.stderr
	err := cmd.Run()
	if _, werr := p.stdout.Write(out.Bytes()); werr != nil {
		return 0, werr
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode(), nil
	case err != nil:
		return 0, fail("go tool benchstat: %v", err)
	case !bytes.Contains(out.Bytes(), []byte("vs base")):
		return 0, fail("benchstat's output has no \"vs base\" column: it compared nothing")
	}
	return 0, nil
}

// list prints the runs in the output folder (listRuns).
func (p program) list() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := findRoot(wd)
	if err != nil {
		return err
	}
	outdir, err := suiteconfig.OutputDir(p.lookupEnv)
	if err != nil {
		return fail("%v", err)
	}
	abs := outdir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	return listRuns(p.stdout, p.stderr, abs, displayOutdir(abs, root))
}
