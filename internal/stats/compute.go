package stats

// How Metrics are computed from rounds: every request's figures gathered
// into samples, then summarised. metrics.go says what the figures are.

import (
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
)

// samples gathers the per-request figures before they are summarised.
type samples struct {
	ttft, ttfc, total, tpot, decode, request, prompt, agg, wall []float64
	serverDecode                                                []float64
	perChunk, reasoning, promptTokens, cached, lags, ttfTool    []float64
	gaps                                                        []float32
}

// presize makes room for a sample of each request of rounds in the
// figures nearly every request has, so that a long leaf's do not grow by
// copying: at a million requests that is most of what computing its
// figures allocates.
func (s *samples) presize(rounds []Round) {
	n := 0
	for _, rd := range rounds {
		n += rd.Len()
	}
	if n < 1024 {
		return
	}
	for _, xs := range []*[]float64{&s.ttft, &s.ttfc, &s.total, &s.tpot, &s.decode, &s.request, &s.perChunk, &s.promptTokens} {
		*xs = make([]float64, 0, n)
	}
}

// reset empties s, keeping its room.
func (s *samples) reset() {
	for _, xs := range []*[]float64{&s.ttft, &s.ttfc, &s.total, &s.tpot, &s.decode, &s.request, &s.prompt, &s.agg, &s.wall,
		&s.serverDecode, &s.perChunk, &s.reasoning, &s.promptTokens, &s.cached, &s.lags, &s.ttfTool} {
		*xs = (*xs)[:0]
	}
	s.gaps = s.gaps[:0]
}

// Compute returns the figures of rounds, as docs/metrics.md defines them,
// with goodput against slo (none for the zero SLO).
func Compute(rounds []Round, slo SLO) Metrics { return compute(rounds, slo, true, burstBelow(rounds)) }

// compute is Compute, with the figures of each turn when perTurn, and
// below the decode time per token under which a reply was a burst.
func compute(rounds []Round, slo SLO, perTurn bool, below float64) Metrics {
	var (
		m   Metrics
		s   samples
		acc tally
	)
	m.Rounds = len(rounds)
	m.BurstBelow = below
	s.presize(rounds)
	for _, rd := range rounds {
		m.addRound(&s, &acc, rd, slo)
	}
	m.SLOSet = slo.Set()
	if slo.Set() && m.Requests > 0 {
		m.Attainment = float64(acc.good) / float64(m.Requests)
		if m.WallTotal > 0 {
			m.Goodput = float64(acc.good) / m.WallTotal
		}
	}
	if acc.sent > 1 && acc.sendWindow > 0 {
		m.Achieved = float64(acc.sent-1) / acc.sendWindow.Seconds()
	}
	if acc.openWall > 0 {
		m.Throughput = float64(acc.openCompleted) / acc.openWall.Seconds()
	}
	if acc.embedded > 0 && m.WallTotal > 0 {
		m.EmbedRPS = float64(acc.embedded) / m.WallTotal
		m.EmbedInputTPS = float64(acc.embedTokens) / m.WallTotal
	}
	m.summarise(&s)
	if g := gapsOf(rounds, s.gaps); g != nil {
		m.ITL = g.stat()
	}
	if acc.turns > 1 {
		if m.Reuse == "" {
			m.Reuse = "history"
		} else {
			m.Reuse = "history or of the shared prefix"
		}
		if perTurn {
			m.Turns = byTurn(rounds, acc.turns, m.BurstBelow)
		}
	}
	return m
}

// tally counts what compute's rounds add up to beyond the samples: the
// requests that met the SLO, an open loop's sends, sending window,
// completed requests and wall time, the most turns of a conversation,
// and the embeddings replies.
type tally struct {
	good, sent, openCompleted, turns int
	// embedded counts the replies of embeddings, embedTokens their
	// inputs' tokens.
	embedded, embedTokens int
	sendWindow, openWall  time.Duration
}

