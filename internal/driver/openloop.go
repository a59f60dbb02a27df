package driver

import (
	"runtime"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// openLoop sends an open-loop leaf's requests: each at its arrival time,
// whatever is still in flight, up to BENCH_MAX_INFLIGHT at once (an
// arrival that finds the cap full waits, and is counted).
type openLoop struct {
	rate     float64
	arrivals *arrivals
	slots    chan struct{} // one per request in flight
	wg       sync.WaitGroup

	start, due time.Time // the first arrival; the latest arrival's time

	// at, if set, is when arrival i is due from the first (a trace's
	// recorded times); otherwise the gaps are arrivals'.
	at func(i int) time.Duration

	mu          sync.Mutex
	results     [][]runtimes.Result // each arrival's conversation
	dues        []time.Time         // each arrival's time
	turns       []int               // each arrival's turns, 0: end's
	asked       []stats.Asked       // each arrival's lengths, if given
	inflight    int
	inflightMax int
	capped      int
	ramp        []runtimes.Result // the ramp's requests (ramp.go)
}

// newOpenLoop returns the open loop of a leaf of n arrivals (0 if not
// known) at rate a second.
func newOpenLoop(rate, burstiness float64, maxInflight, n int, seed string) *openLoop {
	return &openLoop{
		rate:     rate,
		arrivals: newArrivals(rate, burstiness, seed, n),
		slots:    make(chan struct{}, maxInflight),
	}
}

// arrive waits for the next arrival time and sends req at it, in its own
// goroutine, without waiting for the requests in flight: send returns the
// results of the conversation req starts (one, for a single turn).
func (o *openLoop) arrive(send func(runtimes.Request) []runtimes.Result, req runtimes.Request) {
	o.arriveAs(send, req, 0, nil)
}

// arriveAs is arrive of a conversation of turns turns (0: as end is
// told) that asked for asked (nil: the round's lengths).
func (o *openLoop) arriveAs(send func(runtimes.Request) []runtimes.Result, req runtimes.Request, turns int, asked *stats.Asked) {
	switch {
	case o.start.IsZero():
		o.start = time.Now()
		o.due = o.start
	case o.at != nil:
		o.due = o.start.Add(o.at(o.sent()))
	default:
		o.due = o.due.Add(o.arrivals.next())
	}
	waitUntil(o.due)
	select {
	case o.slots <- struct{}{}:
	default:
		o.mu.Lock()
		o.capped++
		o.mu.Unlock()
		o.slots <- struct{}{}
	}
	o.mu.Lock()
	i := len(o.results)
	o.results = append(o.results, nil)
	o.dues = append(o.dues, o.due)
	o.turns = append(o.turns, turns)
	if asked != nil {
		o.asked = append(o.asked, *asked)
	}
	o.inflight++
	o.inflightMax = max(o.inflightMax, o.inflight)
	o.mu.Unlock()
	o.wg.Go(func() {
		res := send(req)
		o.mu.Lock()
		o.results[i] = res
		o.inflight--
		o.mu.Unlock()
		<-o.slots
	})
	// Let the request go out now: a goroutine just started waits on this
	// processor, which the next arrival's spin would otherwise hold.
	runtime.Gosched()
}

// sent is the number of arrivals so far.
func (o *openLoop) sent() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.results)
}

// end waits for the requests in flight and returns the leaf's one round:
// every request of every arrival's conversation, Wall from the first send
// to the last end, and the turns not sent; shape sets the round's other
// fields.
func (o *openLoop) end(turns int, shape stats.Round) stats.Round {
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	ol := &stats.OpenLoop{Rate: o.rate, Sent: len(o.results), InflightMax: o.inflightMax, Capped: o.capped}
	var first, last, end time.Time
	rd := shape
	for i, chat := range o.results {
		rd.Results = append(rd.Results, chat...)
		want := turns
		if o.turns[i] > 0 {
			want = o.turns[i]
		}
		rd.NotSent += want - len(chat)
		if i < len(o.asked) {
			for range chat {
				rd.Asked = append(rd.Asked, o.asked[i])
			}
		}
		if len(chat) == 0 || chat[0].Start.IsZero() {
			continue
		}
		// How late the client sent it: from its arrival time to the
		// moment its first turn went out (the request's own clock start).
		r := chat[0]
		ol.SendLags = append(ol.SendLags, r.Start.Sub(o.dues[i]).Seconds())
		if first.IsZero() || r.Start.Before(first) {
			first = r.Start
		}
		if r.Start.After(last) {
			last = r.Start
		}
		if e := runtimes.End(chat); e.After(end) {
			end = e
		}
	}
	ol.SendWindow = last.Sub(first)
	rd.Wall, rd.Open = end.Sub(first), ol
	return rd
}

// spinFor is how long before a deadline waitUntil stops sleeping and
// spins instead: on an idle machine the runtime's timers wake a sleeper up
// to a millisecond late on Linux (its poller waits in whole milliseconds;
// measured here: 0.24 ms late at the median, 0.4–0.8 ms at p99, 1.5 ms at
// most), too late for an arrival schedule.
const spinFor = 1100 * time.Microsecond

// waitUntil returns at t, or at once if t has passed: it sleeps until
// shortly before and spins for the rest, holding its processor, as
// yielding would queue it behind every runnable goroutine. At 64 arrivals
// a second that spin takes at most 7% of one core.
func waitUntil(t time.Time) {
	if d := time.Until(t) - spinFor; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
	}
}
