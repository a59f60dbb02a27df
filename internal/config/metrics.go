package config

import (
	"fmt"
	"strings"
	"time"
)

// MinMetricsInterval is the shortest BENCH_METRICS_INTERVAL: a server
// answers /metrics in milliseconds, but scraping it faster would put the
// client's own load on the server it measures.
const MinMetricsInterval = 100 * time.Millisecond

// MetricsOff is BENCH_METRICS_INTERVAL's default: no metric series.
const MetricsOff = "off"

// MetricsInterval is how often the driver scrapes each server's /metrics
// during a leaf run's timed part for the metric series
// (BENCH_METRICS_INTERVAL): "off" (0, the default) or a duration of at
// least MinMetricsInterval ("1s", "500ms", or seconds: "2").
type MetricsInterval time.Duration

func (m *MetricsInterval) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == MetricsOff {
		*m = 0
		return nil
	}
	var d Duration
	if err := d.UnmarshalText(b); err != nil {
		return fmt.Errorf("not off or a duration (use 1s, 500ms or a number of seconds)")
	}
	if time.Duration(d) < MinMetricsInterval {
		return fmt.Errorf("must be off or a duration of %v or more (0 and less are not intervals: off turns the series off)", MinMetricsInterval)
	}
	*m = MetricsInterval(d)
	return nil
}

// On reports whether the metric series is taken.
func (m MetricsInterval) On() bool { return m > 0 }

func (m MetricsInterval) String() string {
	if !m.On() {
		return MetricsOff
	}
	return time.Duration(m).String()
}