// addRound counts round rd's requests into m, s and acc.
func (m *Metrics) addRound(s *samples, acc *tally, rd Round, slo SLO) {
	m.NotSent += rd.NotSent
	m.Tools.Sent = m.Tools.Sent || rd.Tools
	if rd.SharedPrefix > 0 && m.Reuse == "" {
		m.Reuse = "shared prefix"
	}
	s.wall = append(s.wall, rd.Wall.Seconds())
	m.WallTotal += rd.Wall.Seconds()
	if o := rd.Open; o != nil {
		m.Rate = o.Rate
		acc.sent += o.Sent
		acc.sendWindow += o.SendWindow
		s.lags = append(s.lags, o.SendLags...)
		m.InflightMax = max(m.InflightMax, o.InflightMax)
		m.Capped += o.Capped
		acc.openWall += rd.Wall
	}
	tokens, ok := 0, 0
	replies := rd.replies()
	for i, res := range replies {
		m.Requests++
		if rd.Asked != nil {
			a := rd.asked(i)
			m.AskedInput.add(a.InputTokens)
			m.AskedMax.add(a.MaxTokens)
		}
		if !res.OK() {
			m.Failures++
			if m.FirstError == nil {
				m.FirstError = res.Err
			}
			m.AddError(runtimes.ErrorClass(res.Err), res.Err)
			continue
		}
		m.Successes++
		ok++
		acc.turns = max(acc.turns, int(res.Turn))
		tokens += int(res.OutputTokens)
		if rd.Results != nil { // a compact round's gaps are in rd.Gaps
			s.gaps = append(s.gaps, rd.Results[i].Gaps...)
		}
		if res.Embeddings > 0 {
			acc.embedded++
			acc.embedTokens += int(res.PromptTokens)
		}
		a := rd.asked(i)
		each := rd // the round as this request asked it
		each.InputTokens, each.MaxTokens = a.InputTokens, a.MaxTokens
		m.add(s, each, res)
		if i > 0 && droppedHistory(replies[i-1], res) {
			m.Truncated++
		}
		tpot, hasTPOT := tpotOf(res)
		if slo.Set() && slo.meets(res.TTFT, res.Total, tpot, hasTPOT) {
			acc.good++
		}
	}
	if rd.Open != nil {
		acc.openCompleted += ok
	}
	if ok > 0 && rd.Wall > 0 {
		s.agg = append(s.agg, float64(tokens)/rd.Wall.Seconds())
	}
}

// summarise sets m's figures from the samples s gathered.
func (m *Metrics) summarise(s *samples) {
	m.SendLag = stat(s.lags)
	m.TTFT, m.TTFC, m.Total = stat(s.ttft), stat(s.ttfc), stat(s.total)
	m.TPOT, m.ITL = stat(s.tpot), stat(s.gaps)
	m.Decode, m.Request, m.Prompt, m.Aggregate = stat(s.decode), stat(s.request), stat(s.prompt), stat(s.agg)
	m.ServerDecode = stat(s.serverDecode)
	m.Wall = stat(s.wall)
	m.TokensPerChunk = stat(s.perChunk)
	m.ReasoningTokens, m.PromptTokens, m.CachedTokens = stat(s.reasoning), stat(s.promptTokens), stat(s.cached)
	m.Tools.TTF = stat(s.ttfTool)
}

// byTurn returns the figures of each turn, 1 to n, of rounds'
// conversations: those of the requests of that turn alone.
func byTurn(rounds []Round, n int, below float64) []Metrics {
	out := make([]Metrics, n)
	for t := range n {
		var of []Round
		for _, rd := range rounds {
			of = append(of, rd.turn(t+1))
		}
		out[t] = compute(of, SLO{}, false, below)
	}
	return out
}

// add counts one successful request of round rd.
func (m *Metrics) add(s *samples, rd Round, res Reply) {
	m.countReply(rd, res)
	m.addTimes(s, res)
	if rd.Tools {
		m.Tools.add(s, res)
	}
	m.addPrompt(s, rd, res)
}

