package stats

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// SLO are latency targets a request must meet to count toward goodput
// (BENCH_SLO, e.g. "ttft=2s,tpot=50ms,total=30s"). A zero target is not
// set; the zero SLO sets none, and then there is no goodput.
type SLO struct {
	TTFT, TPOT, Total time.Duration
}

// Set reports whether any target is set.
func (s SLO) Set() bool { return s.TTFT > 0 || s.TPOT > 0 || s.Total > 0 }

// ParseSLO reads "ttft=2s,tpot=50ms,total=30s" (any subset, any order).
func ParseSLO(v string) (SLO, error) {
	var s SLO
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return SLO{}, fmt.Errorf("%q: want name=duration, e.g. ttft=2s", part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("%q: %q is not a duration above 0 (2s, 50ms)", part, val)
		}
		var t *time.Duration
		switch strings.TrimSpace(name) {
		case "ttft":
			t = &s.TTFT
		case "tpot":
			t = &s.TPOT
		case "total":
			t = &s.Total
		default:
			return SLO{}, fmt.Errorf("%q: unknown target %q; the targets are ttft, tpot and total", part, name)
		}
		if *t != 0 {
			return SLO{}, fmt.Errorf("%q: %s is given twice", part, name)
		}
		*t = d
	}
	return s, nil
}

// String is the SLO as ParseSLO reads it, "" for none.
func (s SLO) String() string {
	var parts []string
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"total", s.Total}} {
		if t.d > 0 {
			parts = append(parts, t.name+"="+t.d.String())
		}
	}
	return strings.Join(parts, ",")
}

// meets reports whether a successful request with these figures meets
// every target. A request with fewer than two tokens has no TPOT and meets
// a TPOT target.
func (s SLO) meets(ttft, total time.Duration, tpot float64, hasTPOT bool) bool {
	return (s.TTFT == 0 || ttft <= s.TTFT) &&
		(s.Total == 0 || total <= s.Total) &&
		(s.TPOT == 0 || !hasTPOT || tpot <= s.TPOT.Seconds())
}

// OpenLoop is how an open-loop leaf run sent its requests: at the arrival
// times of a process of rate Rate, whatever was still in flight.
type OpenLoop struct {
	Rate float64 // requests per second asked for
	Sent int
	// SendWindow is from the first request sent to the last.
	SendWindow time.Duration
	// SendLags are how late each request was sent against its arrival
	// time, in seconds: the client's own lag (and the in-flight cap's).
	SendLags []float64
	// InflightMax is the most requests in flight at once; Capped counts
	// the arrivals that had to wait for the cap (BENCH_MAX_INFLIGHT).
	InflightMax, Capped int
}

// Number is a float64 written as null when it is not finite: JSON has no
// NaN or Inf.
type Number float64

func (n Number) MarshalJSON() ([]byte, error) {
	if !finite(float64(n)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}
