package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"golang.org/x/perf/benchfmt"
)

// cacheKey is the configuration key that says whether a run's prompts
// were in the server's prompt cache (summary.KeyCache; a file without it
// is warm: summary.Absent).
const cacheKey = summary.KeyCache

// runFile is what compare read of one input.
type runFile struct {
	input
	configs []config // the distinct file configurations of its results
	results []result
	syntax  []*benchfmt.SyntaxError
	size    int64
}

// config is one file configuration: its key: value lines in order.
type config []benchfmt.Config

// lookup returns key's value and whether config has it.
func (c config) lookup(key string) (string, bool) {
	for _, kv := range c {
		if kv.Key == key {
			return string(kv.Value), true
		}
	}
	return "", false
}

func (c config) equal(d config) bool {
	return slices.EqualFunc(c, d, func(a, b benchfmt.Config) bool {
		return a.Key == b.Key && bytes.Equal(a.Value, b.Value)
	})
}

// result is one benchmark result line.
type result struct {
	config int // index in runFile.configs
	name   benchfmt.Name
}

// readRun reads in's results with benchfmt: those of runtime only, if
// only is not empty.
func readRun(in input, only string) (*runFile, error) {
	f, err := os.Open(in.path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fail("%s: %v", in, err)
	}
	defer f.Close()
	r := &runFile{input: in}
	if st, err := f.Stat(); err == nil {
		r.size = st.Size()
	}
	rd := benchfmt.NewReader(f, in.label)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			if only != "" && runtimeOf(rec.Name) != only {
				continue
			}
			var c config
			for _, kv := range rec.Config {
				if kv.File {
					c = append(c, benchfmt.Config{Key: kv.Key, Value: bytes.Clone(kv.Value), File: true})
				}
			}
			i := slices.IndexFunc(r.configs, c.equal)
			if i < 0 {
				i = len(r.configs)
				r.configs = append(r.configs, c)
			}
			r.results = append(r.results, result{config: i, name: benchfmt.Name(bytes.Clone(rec.Name))})
		case *benchfmt.SyntaxError:
			r.syntax = append(r.syntax, rec)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fail("%s: %v", in, err)
	}
	return r, nil
}

// noResults says why r has no results, if it has none.
func (r *runFile) noResults() []string {
	if len(r.results) > 0 {
		return nil
	}
	var why string
	switch {
	case r.size == 0:
		why = "the file is empty"
	case len(r.syntax) > 0:
		why = fmt.Sprintf("benchfmt could not read %s of it; the first: %v", plural(len(r.syntax), "result line"), r.syntax[0])
	case strings.HasSuffix(r.label, ".json"):
		why = "it is not in the benchmark format: benchstat reads a run's .txt, not its summary JSON"
	default:
		why = "a run writes none when none of its requests succeeded, as when no runtime answered; the run's .json says why"
	}
	return []string{fmt.Sprintf("%s has no benchmark results (%s)", r.input, why)}
}

// checkPair checks that benchstat would compare something of old and new
// and returns benchstat's arguments for them. settings are the settings in
// which their summaries differ (summary.Differences), which make them not
// comparable.
func checkPair(old, new *runFile, settings []summary.Difference) ([]string, error) {
	if f := append(old.noResults(), new.noResults()...); len(f) > 0 {
		return nil, failure(f)
	}
	runs := []*runFile{old, new}
	ignoreCache := mixedCache(runs)
	keys := configKeys(runs, ignoreCache)
	oldTables, newTables := tables(old, keys), tables(new, keys)
	var common []string
	for t := range oldTables {
		if _, ok := newTables[t]; ok {
			common = append(common, t)
		}
	}
	if len(common) == 0 {
		return nil, configFailure(old, new, ignoreCache, settings)
	}
	if len(settings) > 0 {
		f := failure{fmt.Sprintf("%s and %s ran with different settings: their figures measure different work and do not compare", old.input, new.input)}
		return nil, append(append(f, notComparable(settings)...), settingsWhy(settings))
	}

	// benchstat's rows are full names, GOMAXPROCS suffix and all.
	for _, t := range common {
		for name := range oldTables[t] {
			if _, ok := newTables[t][name]; ok {
				return benchstatArgs(ignoreCache, nil, old, new), nil
			}
		}
	}
	for _, t := range common {
		stripped := map[string]bool{}
		for name := range newTables[t] {
			stripped[stripProcs(name)] = true
		}
		for name := range oldTables[t] {
			if stripped[stripProcs(name)] {
				return nil, failure{
					fmt.Sprintf("%s and %s have no benchmark in common: their names differ in the GOMAXPROCS suffix (%s in OLD, %s in NEW), "+
						"which benchstat keeps in its rows, so it would compare nothing",
						old.input, new.input, procsOf(old, oldTables, common), procsOf(new, newTables, common)),
					"a different GOMAXPROCS means another machine or another CPU limit; to compare them anyway: " +
						hint([]string{"/gomaxprocs"}, ignoreCache, old, new),
				}
			}
		}
	}
	return nil, failure{
		fmt.Sprintf("%s and %s have no benchmark in common: benchstat would compare nothing", old.input, new.input),
		"OLD has " + list(names(old, oldTables, common, stripProcs)),
		"NEW has " + list(names(new, newTables, common, stripProcs)),
	}
}

