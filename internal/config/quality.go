package config

import (
	"fmt"
	"slices"
	"strings"
)

// The BENCH_QUALITY words: the measurements a run makes besides speed
// (docs/metrics.md, "Quality").
const (
	QualityOff   = "off"   // none (the default)
	QualityAgree = "agree" // each runtime's greedy replies against the reference's
	QualityExact = "exact" // the exact-answer problems
)

// Quality is BENCH_QUALITY: "off", or a comma-separated list of agree and
// exact.
type Quality struct {
	Agree, Exact bool
}

// UnmarshalText reads "off", "agree", "exact" or "agree,exact" (in any
// order, spaces allowed).
func (q *Quality) UnmarshalText(b []byte) error {
	*q = Quality{}
	s := strings.TrimSpace(string(b))
	if s == QualityOff || s == "" {
		return nil
	}
	for _, w := range strings.Split(s, ",") {
		switch w = strings.TrimSpace(w); w {
		case QualityAgree:
			q.Agree = true
		case QualityExact:
			q.Exact = true
		default:
			return fmt.Errorf("%q is not a measurement: want off, or a list of %s and %s (agree,exact)", w, QualityAgree, QualityExact)
		}
	}
	return nil
}

// On reports whether the run measures anything of quality.
func (q Quality) On() bool { return q.Agree || q.Exact }

// String is the setting as a list: "off", "agree", "exact", "agree,exact".
func (q Quality) String() string {
	var ws []string
	if q.Agree {
		ws = append(ws, QualityAgree)
	}
	if q.Exact {
		ws = append(ws, QualityExact)
	}
	if ws == nil {
		return QualityOff
	}
	return strings.Join(ws, ",")
}

// MarshalText writes String, so the setting reads back.
func (q Quality) MarshalText() ([]byte, error) { return []byte(q.String()), nil }

// ReferenceName is the runtime the others are compared with under
// BENCH_QUALITY=agree: BENCH_REFERENCE, or the first of Specs (with
// BENCH_RUNTIMES unset, the first known server probed: the driver takes
// the first runtime found instead).
func (s Settings) ReferenceName() string {
	if s.Reference != "" || len(s.Specs) == 0 {
		return s.Reference
	}
	return s.Specs[0].Name
}

// referenceProblem checks BENCH_REFERENCE against the run's runtimes,
// once they are known: "" when it names one of them, or is unset.
func (s Settings) referenceProblem() string {
	if s.Reference == "" {
		return ""
	}
	if !s.Quality.Agree {
		return "a reference is only read with " + Var("Quality") + "=" + QualityAgree + " (it is " + s.Quality.String() + ")"
	}
	names := make([]string, len(s.Specs))
	for i, sp := range s.Specs {
		names[i] = sp.Name
	}
	if !slices.Contains(names, s.Reference) {
		return "not one of the run's runtimes (" + strings.Join(names, ", ") + ")"
	}
	return ""
}
