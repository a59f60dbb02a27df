package e2e

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
)

// median returns the median of xs, the mean of the middle two for an even
// count; NaN if xs is empty. xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// within reports whether ratio is within 1 ± tol. NaN, from a figure that
// is missing, is never within.
func within(ratio, tol float64) bool {
	return math.Abs(ratio-1) <= tol
}

// millis returns d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / 1e6 }

// val returns *p, or NaN for nil (a figure the summary has as null).
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func floatOrNull(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// fixedOrNull is *p with prec decimals, or "null" for nil.
func fixedOrNull(p *float64, prec int) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', prec, 64)
}

func intOrNull(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

func boolOrNull(p *bool) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatBool(*p)
}

// hasKey reports whether a runtime's model metadata holds a reply, not
// null, under key ("show" for Ollama's /api/show, "ps" for its /api/ps).
func hasKey(meta json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	v := bytes.TrimSpace(m[key])
	return len(v) > 0 && !bytes.Equal(v, []byte("null"))
}
