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
	// lengths) and where its replies are in the round end returns: its
	// records are written then, so that the leaf holds no more of it than
	// its replies.
	done func(at int, chat []runtimes.Result, asked *stats.Asked)

	// What the leaf's round is made of, kept as each conversation ends,
	// in the order they end (see end).
	mu          sync.Mutex
	arrived     int
	replies     []stats.Reply
	asked       []stats.Asked // parallel to replies, if given
	lags        []float64     // how late each first turn went out, s
	gaps        stats.Gaps    // the gaps of every reply
	first, last time.Time     // the first and last first turn's Start
	lastEnd     time.Time     // when the last conversation ended
	// The turns not sent of conversations of a given length, and the
	// conversations of end's length and their turns sent.
	notSent, ofEnds, endsSent int
	inflight, inflightMax     int
	capped                    int
	ramp                      []runtimes.Result // the ramp's requests (ramp.go)
}

// newOpenLoop returns the open loop of a leaf of n arrivals (0 if not
// known) at rate a second.
func newOpenLoop(rate, burstiness float64, maxInflight, n int, seed string) *openLoop {
	// Room for the replies of the arrivals planned, up to presize: a long
	// leaf's replies then never grow by copying, which at a million
	// would hold two copies at once.
	room := min(n, presize)
	return &openLoop{
		rate:     rate,
		arrivals: newArrivals(rate, burstiness, seed, n),
		slots:    make(chan struct{}, maxInflight),
		replies:  make([]stats.Reply, 0, room),
		lags:     make([]float64, 0, room),
	}
}

// presize is the most arrivals an open loop makes room for at its start:
// 320 MB of replies, so that a mistyped -benchtime does not take the
// memory at once.
const presize = 1 << 21

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
	due := o.due
	o.arrived++
	o.inflight++
	o.inflightMax = max(o.inflightMax, o.inflight)
	o.mu.Unlock()
	o.wg.Go(func() {
		chat := send(req)
		o.mu.Lock()
		at := o.ended(due, turns, asked, chat)
		o.inflight--
		o.mu.Unlock()
		if o.done != nil {
			o.done(at, chat, asked)
		}
		<-o.slots
	})
	// Let the request go out now: a goroutine just started waits on this
	// processor, which the next arrival's spin would otherwise hold.
	runtime.Gosched()
}

// ended keeps what the figures need of chat, the conversation of an
// arrival due at due of turns turns (0: end's) that asked for asked, and
// returns where its replies are; the caller holds mu.
func (o *openLoop) ended(due time.Time, turns int, asked *stats.Asked, chat []runtimes.Result) (at int) {
	at = len(o.replies)
	for _, res := range chat {
		o.replies = append(o.replies, stats.ReplyOf(res))
		if asked != nil {
			o.asked = append(o.asked, *asked)
		}
		if res.OK() {
			o.gaps.Add(res.Gaps)
		}
	}
	if turns > 0 {
		o.notSent += turns - len(chat)
	} else {
		o.ofEnds++
		o.endsSent += len(chat)
	}
	if len(chat) == 0 || chat[0].Start.IsZero() {
		return at
	}
	// How late the client sent it: from its arrival time to the moment
	// its first turn went out (the request's own clock start).
	start := chat[0].Start
	o.lags = append(o.lags, start.Sub(due).Seconds())
	if o.first.IsZero() || start.Before(o.first) {
		o.first = start
	}
	if start.After(o.last) {
		o.last = start
	}
	if e := runtimes.End(chat); e.After(o.lastEnd) {
		o.lastEnd = e
	}
	return at
}

// sent is the number of arrivals so far.
func (o *openLoop) sent() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.arrived
}

// end waits for the requests in flight and returns the leaf's one round:
// every request of every arrival's conversation, in the order the
// conversations ended (a conversation's turns together, in order), Wall
// from the first send to the last end, and the turns not sent (turns a
// conversation but where arriveAs said otherwise); shape sets the round's
// other fields.
func (o *openLoop) end(turns int, shape stats.Round) stats.Round {
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	ol := &stats.OpenLoop{Rate: o.rate, Sent: o.arrived, InflightMax: o.inflightMax, Capped: o.capped, SendLags: o.lags}
	ol.SendWindow = o.last.Sub(o.first)
	rd := shape
	rd.Replies, rd.Asked, rd.Gaps = o.replies, o.asked, &o.gaps
	rd.NotSent = o.notSent + o.ofEnds*turns - o.endsSent
	rd.Wall, rd.Open = o.lastEnd.Sub(o.first), ol
	o.replies, o.asked, o.lags = nil, nil, nil
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