// checkOne checks that benchstat -col /runtime would put something of r
// side by side and returns benchstat's arguments for it.
func checkOne(r *runFile) ([]string, error) {
	if f := r.noResults(); len(f) > 0 {
		return nil, failure(f)
	}
	var runtimes []string
	for _, res := range r.results {
		if rt := runtimeOf(res.name); !slices.Contains(runtimes, rt) {
			runtimes = append(runtimes, rt)
		}
	}
	switch {
	case len(runtimes) == 1 && runtimes[0] == "":
		return nil, fail("%s has only one runtime (its benchmark names have no runtime=): nothing to put side by side", r.input)
	case len(runtimes) == 1:
		return nil, fail("%s has only one runtime, %s: nothing to put side by side; compare it with another run: scripts/compare.sh OLD NEW", r.input, runtimes[0])
	}

	// benchstat's rows are the full names without runtime=, in tables by
	// configuration: some row must have two runtimes.
	ignoreCache := mixedCache([]*runFile{r})
	keys := configKeys([]*runFile{r}, ignoreCache)
	rows := map[string][]string{} // table and row -> runtimes
	for _, res := range r.results {
		row := tableKey(r.configs[res.config], keys) + "\x00" + withoutRuntime(res.name)
		if rt := runtimeOf(res.name); !slices.Contains(rows[row], rt) {
			rows[row] = append(rows[row], rt)
			if len(rows[row]) > 1 {
				return benchstatArgs(ignoreCache, []string{"-col", "/runtime"}, r), nil
			}
		}
	}
	f := failure{fmt.Sprintf("%s has no benchmark that two of its runtimes ran: nothing to put side by side", r.input)}
	for _, rt := range runtimes {
		var ran []string
		for _, res := range r.results {
			if n := stripProcs(withoutRuntime(res.name)); runtimeOf(res.name) == rt && !slices.Contains(ran, n) {
				ran = append(ran, n)
			}
		}
		f = append(f, rt+" ran "+list(ran))
	}
	return nil, f
}

// mixedCache reports whether benchstat must ignore the cache key: when
// some results have no cache line (written before the key existed: warm)
// and others say cache: warm, and none says anything else. benchstat
// would put the two in separate tables.
func mixedCache(runs []*runFile) bool {
	var with, without bool
	for _, r := range runs {
		for _, c := range r.configs {
			switch v, ok := c.lookup(cacheKey); {
			case !ok:
				without = true
			case v == suiteconfig.CacheWarm:
				with = true
			default:
				return false
			}
		}
	}
	return with && without
}

// configKeys returns the configuration keys of runs' results, in the order
// they first appear, all but cache if ignoreCache.
func configKeys(runs []*runFile, ignoreCache bool) []string {
	var keys []string
	for _, r := range runs {
		for _, c := range r.configs {
			for _, kv := range c {
				if !slices.Contains(keys, kv.Key) && !(ignoreCache && kv.Key == cacheKey) {
					keys = append(keys, kv.Key)
				}
			}
		}
	}
	return keys
}

// tableKey identifies a benchstat table: the values of keys in c, a
// missing key being empty, as benchstat has it.
func tableKey(c config, keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		v, _ := c.lookup(k)
		b.WriteString(v)
		b.WriteByte(0)
	}
	return b.String()
}

// tables returns r's results by benchstat table: table key -> full names.
func tables(r *runFile, keys []string) map[string]map[string]bool {
	t := map[string]map[string]bool{}
	for _, res := range r.results {
		k := tableKey(r.configs[res.config], keys)
		if t[k] == nil {
			t[k] = map[string]bool{}
		}
		t[k][res.name.String()] = true
	}
	return t
}

