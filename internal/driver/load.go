package driver

import (
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The model's load time in a leaf run (summary.Telemetry.LoadS): what the
// server states of its warm-up requests that waited for a load (Ollama's
// load_duration), or, where it states none after the model was unloaded
// (BENCH_FRESH=leaf through Ollama's /v1), what the first warm-up round's
// first turns took to their first token beyond the timed ones.

// loadWatch is what the warm-ups showed of a load.
type loadWatch struct {
	unloaded bool          // the model was unloaded before the warm-ups
	stated   time.Duration // the stated loads' sum
	n        int           // the warm-up requests that stated a load
	// firstTTFT is the mean TTFT of the first warm-up round's successful
	// first turns, firstN of them.
	firstTTFT time.Duration
	firstN    int
}

// warmUpRound notes round i (from 1) of the warm-ups.
func (w *loadWatch) warmUpRound(i int, results []runtimes.Result) {
	var sum time.Duration
	n := 0
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		if stats.Loaded(res) {
			w.stated += res.LoadDuration
			w.n++
		}
		if i == 1 && res.Turn <= 1 {
			sum += res.TTFT
			n++
		}
	}
	if n > 0 {
		w.firstTTFT, w.firstN = sum/time.Duration(n), n
	}
}

// loadTime is the leaf run's load time, in seconds, and whose figure it
// is (summary.LoadFromServer or LoadFromClient); nil where no load was
// seen, or the first warm-ups were no slower than the timed requests.
func (w loadWatch) loadTime(rounds []stats.Round) (*float64, string) {
	if w.n > 0 {
		s := (w.stated / time.Duration(w.n)).Seconds()
		return &s, summary.LoadFromServer
	}
	if !w.unloaded || w.firstN == 0 {
		return nil, ""
	}
	timed, ok := firstTurnTTFT(rounds)
	if !ok || w.firstTTFT <= timed {
		return nil, ""
	}
	s := (w.firstTTFT - timed).Seconds()
	return &s, summary.LoadFromClient
}

// firstTurnTTFT is the mean TTFT of the successful first turns of the
// timed rounds.
func firstTurnTTFT(rounds []stats.Round) (time.Duration, bool) {
	var sum time.Duration
	n := 0
	add := func(ttft time.Duration, turn int, err error) {
		if err == nil && turn <= 1 {
			sum += ttft
			n++
		}
	}
	for _, rd := range rounds {
		for _, res := range rd.Results {
			add(res.TTFT, res.Turn, res.Err)
		}
		for _, r := range rd.Replies {
			add(r.TTFT, int(r.Turn), r.Err)
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / time.Duration(n), true
}
