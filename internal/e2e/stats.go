package e2e

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// median is stats.Median: the e2e's figures are read the way the
// summary computes its own.
func median(xs []float64) float64 { return stats.Median(xs) }

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
