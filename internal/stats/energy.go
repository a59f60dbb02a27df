package stats

import (
	"sort"
	"time"

	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// RequestEnergy is one request's share of its leaf run's net energy (the
// energy above the idle baseline), split between its prefill (from its
// start to its first token) and its decode (from its first token to its
// end), J.
type RequestEnergy struct {
	PrefillJ, DecodeJ float64
}

// J is the request's whole share.
func (e RequestEnergy) J() float64 { return e.PrefillJ + e.DecodeJ }

// Energy is a leaf run's net energy shared among its timed requests (see
// ShareEnergy).
type Energy struct {
	// Shares are the requests' shares, by round and by result, in the
	// rounds' order; nil for a request that was never sent.
	Shares [][]*RequestEnergy
	// NetJ is the leaf run's net energy over the samples (the sum of
	// their spans' energy above idle), SharedJ the part shared among
	// requests, and UnsharedJ the part of the spans during which no
	// request was in flight: NetJ = SharedJ + UnsharedJ.
	NetJ, SharedJ, UnsharedJ float64
	// Over the successful requests: how many, their shares and their
	// prefill parts, their prefill energy and prompt tokens (of those
	// whose server counted them), their decode energy and output tokens.
	Requests         int
	RequestsJ        float64
	RequestsPrefillJ float64
	PrefillJ         float64
	PromptTokens     int
	DecodeJ          float64
	OutputTokens     int
}

// Add pools o into e (Shares are left out).
func (e *Energy) Add(o *Energy) {
	e.NetJ += o.NetJ
	e.SharedJ += o.SharedJ
	e.UnsharedJ += o.UnsharedJ
	e.Requests += o.Requests
	e.RequestsJ += o.RequestsJ
	e.RequestsPrefillJ += o.RequestsPrefillJ
	e.PrefillJ += o.PrefillJ
	e.PromptTokens += o.PromptTokens
	e.DecodeJ += o.DecodeJ
	e.OutputTokens += o.OutputTokens
}

// ShareEnergy shares the net energy of a leaf run's timed part among its
// requests. power must be the figures of that timed part with an idle
// baseline set (telemetry.Figures.SetIdle); without one, or where the
// samples cover less than telemetry.MinCoverage of the window, it returns
// nil: no energy is shared from too few samples.
//
// The rule: each sample's span (its interval clipped to the timed part)
// holds the energy (P − idle) × its length. It is shared among the
// requests in flight during the span, each by the time it was in flight
// in it; a span with no request in flight keeps its energy unshared.
// Within a request, its share of each span goes to its prefill and its
// decode by the time each phase spent in the span. A request that never
// got a first token is all prefill. So at concurrency 1 a request's
// phases get the power of their own spans, and at concurrency n the
// requests of a span share its power by time, whatever phase each is in.
//
// Its cost is the requests' overlap with the spans: a few spans each.
func ShareEnergy(rounds []Round, power *telemetry.Figures) *Energy {
	if power == nil || power.IdlePowerW == nil || !power.Covered() {
		return nil
	}
	idle := *power.IdlePowerW
	spans := power.Spans
	e := &Energy{Shares: make([][]*RequestEnergy, len(rounds))}

	type req struct {
		round, i           int
		start, first, stop time.Time
	}
	var reqs []req
	replies := make([][]Reply, len(rounds))
	for ri, rd := range rounds {
		replies[ri] = rd.replies()
		e.Shares[ri] = make([]*RequestEnergy, len(replies[ri]))
		for i, res := range replies[ri] {
			start := res.Start()
			if start.IsZero() {
				continue
			}
			stop := start.Add(res.Total)
			first := stop
			if res.TTFT > 0 && res.TTFT < res.Total {
				first = start.Add(res.TTFT)
			}
			reqs = append(reqs, req{round: ri, i: i, start: start, first: first, stop: stop})
		}
	}
	// The spans a request overlaps: from the first that ends after its
	// start to the last that begins before its end (spans are in order).
	within := func(from, to time.Time) (lo, hi int) {
		lo = sort.Search(len(spans), func(k int) bool { return spans[k].To.After(from) })
		hi = sort.Search(len(spans), func(k int) bool { return !spans[k].From.Before(to) })
		return lo, hi
	}
	inFlight := make([]float64, len(spans)) // Σ of the requests' time in each span, s
	for _, r := range reqs {
		lo, hi := within(r.start, r.stop)
		for k := lo; k < hi; k++ {
			inFlight[k] += overlap(r.start, r.stop, spans[k])
		}
	}
	perSecond := make([]float64, len(spans)) // J of a span per second of a request in it
	for k, s := range spans {
		j := (s.AllPowerW - idle) * s.Seconds()
		e.NetJ += j
		if inFlight[k] > 0 {
			perSecond[k] = j / inFlight[k]
			e.SharedJ += j
		} else {
			e.UnsharedJ += j
		}
	}
	for _, r := range reqs {
		var share RequestEnergy
		lo, hi := within(r.start, r.stop)
		for k := lo; k < hi; k++ {
			share.PrefillJ += perSecond[k] * overlap(r.start, r.first, spans[k])
			share.DecodeJ += perSecond[k] * overlap(r.first, r.stop, spans[k])
		}
		e.Shares[r.round][r.i] = &share
		res := replies[r.round][r.i]
		if res.Err != nil {
			continue
		}
		e.Requests++
		e.RequestsJ += share.J()
		e.RequestsPrefillJ += share.PrefillJ
		if res.PromptTokens > 0 {
			e.PrefillJ += share.PrefillJ
			e.PromptTokens += int(res.PromptTokens)
		}
		e.DecodeJ += share.DecodeJ
		e.OutputTokens += int(res.OutputTokens)
	}
	return e
}

// overlap is how long [from, to] and the span share, s.
func overlap(from, to time.Time, s telemetry.Span) float64 {
	lo, hi := from, to
	if s.From.After(lo) {
		lo = s.From
	}
	if s.To.Before(hi) {
		hi = s.To
	}
	if !hi.After(lo) {
		return 0
	}
	return hi.Sub(lo).Seconds()
}

// TokenEnergy is the energy per output token of one leaf run or of
// several pooled (a row's -count repetitions): the energy of those whose
// samples covered enough of their timed part (telemetry.MinCoverage) over
// their output tokens, gross and, of those with an idle baseline, net.
// It is the one formula of J/tok and net-J/tok, for the result lines
// (Report) and for a summary row alike.
type TokenEnergy struct {
	// Leaves are the leaf runs covered enough, J their energy and Tokens
	// their output tokens; NetLeaves, NetJ and NetTokens those of them
	// with an idle baseline, and their energy above it.
	Leaves, NetLeaves int
	J, NetJ           float64
	Tokens, NetTokens int
}

// Add counts a leaf run of power figures power (nil: none) and
// outputTokens output tokens; one covered too little counts for nothing.
func (e *TokenEnergy) Add(power *telemetry.Figures, outputTokens int) {
	if power == nil || !power.Covered() {
		return
	}
	e.Leaves++
	e.J += power.EnergyJ
	e.Tokens += outputTokens
	if power.IdlePowerW != nil {
		e.NetLeaves++
		e.NetJ += power.NetEnergyJ
		e.NetTokens += outputTokens
	}
}

// PerToken is J/tok: false without a leaf run covered enough, or without
// an output token.
func (e TokenEnergy) PerToken() (float64, bool) {
	if e.Tokens <= 0 {
		return 0, false
	}
	return e.J / float64(e.Tokens), true
}

// NetPerToken is net-J/tok: false without a leaf run covered enough with
// an idle baseline, or without an output token.
func (e TokenEnergy) NetPerToken() (float64, bool) {
	if e.NetTokens <= 0 {
		return 0, false
	}
	return e.NetJ / float64(e.NetTokens), true
}
