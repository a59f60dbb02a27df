package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Distribution is a distribution of lengths in tokens: BENCH_INPUT_TOKENS
// and BENCH_MAX_TOKENS may give one instead of a number, and each request
// then draws its own length.
//
//	1024              fixed: every request 1024 ("k" is 1024: 8k = 8192)
//	normal:1024,256   normal, mean 1024 and standard deviation 256, rounded
//	uniform:128-2048  uniform over the whole numbers 128 to 2048, both included
//
// A draw is at least 1 and at most Bound: a normal draw below 1 is 1, and
// above mean + 4 standard deviations (1 draw in 30,000) is that.
type Distribution struct {
	kind string  // "fixed", "normal", "uniform"
	a, b float64 // fixed: n; normal: mean, SD; uniform: lo, hi
}

// Fixed is the Distribution of the one length n.
func Fixed(n int) Distribution { return Distribution{kind: "fixed", a: float64(n)} }

// maxLength bounds every length a Distribution is given: a billion
// tokens, far above any model's context, so that a typo is an error and
// no sum overflows.
const maxLength = 1e9

// ParseDistribution reads a length or a distribution of lengths (see
// Distribution). Its errors quote s and say what was wanted.
func ParseDistribution(s string) (Distribution, error) {
	in := strings.TrimSpace(s)
	kind, args, found := strings.Cut(in, ":")
	if !found {
		n, err := parseLength(in, true)
		if err != nil {
			return Distribution{}, fmt.Errorf("%q: %v; or normal:MEAN,SD or uniform:LO-HI", s, err)
		}
		if n < 1 {
			return Distribution{}, fmt.Errorf("%q: a length must be 1 or more", s)
		}
		return Distribution{kind: "fixed", a: n}, nil
	}
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "normal":
		m, sd, ok := strings.Cut(args, ",")
		if !ok {
			return Distribution{}, fmt.Errorf("%q: want normal:MEAN,SD (e.g. normal:1024,256)", s)
		}
		mean, err := parseLength(m, false)
		if err != nil {
			return Distribution{}, fmt.Errorf("%q: MEAN: %v (want normal:MEAN,SD)", s, err)
		}
		dev, err := parseLength(sd, false)
		if err != nil {
			return Distribution{}, fmt.Errorf("%q: SD: %v (want normal:MEAN,SD)", s, err)
		}
		switch {
		case mean < 1:
			return Distribution{}, fmt.Errorf("%q: the mean must be 1 or more", s)
		case mean+4*dev > maxLength:
			return Distribution{}, fmt.Errorf("%q: mean + 4 SD is above %d tokens", s, int(maxLength))
		}
		return Distribution{kind: "normal", a: mean, b: dev}, nil
	case "uniform":
		l, h, ok := strings.Cut(args, "-")
		if !ok {
			return Distribution{}, fmt.Errorf("%q: want uniform:LO-HI (e.g. uniform:128-2048)", s)
		}
		lo, err := parseLength(l, true)
		if err != nil {
			return Distribution{}, fmt.Errorf("%q: LO: %v (want uniform:LO-HI)", s, err)
		}
		hi, err := parseLength(h, true)
		if err != nil {
			return Distribution{}, fmt.Errorf("%q: HI: %v (want uniform:LO-HI)", s, err)
		}
		switch {
		case lo < 1:
			return Distribution{}, fmt.Errorf("%q: LO must be 1 or more", s)
		case lo > hi:
			return Distribution{}, fmt.Errorf("%q: LO is above HI", s)
		}
		return Distribution{kind: "uniform", a: lo, b: hi}, nil
	}
	return Distribution{}, fmt.Errorf("%q: unknown distribution %q: want a length (512, 8k), normal:MEAN,SD or uniform:LO-HI", s, kind)
}

// ParseLength reads a length in tokens, a whole number, "k" for 1024
// ("8k" is 8192): the one parser of a length, BENCH_INPUT_TOKENS' and
// BENCH_MAX_TOKENS' and every distribution's. It refuses a negative one
// and one above a billion; what least and most a setting takes is its
// caller's.
func ParseLength(s string) (int, error) {
	x, err := parseLength(s, true)
	return int(x), err
}

// parseLength reads a number of tokens, "k" for 1024: a whole number if
// whole, else one with a fraction too; never negative.
func parseLength(s string, whole bool) (float64, error) {
	s = strings.TrimSpace(s)
	digits, k := strings.CutSuffix(strings.ToLower(s), "k")
	f, ferr := strconv.ParseFloat(digits, 64)
	if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number of tokens (e.g. 512, 8k)", s)
	}
	x := f
	if whole {
		n, err := strconv.Atoi(digits)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number of tokens (e.g. 512, 8k)", s)
		}
		x = float64(n)
	}
	if k {
		x *= 1024
	}
	switch {
	case x < 0:
		return 0, fmt.Errorf("%q is below 0", s)
	case x > maxLength:
		return 0, fmt.Errorf("%q is above %d tokens", s, int(maxLength))
	}
	return x, nil
}

// Kind is "fixed", "normal" or "uniform" ("" for the zero Distribution).
func (d Distribution) Kind() string { return d.kind }

// IsFixed says whether every draw is the same length.
func (d Distribution) IsFixed() bool {
	return d.kind == "fixed" || d.kind == "normal" && d.b == 0 || d.kind == "uniform" && d.a == d.b
}

// String is the distribution as ParseDistribution reads it:
// "1024", "normal:1024,256", "uniform:128-2048".
func (d Distribution) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch d.kind {
	case "normal":
		return "normal:" + f(d.a) + "," + f(d.b)
	case "uniform":
		return "uniform:" + f(d.a) + "-" + f(d.b)
	}
	return f(d.a)
}

// Mean is the distribution's mean, before draws are held to 1…Bound.
func (d Distribution) Mean() float64 {
	if d.kind == "uniform" {
		return (d.a + d.b) / 2
	}
	return d.a
}

// SD is the distribution's standard deviation, before draws are held to
// 1…Bound (of a uniform one over whole numbers: √(((hi−lo+1)²−1)/12)).
func (d Distribution) SD() float64 {
	switch d.kind {
	case "normal":
		return d.b
	case "uniform":
		n := d.b - d.a + 1
		return math.Sqrt((n*n - 1) / 12)
	}
	return 0
}

// Bound is the largest length Sample returns: the length, HI, or a normal
// one's mean + 4 SD rounded up. Context checks use it.
func (d Distribution) Bound() int {
	switch d.kind {
	case "normal":
		return max(1, int(math.Ceil(d.a+4*d.b)))
	case "uniform":
		return int(d.b)
	}
	return max(1, int(d.a))
}

// Sample draws a length from r, at least 1 and at most Bound.
func (d Distribution) Sample(r *rand.Rand) int {
	switch d.kind {
	case "normal":
		x := math.Round(d.a + d.b*r.NormFloat64())
		return min(max(1, int(x)), d.Bound())
	case "uniform":
		return int(d.a) + r.IntN(int(d.b-d.a)+1)
	}
	return d.Bound()
}