// names returns r's distinct benchmark names in the given tables, in file
// order, through fn.
func names(r *runFile, tabs map[string]map[string]bool, in []string, fn func(string) string) []string {
	var out []string
	for _, res := range r.results {
		name := res.name.String()
		for _, t := range in {
			if tabs[t][name] && !slices.Contains(out, fn(name)) {
				out = append(out, fn(name))
			}
		}
	}
	return out
}

// procsOf lists the GOMAXPROCS suffixes of r's names in the given tables.
func procsOf(r *runFile, tabs map[string]map[string]bool, in []string) string {
	var procs []string
	for _, n := range names(r, tabs, in, procsSuffix) {
		if n == "" {
			n = "none (GOMAXPROCS 1)"
		}
		procs = append(procs, n)
	}
	return strings.Join(procs, " and ")
}

// configFailure explains why old and new have no benchstat table in
// common: the keys whose values differ, and the settings (which make
// ignoring those keys no way to compare them).
func configFailure(old, new *runFile, ignoreCache bool, settings []summary.Difference) failure {
	f := failure{fmt.Sprintf("%s and %s ran in different configurations: benchstat would put them in separate tables and compare nothing", old.input, new.input)}
	var differ []string
	cacheDiffers := false
	var workloads []string
	for _, k := range configKeys([]*runFile{old, new}, false) {
		ov, nv := values(old, k), values(new, k)
		if slices.Equal(effective(ov, k), effective(nv, k)) {
			continue
		}
		od, nd := describe(ov, k), describe(nv, k)
		if od == nd {
			od, nd = describeRaw(ov, k), describeRaw(nv, k)
		}
		f = append(f, fmt.Sprintf("%s differs: %s in %s against %s in %s", k, od, old.input, nd, new.input))
		switch {
		case k == cacheKey:
			cacheDiffers = true
		case slices.Contains(summary.WorkloadKeys, k):
			workloads = append(workloads, k)
		default:
			differ = append(differ, k)
		}
	}
	f = append(f, notComparable(settings)...)
	switch {
	case cacheDiffers:
		f = append(f, "cold and warm runs do not compare: a cold run's TTFT includes the whole prompt's prefill, a warm run's only a prompt-cache hit")
	case len(workloads) > 0:
		f = append(f, workloadsDiffer(workloads, old, new)...)
	case len(settings) > 0:
		// Ignoring the keys would compare runs of different settings.
	case len(differ) > 0:
		f = append(f, "to compare them anyway: "+hint(differ, ignoreCache, old, new))
	default:
		// Each key's values are the same sets, in different combinations.
		f = append(f, "no configuration of one is in the other")
	}
	if len(settings) > 0 {
		f = append(f, settingsWhy(settings))
	}
	return f
}

// notComparable names each setting that differs with both values, a line
// each: "not comparable: max_tokens 128 in OLD, 256 in NEW".
func notComparable(settings []summary.Difference) []string {
	var out []string
	for _, d := range settings {
		out = append(out, fmt.Sprintf("not comparable: %s %s in OLD, %s in NEW", d.Setting, d.Old, d.New))
	}
	return out
}

// settingsWhy says why runs of different settings do not compare, naming
// the variables that set them.
func settingsWhy(settings []summary.Difference) string {
	var envs []string
	for _, d := range settings {
		if !slices.Contains(envs, d.Env) {
			envs = append(envs, d.Env)
		}
	}
	return "runs of different settings do not compare: they asked each request for other work (the reply's length or sampling, " +
		"the prompt, the context, the arrivals), so every figure and the canary replies change with the settings, " +
		"whatever the runtime did (" + strings.Join(envs, ", ") + ")"
}

// value is a configuration key's value in a result; nil if it had none.
type value *string

// values returns the distinct values of key in r's results, in file order.
func values(r *runFile, key string) []value {
	var vs []value
	for _, res := range r.results {
		var v value
		if s, ok := r.configs[res.config].lookup(key); ok {
			v = &s
		}
		if !slices.ContainsFunc(vs, func(w value) bool { return same(v, w) }) {
			vs = append(vs, v)
		}
	}
	return vs
}

