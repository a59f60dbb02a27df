package config

import (
	"fmt"
	"math"
	"strings"

	"github.com/inferencebench/inferencebench/internal/workload"
)

// Length is BENCH_MAX_TOKENS: a length in tokens ("128", "1k") or a
// distribution of lengths ("normal:256,64", "uniform:16-512"), from which
// each request draws its own (workload.ParseDistribution).
type Length struct{ workload.Distribution }

func (l *Length) UnmarshalText(b []byte) error {
	d, err := workload.ParseDistribution(string(b))
	if err != nil {
		return err
	}
	l.Distribution = d
	return nil
}

// Varies reports whether requests draw lengths of their own: a
// distribution that is not one length.
func (l Length) Varies() bool { return l.Kind() != "" && !l.IsFixed() }

// InputLengths is BENCH_INPUT_TOKENS: a comma list whose items are
// lengths ("512", "8k": the in<N> prompts, as InputTokens reads them) or
// distributions ("normal:1024,256", "uniform:128-2048": a prompt each,
// whose every request draws its own length). The comma inside
// normal:MEAN,SD belongs to it.
type InputLengths struct {
	Fixed InputTokens
	Dists []workload.Distribution
}

func (in *InputLengths) UnmarshalText(b []byte) error {
	*in = InputLengths{}
	items := strings.Split(string(b), ",")
	var fixed []string
	seen := map[string]bool{}
	for i := 0; i < len(items); i++ {
		s := strings.TrimSpace(items[i])
		kind, _, dist := strings.Cut(s, ":")
		if !dist {
			fixed = append(fixed, items[i])
			continue
		}
		if strings.EqualFold(strings.TrimSpace(kind), "normal") && i+1 < len(items) {
			i++
			s += "," + strings.TrimSpace(items[i])
		}
		d, err := workload.ParseDistribution(s)
		if err != nil {
			return err
		}
		if d.Bound() > MaxInputTokens {
			return fmt.Errorf("%q: draws up to %d tokens, above the largest length, %d", s, d.Bound(), MaxInputTokens)
		}
		if seen[d.String()] {
			return fmt.Errorf("%q is listed twice", s)
		}
		seen[d.String()] = true
		in.Dists = append(in.Dists, d)
	}
	if len(fixed) > 0 {
		return in.Fixed.UnmarshalText([]byte(strings.Join(fixed, ",")))
	}
	return nil
}

// workloadProblems checks BENCH_WORKLOAD and the settings that go with
// it. The files themselves are read by the driver, before any request.
func (s Settings) workloadProblems(environ map[string]string) []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	// Empty is unset, as for every variable.
	set := func(name string) bool { v, _ := lookupIn(environ, name); return v != "" }
	if s.WorkloadN < 0 {
		bad(Var("WorkloadN"), "must be 0 (every item of the workload) or more")
	}
	if !(s.TraceSpeed > 0) || math.IsInf(s.TraceSpeed, 0) {
		bad(Var("TraceSpeed"), "must be a number above 0 (1 replays a trace at its recorded times, 2 twice as fast)")
	}
	if set(Var("Workload")) && strings.TrimSpace(s.Workload) == "" {
		bad(Var("Workload"), "must name a workload file")
	}
	if set(Var("Tools")) && strings.TrimSpace(s.Tools) == "" {
		bad(Var("Tools"), "must name a tools file (a JSON array of OpenAI tools)")
	}
	if strings.TrimSpace(s.Workload) == "" {
		for _, name := range []string{Var("WorkloadN"), Var("TraceSpeed")} {
			if set(name) {
				bad(name, "has no effect without BENCH_WORKLOAD")
			}
		}
		return ps
	}
	if s.Turns > 1 {
		bad(Var("Turns"), "a workload (BENCH_WORKLOAD) brings its own turns: leave BENCH_TURNS unset")
	}
	if s.SharedPrefix > 0 {
		bad(Var("SharedPrefix"), "a workload (BENCH_WORKLOAD) brings its own prompts: leave BENCH_SHARED_PREFIX unset")
	}
	return ps
}
