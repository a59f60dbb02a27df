//go:build timing

package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The control leaf's error rates on the simulator, the numbers
// docs/method.md quotes: a short two-leaf suite (prompt short at
// concurrency 1, then 4; one warm-up and 3 timed rounds each, as
// -benchtime=3x; 5 ms to the first token, 800 tok/s, 32 tokens a reply),
// run 100 times as it is (BENCH_FRESH=leaf, no degradation), of which at
// most 5 may be flagged as drifted, and 100 times on a simulator that
// decodes at half its rate once two requests have run at once
// (SIM_DEGRADE=0.5) with BENCH_FRESH=off, of which at least 95 must be.
// Each run's control runs the 12 rounds its test needs against the first
// leaf's 3 requests. Four suites run at once, each on a simulator of its
// own. A timing test: the steady runs' figures are the machine's noise,
// which only an idle machine keeps small.
func TestControlErrorRatesOnTheSimulator(t *testing.T) {
	const (
		runs    = 100
		atOnce  = 4
		timeout = 2 * time.Minute
	)
	suite := func(settings map[string]string) (stats.Control, error) {
		env := merge(isolated(t), map[string]string{
			"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1,4", "BENCH_WARMUPS": "1",
			"BENCH_MAX_TOKENS": "32", "SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "800",
		}, settings)
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		d, err := setup(ctx, env, &bytes.Buffer{}, Options{})
		if err != nil {
			return stats.Control{}, err
		}
		defer d.Close()
		for k := range d.Leaves() {
			l, _, err := d.Begin(ctx, k)
			if err != nil {
				return stats.Control{}, err
			}
			l.WarmUp()
			for range 3 {
				l.Next()
			}
			if out := l.End(); out.SaveErr != nil || out.Failed != nil {
				return stats.Control{}, errors.Join(out.SaveErr, out.Failed)
			}
		}
		if err := d.Finish(); err != nil {
			return stats.Control{}, err
		}
		f, err := summary.Read(d.files.json)
		if err != nil {
			return stats.Control{}, err
		}
		if len(f.Runtimes) != 1 || f.Runtimes[0].Control == nil {
			return stats.Control{}, fmt.Errorf("no control in %s", d.files.json)
		}
		return f.Runtimes[0].Control.Control, nil
	}
	count := func(settings map[string]string) (flagged int, verdicts map[string]int, sides map[string]int) {
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			errs []error
			sem  = make(chan struct{}, atOnce)
		)
		verdicts, sides = map[string]int{}, map[string]int{}
		for range runs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				c, err := suite(settings)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				verdicts[c.Verdict]++
				sides[fmt.Sprintf("%d/%d", c.RequestsFirst, c.RequestsEnd)]++
				if c.Drifted {
					flagged++
				}
			}()
		}
		wg.Wait()
		assert.Empty(t, errs)
		return flagged, verdicts, sides
	}
	start := time.Now()
	steady, sv, ss := count(nil)
	t.Logf("no degradation, BENCH_FRESH=leaf: flagged %d of %d (verdicts %v; requests first/end %v; %v)",
		steady, runs, sv, ss, time.Since(start).Round(time.Second))
	start = time.Now()
	degraded, dv, ds := count(map[string]string{"SIM_DEGRADE": "0.5", "BENCH_FRESH": "off"})
	t.Logf("SIM_DEGRADE=0.5, BENCH_FRESH=off: flagged %d of %d (verdicts %v; requests first/end %v; %v)",
		degraded, runs, dv, ds, time.Since(start).Round(time.Second))
	assert.LessOrEqual(t, steady, 5, "false alarms")
	assert.GreaterOrEqual(t, degraded, 95, "drifts caught")
	assert.Equal(t, map[string]int{"3/12": runs}, ss, "the control runs the 12 requests its test needs against 3")
}

// A simulator that decodes at half its rate after the conc=4 leaf, not
// reset between leaves, is caught by the control's 3 rounds against the
// first leaf's six runs (TestControlAgainstAllTheFirstLeafsRuns's shape).
func TestControlCatchesAHalvedRate(t *testing.T) {
	t.Parallel()
	controlAgainstAllRuns(t, []controlCase{
		{"degraded", map[string]string{"SIM_DEGRADE": "0.5", "BENCH_FRESH": "off"}, stats.ControlDrifted},
	})
}
