//go:build timing && (linux || darwin)

package runtimes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/runtimes"
)

// At 256 streams the client holds at most 80 KiB a stream, its connection
// and goroutines included (a bare net/http + bufio loop holds about 30:
// BenchmarkStreamMemory compares the two, CPU per chunk too, which is
// too noisy on a shared machine to hold to a bound here).
func TestStreamMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's bookkeeping would be measured, not the client")
	}
	url := startMemSim(t)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			loop, tr := clientLoop(t, kind, url)
			defer tr.CloseIdleConnections()
			m := &memMeter{loop: loop}
			m.open(t)
			retry(t, func(c *collect) {
				r := &memMeter{loop: m.loop, idle: m.idle} // this attempt's round alone
				r.measure(t)
				if r.sampled == 0 {
					c.Errorf("a stream was not open when the memory was sampled")
					return
				}
				f := r.figures(t)
				t.Logf("%v", f)
				assert.LessOrEqual(c, f.kibPerStream, 80.0, "KiB per stream at 256 streams")
			})
		})
	}
}