func same(a, b value) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// effective returns vs as strings, sorted, a missing workload key being
// what its absence means (summary.Absent: a missing cache is warm).
func effective(vs []value, key string) []string {
	var out []string
	for _, v := range vs {
		s := "\x00none"
		if v != nil {
			s = *v
		} else if absent, _, ok := summary.Absent(key); ok {
			s = absent
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// describe shows values for a message, without the trailing blanks go
// test leaves after the cpu name.
func describe(vs []value, key string) string {
	return describeWith(vs, key, func(s string) string { return strings.TrimRight(s, " \t") })
}

// describeRaw shows values exactly, for values that differ only in blanks.
func describeRaw(vs []value, key string) string {
	return describeWith(vs, key, func(s string) string { return s })
}

func describeWith(vs []value, key string, show func(string) string) string {
	var parts []string
	for _, v := range vs {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%q", show(*v)))
		} else if absent, why, ok := summary.Absent(key); ok {
			parts = append(parts, fmt.Sprintf("%q (%s)", absent, why))
		} else {
			parts = append(parts, "no "+key+" line")
		}
	}
	return strings.Join(parts, " and ")
}

// hint is the benchstat command that compares the runs ignoring keys.
func hint(keys []string, ignoreCache bool, runs ...*runFile) string {
	if ignoreCache {
		keys = append([]string{cacheKey}, keys...)
	}
	cmd := []string{"go", "tool", "benchstat", "-ignore", strings.Join(keys, ",")}
	for _, r := range runs {
		cmd = append(cmd, shellQuote(r.label))
	}
	return strings.Join(cmd, " ")
}

// benchstatArgs returns benchstat's arguments: the flags, then the files.
func benchstatArgs(ignoreCache bool, flags []string, runs ...*runFile) []string {
	args := slices.Clone(flags)
	if ignoreCache {
		args = append(args, "-ignore", cacheKey)
	}
	args = append(args, "--")
	for _, r := range runs {
		args = append(args, fileArg(r.label))
	}
	return args
}

// fileArg is the argument that has benchstat read path, labelled path:
// benchstat takes what comes before a "=" as a label, so a path with one
// gets a label without it.
func fileArg(path string) string {
	if strings.Contains(path, "=") {
		return strings.ReplaceAll(path, "=", "_") + "=" + path
	}
	return path
}

// runtimeOf returns the runtime of a benchmark of the suite, "" for
// another name.
func runtimeOf(name benchfmt.Name) string {
	k, _, err := bench.ParseName(string(name))
	if err != nil {
		return ""
	}
	return k.Runtime
}

// withoutRuntime returns name without its runtime= part, as benchstat
// -col /runtime names its rows.
func withoutRuntime(name benchfmt.Name) string {
	base, parts := name.Parts()
	s := string(base)
	for _, p := range parts {
		if !bytes.HasPrefix(p, []byte("/runtime=")) {
			s += string(p)
		}
	}
	return s
}

// stripProcs returns name without its GOMAXPROCS suffix.
func stripProcs(name string) string {
	return strings.TrimSuffix(name, procsSuffix(name))
}

// procsSuffix returns name's GOMAXPROCS suffix ("-2"), "" if none: the
// last part of any name as benchfmt splits it, also of a name without its
// runtime= part.
func procsSuffix(name string) string {
	_, parts := benchfmt.Name(name).Parts()
	if n := len(parts); n > 0 && parts[n-1][0] == '-' {
		return string(parts[n-1])
	}
	return ""
}

// list shows up to three items and how many more there are.
func list(items []string) string {
	const show = 3
	if len(items) <= show {
		if len(items) <= 1 {
			return strings.Join(items, "")
		}
		return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
	}
	return strings.Join(items[:show], ", ") + " and " + plural(len(items)-show, "more")
}

func plural(n int, what string) string {
	if n == 1 || what == "more" {
		return fmt.Sprintf("%d %s", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// shellQuote quotes s for a POSIX shell where it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// workloadsDiffer says why runs whose workload keys (summary.WorkloadKeys)
// differ do not compare, one line a kind of difference.
func workloadsDiffer(keys []string, old, new *runFile) []string {
	var f []string
	if slices.Contains(keys, summary.KeyTurns) || slices.Contains(keys, summary.KeySharedPrefix) {
		f = append(f, "runs of different conversations do not compare: a later turn's TTFT includes its history, a shared prefix's the prefix or a hit on it (BENCH_TURNS, BENCH_SHARED_PREFIX)")
	}
	if slices.Contains(keys, summary.KeyImages) {
		f = append(f, "runs with different images do not compare: a request's images are prefilled with its prompt (BENCH_IMAGES)")
	}
	if slices.Contains(keys, summary.KeyEmbedBatch) {
		f = append(f, "embeddings runs of different batch sizes do not compare: a request of more inputs is more work (BENCH_EMBED_BATCH); to set the sizes side by side: go tool benchstat -col "+summary.KeyEmbedBatch+" "+shellQuote(old.label)+" "+shellQuote(new.label))
	}
	return f
}