// countReply counts a successful reply's tokens, finish reason, served
// model, and whether it was truncated or short of the length asked for.
func (m *Metrics) countReply(rd Round, res Reply) {
	m.TokensApprox = m.TokensApprox || res.TokensApprox
	out := int(res.OutputTokens)
	if m.Successes == 1 || out < m.MinTokens {
		m.MinTokens = out
	}
	m.MaxTokens = max(m.MaxTokens, out)
	m.OutputTokens += out
	if r := res.FinishReason(); r == "stop" && atCap(rd, res) {
		// The API said stop, but the reply produced every token asked
		// for (Ollama 0.17.4's /v1/responses: response.completed with
		// incomplete_details null): the cap ended it.
		count(&m.FinishReasons, "length")
		m.StopAtCap++
	} else if r != "" {
		count(&m.FinishReasons, r)
	}
	if sm := res.ServedModel(); sm != "" {
		count(&m.ServedModels, sm)
	}
	if rd.Asked == nil { // requests of lengths of their own have no one target
		m.InputTokens = max(m.InputTokens, rd.InputTokens)
	}
	if truncated(rd, res) {
		m.Truncated++
	}
	// A reply that called a tool ended there by design, at whatever
	// length the call took: it is not short of the length asked for;
	// nor is embeddings', which generate nothing.
	if rd.MaxTokens > 0 && res.ToolCalls == 0 && res.Embeddings == 0 {
		m.Short.Of++
		m.Short.Asked = max(m.Short.Asked, rd.MaxTokens)
		if out < rd.MaxTokens {
			m.Short.add(res)
		}
	}
}

// atCap reports whether res, a reply of the server's own count of
// tokens, produced exactly the tokens rd asked for (a count beyond them
// is not the cap's: it counts otherwise): a reply that called a tool or
// embedded is ended by that, not by the cap.
func atCap(rd Round, res Reply) bool {
	return rd.MaxTokens > 0 && !res.TokensApprox && int(res.OutputTokens) == rd.MaxTokens &&
		res.ToolCalls == 0 && res.Embeddings == 0
}

// addTimes adds a successful reply's times and rates to the samples, and
// counts whole replies, bursts and model loads.
func (m *Metrics) addTimes(s *samples, res Reply) {
	out := float64(res.OutputTokens)
	if res.TTFT > 0 {
		s.ttft = append(s.ttft, res.TTFT.Seconds())
	}
	if res.TTFC > 0 {
		s.ttfc = append(s.ttfc, res.TTFC.Seconds())
	}
	s.total = append(s.total, res.Total.Seconds())
	decoding := res.Total - res.TTFT
	whole := wholeReply(res)
	if whole {
		m.Whole++
	}
	// The decode rate and TPOT are the client's on every runtime, from
	// the same stamps; the server's own rate is a figure apart. A burst
	// reply's span is the time its tokens took to arrive, not to be
	// decoded: it is counted, and in neither.
	burst := isBurst(res, m.BurstBelow)
	if burst {
		m.Bursts++
	}
	if res.TTFT > 0 && decoding > 0 && !whole && !burst {
		s.decode = append(s.decode, out/decoding.Seconds())
	}
	if res.Eval > 0 {
		s.serverDecode = append(s.serverDecode, out/res.Eval.Seconds())
	}
	if tpot, ok := tpotOf(res); ok && !burst {
		s.tpot = append(s.tpot, tpot)
	}
	if loaded(res) {
		m.ModelLoads++
	}
	if res.Total > 0 {
		s.request = append(s.request, out/res.Total.Seconds())
	}
	if res.Chunks > 0 {
		s.perChunk = append(s.perChunk, out/float64(res.Chunks))
	}
}

