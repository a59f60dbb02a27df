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

	// done, if set, is given each conversation as it ends, on the
	// goroutine that sent it, with what it asked for (nil: the round's
	// lengths) and its arrival's number: its records are written then,
	// so that the leaf holds no more of it than its replies.
	done func(i int, chat []runtimes.Result, asked *stats.Asked)

	mu          sync.Mutex
	arrived     []arrival     // each arrival's
	asked       []stats.Asked // each arrival's lengths, if given
	gaps        stats.Gaps    // the gaps of every reply
	first, last time.Time     // the first and last first turn's Start
	lastEnd     time.Time     // when the last conversation ended
	inflight    int
	inflightMax int
	capped      int
}

// arrival is what the open loop keeps of one arrival: its conversation's
// replies, how late its first turn went out (seconds, if it did), and
// its turns (0: end's).
type arrival struct {
	replies []stats.Reply
	lag     float64
	sent    bool
	turns   int
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
	i, due := len(o.arrived), o.due
	o.arrived = append(o.arrived, arrival{turns: turns})
	if asked != nil {
		o.asked = append(o.asked, *asked)
	}
	o.inflight++
	o.inflightMax = max(o.inflightMax, o.inflight)
	o.mu.Unlock()
	o.wg.Go(func() {
		chat := send(req)
		if o.done != nil {
			o.done(i, chat, asked)
		}
		o.mu.Lock()
		o.ended(i, due, chat)
		o.inflight--
		o.mu.Unlock()
		<-o.slots
	})
	// Let the request go out now: a goroutine just started waits on this
	// processor, which the next arrival's spin would otherwise hold.
	runtime.Gosched()
}

// ended keeps what the figures need of arrival i's conversation, chat,
// due at due; the caller holds mu.
func (o *openLoop) ended(i int, due time.Time, chat []runtimes.Result) {
	a := &o.arrived[i]
	a.replies = make([]stats.Reply, len(chat))
	for j, res := range chat {
		a.replies[j] = stats.ReplyOf(res)
		if res.OK() {
			o.gaps.Add(res.Gaps)
		}
	}
	if len(chat) == 0 || chat[0].Start.IsZero() {
		return
	}
	// How late the client sent it: from its arrival time to the moment
	// its first turn went out (the request's own clock start).
	start := chat[0].Start
	a.lag, a.sent = start.Sub(due).Seconds(), true
	if o.first.IsZero() || start.Before(o.first) {
		o.first = start
	}
	if start.After(o.last) {
		o.last = start
	}
	if e := runtimes.End(chat); e.After(o.lastEnd) {
		o.lastEnd = e
	}
}

// sent is the number of arrivals so far.
func (o *openLoop) sent() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.arrived)
}

// end waits for the requests in flight and returns the leaf's one round:
// every request of every arrival's conversation, Wall from the first send
// to the last end, and the turns not sent; shape sets the round's other
// fields.
func (o *openLoop) end(turns int, shape stats.Round) stats.Round {
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	ol := &stats.OpenLoop{Rate: o.rate, Sent: len(o.arrived), InflightMax: o.inflightMax, Capped: o.capped}
	rd := shape
	n := 0
	for _, a := range o.arrived {
		n += len(a.replies)
	}
	rd.Replies = make([]stats.Reply, 0, n)
	for i, a := range o.arrived {
		rd.Replies = append(rd.Replies, a.replies...)
		o.arrived[i].replies = nil // the round's now
		want := turns
		if a.turns > 0 {
			want = a.turns
		}
		rd.NotSent += want - len(a.replies)
		if i < len(o.asked) {
			for range a.replies {
				rd.Asked = append(rd.Asked, o.asked[i])
			}
		}
		if a.sent {
			ol.SendLags = append(ol.SendLags, a.lag)
		}
	}
	o.arrived = nil
	ol.SendWindow = o.last.Sub(o.first)
	rd.Wall, rd.Open, rd.Gaps = o.lastEnd.Sub(o.first), ol, &o.gaps
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
