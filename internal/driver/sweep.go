package driver

import (
	"fmt"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// minGrowth is how much more aggregate throughput a sweep step must give
// than the step before for the sweep to go on.
const minGrowth = 0.05

// sweepStop says whether a concurrency sweep stops after the step at
// concurrency n (row) that followed prev: when throughput grew by less
// than minGrowth, when TTFT's p95 broke the SLO's TTFT target, when no
// request succeeded, or at the sweep's bound. The knee is the highest
// concurrency that still paid off: the step before, unless this one is
// the bound and still grew.
func sweepStop(row, prev *summary.Row, slo stats.SLO, n, bound int) *summary.SweepStop {
	stop := &summary.SweepStop{Concurrency: n, Knee: n / 2}
	if row != nil {
		stop.Runtime, stop.Prompt = row.Runtime, row.Prompt
	}
	switch {
	case row == nil || row.AggregateTPSMean == nil:
		stop.Reason = "no request succeeded"
	case slo.TTFT > 0 && row.TTFTP95 != nil && *row.TTFTP95 > slo.TTFT.Seconds():
		stop.Reason = fmt.Sprintf("TTFT p95 %v broke the SLO's %v", seconds(*row.TTFTP95), slo.TTFT)
	case prev != nil && prev.AggregateTPSMean != nil && *row.AggregateTPSMean < (1+minGrowth)**prev.AggregateTPSMean:
		stop.Reason = fmt.Sprintf("aggregate throughput grew %+.1f%% (%.1f → %.1f tok/s), less than %.0f%%",
			100*(*row.AggregateTPSMean / *prev.AggregateTPSMean - 1), *prev.AggregateTPSMean, *row.AggregateTPSMean, 100*minGrowth)
	case n*2 > bound:
		stop.Knee = n
		stop.Reason = fmt.Sprintf("reached the sweep's bound, %d, still growing", bound)
	default:
		return nil
	}
	return stop
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
}