// addPrompt adds a successful reply's reasoning, prompt and cached
// token counts and its prompt rate to the samples.
func (m *Metrics) addPrompt(s *samples, rd Round, res Reply) {
	if res.ReasoningReported {
		s.reasoning = append(s.reasoning, float64(res.ReasoningTokens))
	}
	if res.PromptTokens > 0 {
		s.promptTokens = append(s.promptTokens, float64(res.PromptTokens))
	}
	if res.CachedReported {
		s.cached = append(s.cached, float64(res.CachedTokens))
		if src := res.CachedSource(); src != "" {
			count(&m.CachedSources, string(src))
		}
		if res.PromptTokens > 0 {
			m.Cached += int(res.CachedTokens)
			m.CachedOf += int(res.PromptTokens)
		}
	}
	// The prompt rate counts only the tokens the server evaluated: where
	// it says how many (llama.cpp), those; where it does not (Ollama,
	// whose count includes cached tokens), the whole prompt, but only if
	// the prompt was unique, so that nothing of it was cached.
	switch {
	case res.PromptEval <= 0:
	case res.PromptEvalTokens > 0:
		s.prompt = append(s.prompt, float64(res.PromptEvalTokens)/res.PromptEval.Seconds())
	case res.PromptTokens > 0 && rd.cold(res):
		s.prompt = append(s.prompt, float64(res.PromptTokens)/res.PromptEval.Seconds())
	case res.PromptTokens > 0:
		m.PromptCountsCached = true
	}
}

// add counts the tool calls of res, a successful reply to a request sent
// with tools.
func (t *ToolCalls) add(s *samples, res Reply) {
	t.Of++
	if res.ToolCalls == 0 {
		return
	}
	t.Replies++
	t.Calls += int(res.ToolCalls)
	t.ArgsValid += int(res.ToolArgsValid)
	if res.TTFToolCall > 0 {
		s.ttfTool = append(s.ttfTool, res.TTFToolCall.Seconds())
	}
}

// Loaded reports whether the server loaded the model during res (its
// load_duration is above modelLoad).
func Loaded(res runtimes.Result) bool { return loaded(ReplyOf(res)) }

func loaded(res Reply) bool { return res.LoadDuration > modelLoad }

// modelLoad is the load_duration above which a request counts as having
// waited for the model to load.
const modelLoad = 100 * time.Millisecond

// wholeReply reports whether a reply of several tokens came in one chunk
// (Ollama before 0.8 holds back the whole reply of a request with tools):
// the client then saw no decoding, only the reply's end.
func wholeReply(res Reply) bool { return res.Chunks == 1 && res.OutputTokens > 1 }

// TPOT is a request's time per output token after the first, (total −
// TTFT) / (tokens − 1), in seconds: the one formula of the row's TPOT,
// the burst bound and a record's tpot_s. A request has one where the
// client saw it decode: two text chunks or more (a first token stamped,
// and a reply not come whole), two tokens or more, and time between its
// first token and its end. Whether it succeeded is the caller's to ask:
// the figures count only successes, a record has its TPOT either way.
func TPOT(res runtimes.Result) (float64, bool) {
	return tpot(res.Total, res.TTFT, res.Chunks, res.OutputTokens)
}

// tpotOf is TPOT of a request the figures kept.
func tpotOf(res Reply) (float64, bool) {
	return tpot(res.Total, res.TTFT, int(res.Chunks), int(res.OutputTokens))
}

func tpot(total, ttft time.Duration, chunks, tokens int) (float64, bool) {
	decoding := total - ttft
	if chunks < 2 || tokens < 2 || decoding <= 0 {
		return 0, false
	}
	return decoding.Seconds() / float64(tokens-1), true
}

func (s *ShortOutputs) add(res Reply) {
	s.Count++
	if s.ByReason == nil {
		s.ByReason = map[string]TokenRange{}
	}
	reason, out := res.FinishReason(), int(res.OutputTokens)
	tr, seen := s.ByReason[reason]
	if !seen || out < tr.Min {
		tr.Min = out
	}
	tr.Max = max(tr.Max, out)
	tr.N++
	s.ByReason[reason] = tr
}

func count(m *map[string]int, k string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}
