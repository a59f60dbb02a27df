package bench

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Key identifies a leaf benchmark: one runtime serving one model, one prompt
// and one load: a concurrency level (closed loop: rounds of n requests at
// once), or a request rate (open loop: Rate requests per second on
// average, Concurrency 0).
type Key struct {
	Runtime, Model, Prompt string
	Concurrency            int
	Rate                   float64
	// API is the API the requests went through (BENCH_API), named in
	// the leaf's last level, api=<api>, unless it is the chat ("" or
	// "chat"), whose leaves keep the names they always had.
	API string
}

// Levels is the leaf's name under BenchmarkInference, one key=value per
// level: runtime=<runtime>/prompt=<prompt>/conc=<n>, or …/rate=<r> for an
// open-loop leaf. BenchmarkInference names its sub-benchmarks with it, and
// the .txt names its results by it.
func (k Key) Levels() string { return "runtime=" + safe(k.Runtime) + "/" + k.Workload() + k.apiLevel() }

// apiLevel is "/api=<api>" for an API other than the chat, else "".
func (k Key) apiLevel() string {
	if k.API == "" || k.API == "chat" {
		return ""
	}
	return "/api=" + safe(k.API)
}

// Workload is the levels below the runtime's: prompt=<prompt>/<Load>, what
// two runtimes' leaves share when they ran the same work.
func (k Key) Workload() string { return "prompt=" + safe(k.Prompt) + "/" + k.Load() }

// Load is the last level: conc=<n>, or rate=<r> for an open-loop leaf.
func (k Key) Load() string {
	if k.Rate > 0 {
		return "rate=" + FormatRate(k.Rate)
	}
	return "conc=" + strconv.Itoa(k.Concurrency)
}

// Name is the leaf's benchmark name without the "Benchmark" prefix and the
// GOMAXPROCS suffix, as go test prints it: Inference/<Levels>.
func (k Key) Name() string { return "Inference/" + k.Levels() }

// nameProcs is Name with the GOMAXPROCS suffix go test appends to it
// while procs were in use: none for 1.
func (k Key) nameProcs(procs int) string {
	if procs != 1 {
		return fmt.Sprintf("%s-%d", k.Name(), procs)
	}
	return k.Name()
}

// safe makes s usable as one level of a benchmark name: spaces become '_'
// and unprintable runes are escaped, as go test does, and '/' becomes '_'
// so s stays one level that benchstat can address (-col /runtime).
func safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '/' || unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FormatRate is an open-loop rate as benchmark names and reports show it:
// the shortest decimal that reads back the same (0.5, 2, 12.5).
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

// ParseName reads a benchmark name as go test and the .txt write it —
// "BenchmarkInference/runtime=sim/prompt=short/conc=4-2", with or without
// "Benchmark" and the GOMAXPROCS suffix — back into the levels of its key
// (Key.Levels; the model is not in the name, and a name made safe stays
// so) and its suffix ("-2", "" without one).
func ParseName(name string) (k Key, procs string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "Benchmark"), "Inference/")
	if !ok {
		return Key{}, "", fmt.Errorf("benchmark name %q: want Inference/runtime=…/prompt=…/conc=… or …/rate=…", name)
	}
	if i := strings.LastIndexByte(rest, '-'); i > strings.LastIndexByte(rest, '/') {
		if _, err := strconv.Atoi(rest[i+1:]); err == nil {
			rest, procs = rest[:i], rest[i:]
		}
	}
	levels := strings.Split(rest, "/")
	if n := len(levels); n == 4 {
		api, ok := strings.CutPrefix(levels[3], "api=")
		if !ok {
			return Key{}, "", fmt.Errorf("benchmark name %q: level 4 is %q, want api=…", name, levels[3])
		}
		k.API, levels = api, levels[:3]
	}
	if len(levels) != 3 {
		return Key{}, "", fmt.Errorf("benchmark name %q: want 3 levels (runtime, prompt, load), got %d", name, len(levels))
	}
	for i, want := range []string{"runtime", "prompt", ""} {
		key, val, ok := strings.Cut(levels[i], "=")
		switch {
		case !ok || (want != "" && key != want):
			return Key{}, "", fmt.Errorf("benchmark name %q: level %d is %q, want %s=…", name, i+1, levels[i], levelWant(want))
		case i == 0:
			k.Runtime = val
		case i == 1:
			k.Prompt = val
		case key == "conc":
			k.Concurrency, err = strconv.Atoi(val)
		case key == "rate":
			k.Rate, err = strconv.ParseFloat(val, 64)
		default:
			return Key{}, "", fmt.Errorf("benchmark name %q: level 3 is %q, want conc=… or rate=…", name, levels[i])
		}
		if err != nil {
			return Key{}, "", fmt.Errorf("benchmark name %q: %q is not a number", name, val)
		}
	}
	return k, procs, nil
}

func levelWant(level string) string {
	if level == "" {
		return "conc or rate"
	}
	return level
}
