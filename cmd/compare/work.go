package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// What a run's requests were, where it is not the suite's default: the
// API, the prompts, the loads, the cache mode, conversations, a shared
// prefix, a workload, images, tools, what the server was started with. Runs
// of one runtime at one version that did other work have no benchmark in
// common (or none alike), so -list shows it in its WORK column and
// NAME@VERSION, as a second argument, takes only a run whose work is the
// first's.

// work is the run's work as -list shows it: "key=value" items, space
// apart, the prompts always, the rest where not the default.
func work(f *summary.File) string {
	a := f.Arguments
	var out []string
	add := func(key, value string) { out = append(out, key+"="+value) }
	if a.API != "" && a.API != suiteconfig.Default("API") {
		add("api", a.API)
	}
	if a.EmbedBatch > 1 {
		add("batch", strconv.Itoa(a.EmbedBatch))
	}
	if len(a.Prompts) > 0 {
		add("prompts", strings.Join(a.Prompts, ","))
	}
	if conc := joinInts(a.Concurrency); a.Sweep != nil {
		add("conc", fmt.Sprintf("sweep:%d", a.Sweep.Max))
	} else if conc != suiteconfig.Default("Concurrency") && (conc != "" || len(a.Rates) == 0) {
		add("conc", orNoneShort(conc))
	}
	if len(a.Rates) > 0 {
		var rs []string
		for _, r := range a.Rates {
			rs = append(rs, strconv.FormatFloat(r, 'f', -1, 64))
		}
		add("rates", strings.Join(rs, ","))
	}
	if c := a.CacheMode(); c != suiteconfig.Default("Cache") {
		add("cache", c)
	}
	if a.Turns > 1 {
		add("turns", strconv.Itoa(a.Turns))
	}
	if a.SharedPrefix > 0 {
		add("prefix", strconv.Itoa(a.SharedPrefix))
	}
	if a.Workload != nil {
		add("workload", *a.Workload)
	}
	if a.Images != "" {
		add("images", a.Images)
	}
	if a.ToolsSHA256 != nil {
		add("tools", *a.ToolsSHA256)
	}
	return strings.Join(out, " ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func orNoneShort(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// workOf is the work of runtime's rows in the run r: the run's work and
// the runtime's kind and server settings, which decide whether two runs
// of it did alike work.
func workOf(r savedRun, runtime string) string {
	w := work(r.file)
	for _, rt := range r.file.Runtimes {
		if rt.Name == runtime {
			w += " kind=" + rt.Kind
			if env := serverEnv(rt); env != "" {
				w += " " + env
			}
		}
	}
	return w
}

// serverEnv is the server settings a runtime's run stated
// (NAME_SERVER_ENV), KEY=VALUE space apart in the keys' order; "" for
// none.
func serverEnv(rt summary.RuntimeInfo) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(rt.ServerEnv)) {
		kv = append(kv, k+"="+rt.ServerEnv[k])
	}
	return strings.Join(kv, " ")
}

// likeOf is the summary beside the first of ins, the other side a second
// NAME@VERSION is chosen to be like; nil where there is none yet, or no
// summary beside it.
func likeOf(ins []input) *summary.File {
	if len(ins) == 0 {
		return nil
	}
	f, err := summary.Read(strings.TrimSuffix(ins[0].path, summary.ExtBench) + summary.ExtJSON)
	if err != nil {
		return nil
	}
	return f
}
