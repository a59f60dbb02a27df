package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The runs in the output folder: -list shows them, and NAME@VERSION finds
// the newest run of runtime NAME at VERSION among them.

// savedRun is one run in the output folder: its summary JSON, with the
// benchstat file beside it.
type savedRun struct {
	id      string
	created time.Time
	file    *summary.File
	bench   string // the .txt, "" if there is none
}

// host is the run's host label, else its machine's name.
func (r savedRun) host() string {
	if r.file.Host.Label != "" {
		return r.file.Host.Label
	}
	return r.file.Host.Machine
}

// readRuns reads every summary JSON in dir, oldest first. A file that is no
// summary is reported on warn and left out.
func readRuns(dir string, warn io.Writer) ([]savedRun, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fail("cannot list the runs in %s: %v", dir, err)
	}
	var runs []savedRun
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, summary.ExtJSON) {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := summary.Read(path)
		if err != nil {
			fmt.Fprintf(warn, "compare: %s left out: %v\n", path, err)
			continue
		}
		r := savedRun{id: strings.TrimSuffix(name, summary.ExtJSON), file: f}
		if f.RunID != "" {
			r.id = f.RunID
		}
		r.created, _ = time.Parse(summary.TimeFormat, f.CreatedAt)
		if r.created.IsZero() {
			r.created, _ = time.Parse(summary.RunIDFormat, r.id)
		}
		if b := strings.TrimSuffix(path, summary.ExtJSON) + summary.ExtBench; isFile(b) {
			r.bench = b
		}
		runs = append(runs, r)
	}
	slices.SortStableFunc(runs, func(a, b savedRun) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return runs, nil
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// listRuns writes the runs in dir, oldest first: id, start, host, -count,
// the work where not the default (work), and each runtime with its version, marked where its control drifted or
// went unjudged.
func listRuns(w, warn io.Writer, dir, shown string) error {
	runs, err := readRuns(dir, warn)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fail("no runs in %s (BENCH_OUTPUT_DIR=%s): a run writes <id>.json and <id>.txt there", dir, shown)
	}
	kinds := kindsByName(runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED (UTC)\tHOST\tN\tWORK\tRUNTIMES")
	for _, r := range runs {
		started := "?"
		if !r.created.IsZero() {
			started = r.created.UTC().Format("2006-01-02 15:04")
		}
		n := "?"
		if c := r.file.Arguments.Count; c != nil {
			n = fmt.Sprint(*c)
		}
		var rts []string
		for _, rt := range r.file.Runtimes {
			s := rt.Name + " " + orUnknown(r.file.VersionOf(rt.Name))
			if len(kinds[rt.Name]) > 1 {
				s += " (kind " + orUnknown(rt.Kind) + ")"
			}
			if env := serverEnv(rt); env != "" {
				s += " (" + env + ")"
			}
			if drifted(rt.Control) {
				s += " (control drifted)"
			}
			if _, ok := controlUnjudged(r.file, rt.Name); ok {
				s += " (control unjudged)"
			}
			rts = append(rts, s)
		}
		if len(rts) == 0 {
			rts = []string{"(none)"}
		}
		var marks []string
		if r.file.Complete != nil && !*r.file.Complete {
			marks = append(marks, "incomplete")
		}
		if r.bench == "" {
			marks = append(marks, "no .txt: not comparable")
		}
		line := strings.Join(rts, ", ")
		if len(marks) > 0 {
			line += " [" + strings.Join(marks, "; ") + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.id, started, orUnknown(r.host()), n, orDash(work(r.file)), line)
	}
	return tw.Flush()
}

// kindsByName are the kinds each runtime name ran as in runs: a name
// that ran as more than one shows its kind in -list.
func kindsByName(runs []savedRun) map[string][]string {
	kinds := map[string][]string{}
	for _, r := range runs {
		for _, rt := range r.file.Runtimes {
			if !slices.Contains(kinds[rt.Name], rt.Kind) {
				kinds[rt.Name] = append(kinds[rt.Name], rt.Kind)
			}
		}
	}
	return kinds
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// drifted reports whether a control drifted.
func drifted(c *summary.Control) bool {
	return c != nil && (c.Drifted || c.Verdict == stats.ControlDrifted)
}

// versionSpec is an argument NAME@VERSION.
type versionSpec struct {
	runtime, version string
}

// parseVersionSpec reads NAME@VERSION, the version after the last '@'
// (a side's name has one: ollama@new@0.17.4); ok is false for anything
// else.
func parseVersionSpec(arg string) (versionSpec, bool) {
	i := strings.LastIndexByte(arg, '@')
	name, version, ok := arg[:max(i, 0)], arg[i+1:], i >= 0
	if !ok || name == "" || version == "" || strings.ContainsAny(name, "/"+string(filepath.Separator)) {
		return versionSpec{}, false
	}
	return versionSpec{name, version}, true
}

func (s versionSpec) String() string { return s.runtime + "@" + s.version }

// findVersion returns the newest run in runs (oldest first) that ran
// s.runtime at s.version: the version as the run recorded it (tidied), or
// one that starts with it followed by ".", "-", "+" or " " where exactly
// one recorded version does ("0.7" for 0.7.0 but not for 0.7.0 and 0.7.1).
// With like (the other side's summary, nil for none), it is the newest of
// those whose work is like's (likeRun); why says how it was chosen.
func findVersion(runs []savedRun, s versionSpec, dir string, like *summary.File) (r savedRun, why string, err error) {
	type seen struct {
		version string
		runs    []savedRun // oldest first
	}
	var versions []*seen
	var names []string
	for _, r := range runs {
		if r.bench == "" {
			continue
		}
		for _, rt := range r.file.Runtimes {
			if !slices.Contains(names, rt.Name) {
				names = append(names, rt.Name)
			}
			if rt.Name != s.runtime {
				continue
			}
			v := r.file.VersionOf(rt.Name)
			i := slices.IndexFunc(versions, func(x *seen) bool { return x.version == v })
			if i < 0 {
				i = len(versions)
				versions = append(versions, &seen{version: v})
			}
			versions[i].runs = append(versions[i].runs, r)
		}
	}
	if len(versions) == 0 {
		return savedRun{}, "", fail("%s: no run in %s has a runtime named %s; their runtimes: %s (see scripts/compare.sh -list)",
			s, dir, s.runtime, orNone(names))
	}
	var match []*seen
	for _, v := range versions {
		if v.version == s.version {
			match = []*seen{v}
			break
		}
		if rest, ok := strings.CutPrefix(v.version, s.version); ok && rest != "" && strings.ContainsRune(".-+ ", rune(rest[0])) {
			match = append(match, v)
		}
	}
	describe := func(vs []*seen) string {
		var out []string
		for _, v := range vs {
			out = append(out, fmt.Sprintf("%s (%s)", orUnknown(v.version), plural(len(v.runs), "run")))
		}
		return strings.Join(out, ", ")
	}
	switch len(match) {
	case 0:
		return savedRun{}, "", fail("%s: no run in %s has %s at version %s; it ran at %s (see scripts/compare.sh -list)",
			s, dir, s.runtime, s.version, describe(versions))
	case 1:
	default:
		return savedRun{}, "", fail("%s is ambiguous: %s ran at %s; name one of them", s, s.runtime, describe(match))
	}
	r, why = likeRun(match[0].runs, s.runtime, like)
	return r, fmt.Sprintf("the newest run of %s at %s%s", s.runtime, orUnknown(r.file.VersionOf(s.runtime)), why), nil
}

// likeRun returns the newest of runs (oldest first) whose work for
// runtime (workOf) is like's, and why it was chosen where that is not
// plainly the newest: the runs of other work it left out, or, where none
// did like's work, that it took the newest and which others there are.
func likeRun(runs []savedRun, runtime string, like *summary.File) (savedRun, string) {
	newest := runs[len(runs)-1]
	if like == nil {
		return newest, ""
	}
	want := workOf(savedRun{file: like}, runtime)
	var same, other []savedRun
	for _, r := range runs {
		if workOf(r, runtime) == want {
			same = append(same, r)
		} else {
			other = append(other, r)
		}
	}
	list := func(rs []savedRun) string {
		var out []string
		for i := len(rs) - 1; i >= 0; i-- {
			out = append(out, fmt.Sprintf("%s (%s)", rs[i].id, orDash(workOf(rs[i], runtime))))
		}
		return strings.Join(out, ", ")
	}
	switch {
	case len(same) > 0 && len(other) == 0:
		return same[len(same)-1], ""
	case len(same) > 0:
		return same[len(same)-1], fmt.Sprintf(" whose work is the other side's (%s); left out, of other work: %s", want, list(other))
	}
	others := list(runs[:len(runs)-1])
	if others == "" {
		others = "none"
	}
	return newest, fmt.Sprintf(": none of its runs did the other side's work (%s), so the newest, whose work is %s; the others: %s",
		want, orDash(workOf(newest, runtime)), others)
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
