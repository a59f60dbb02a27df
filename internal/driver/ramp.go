package driver

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A leaf run's ramp (BENCH_RAMP) grows the load to the leaf's after its
// warm-ups, before its timed part, so that a server's caches and batches
// fill the way production traffic fills them (vllm bench serve's
// --ramp-up-strategy, AIPerf's --concurrency-ramp-duration):
//
//   - a closed loop of concurrency n starts its n workers one by one,
//     worker w at w/n of the ramp, each sending the leaf's request (a
//     conversation of BENCH_TURNS) again and again, at least once, until
//     the ramp is over; the timed rounds begin when the last has ended;
//   - an open loop's rate rises linearly from 0 to the leaf's over the
//     ramp (arrivals of the leaf's burstiness, about rate × ramp / 2 of
//     them), and the timed arrivals begin at once after it, at the full
//     rate, with the ramp's requests still in flight (they hold places
//     under BENCH_MAX_INFLIGHT; the leaf waits for them at its end).
//
// Its requests are warm-ups: recorded with "warmup" and "ramp" set, in no
// figure.

// rampStart is when worker w of n starts in a closed loop's ramp of
// length d, from the ramp's start: w/n of it.
func rampStart(w, n int, d time.Duration) time.Duration {
	return time.Duration(float64(d) * float64(w) / float64(n))
}

// rampAt is when an open loop's ramp of length d to rate has had s
// arrivals' worth of time (the sum of gaps of mean 1): its rate at t is
// rate·t/d, so arrivals up to t are rate·t²/(2d), and t = √(2sd/rate).
// It is d or more past the ramp's end.
func rampAt(s, rate float64, d time.Duration) time.Duration {
	return time.Duration(math.Sqrt(2*s*d.Seconds()/rate) * float64(time.Second))
}

// ramp runs the leaf run's ramp, if it has one.
func (l *Leaf) ramp() {
	d := time.Duration(l.d.Settings.Ramp)
	if d <= 0 || l.ctx.Err() != nil {
		return
	}
	if l.open != nil {
		l.rampOpen(d)
		return
	}
	l.rampClosed(d)
}

// rampRequest is request j of the ramp's round: a warm-up's, in round
// warm-ups + 1 + i.
func (l *Leaf) rampRequest(i, j int) runtimes.Request {
	return l.coldRequest(l.req, true, l.warmups+1+i, j)
}

// rampClosed runs a closed loop's ramp of length d and records its
// requests.
func (l *Leaf) rampClosed(d time.Duration) {
	n := l.key.Concurrency
	start := time.Now()
	end := start.Add(d)
	var (
		mu      sync.Mutex // the driver's conversation ids, results
		results []runtimes.Result
		wg      sync.WaitGroup
	)
	for w := range n {
		wg.Go(func() {
			if !sleepUntil(l.ctx, start.Add(rampStart(w, n, d))) {
				return
			}
			for i := 0; i == 0 || time.Now().Before(end) && l.ctx.Err() == nil; i++ {
				mu.Lock()
				req := l.rampRequest(i, w)
				mu.Unlock()
				chat := l.rt.Converse(l.ctx, req, l.d.follow)
				mu.Lock()
				results = append(results, chat...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	l.recordRamp(results)
}

// rampOpen sends an open loop's ramp of length d: its arrivals, each in
// a goroutine of its own, until d has passed.
func (l *Leaf) rampOpen(d time.Duration) {
	o := l.open
	gaps := newArrivals(1, l.d.Settings.Burstiness, l.progress.name+" ramp", 0)
	start := time.Now()
	s := 0.0
	for i := 0; ; i++ {
		s += gaps.next().Seconds()
		at := rampAt(s, o.rate, d)
		if at >= d || !sleepUntil(l.ctx, start.Add(at)) {
			break
		}
		o.rampSend(func(r runtimes.Request) []runtimes.Result { return l.rt.Converse(l.ctx, r, l.d.follow) }, l.rampRequest(0, i))
	}
	sleepUntil(l.ctx, start.Add(d))
}

// rampSend sends req, a ramp's arrival, in a goroutine of its own once it
// has a place under the in-flight cap; end waits for it, and rampResults
// has its conversation.
func (o *openLoop) rampSend(send func(runtimes.Request) []runtimes.Result, req runtimes.Request) {
	o.slots <- struct{}{}
	o.wg.Go(func() {
		res := send(req)
		o.mu.Lock()
		o.ramp = append(o.ramp, res...)
		o.mu.Unlock()
		<-o.slots
	})
}

// rampResults are the requests of the open loop's ramp; call it after
// end.
func (o *openLoop) rampResults() []runtimes.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ramp
}

// recordRamp appends the ramp's requests to the run's request records,
// as warm-ups marked "ramp" (round warm-ups + 1).
func (l *Leaf) recordRamp(results []runtimes.Result) {
	if len(results) == 0 {
		return
	}
	for _, res := range results {
		l.d.versionFromReply(l.rt, res)
	}
	recs := records.OfRound(l.key, l.count, l.warmups+1, true, l.d.Run.CreatedAt, results, records.Keep{Chunks: l.d.Settings.RecordChunks, Text: l.d.Settings.RecordText})
	for j := range recs {
		recs[j].Ramp = true
	}
	l.appendRecords(recs)
}

// rampTail is the output tokens of the ramp's requests that ended after
// from, the timed part's start: a server's counters read then count some
// of them.
func rampTail(results []runtimes.Result, from time.Time) int {
	n := 0
	for _, res := range results {
		if !res.Start.IsZero() && res.Start.Add(res.Total).After(from) {
			n += res.OutputTokens
		}
	}
	return n
}

// sleepUntil sleeps until t, or until ctx is done: it reports whether t
// came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
