package stats

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Round is one b.Loop iteration: requests sent at once, the wall time from
// their release to the end of the last one, and how they were sent.
type Round struct {
	Wall time.Duration
	// Results are the requests as measured, or, once the round is compact
	// (Compact), Replies, what the figures need of them, and Gaps, their
	// gaps between text chunks, counted with those of the leaf run's other
	// rounds. A round has one or the other.
	Results []runtimes.Result
	Replies []Reply
	Gaps    *Gaps
	// MaxTokens is the output length each request asked for; 0 if not
	// known. Successful requests that stopped short of it are counted.
	MaxTokens int
	// Cold says every request's prompt was unique (BENCH_CACHE=cold), so
	// that no server had any of it cached.
	Cold bool
	// Open is set for an open-loop leaf run, which is one round: every
	// arrival's request, Wall from the first send to the last end.
	Open *OpenLoop
	// InputTokens is the prompt length in tokens the requests were sized
	// to (an in<N> prompt), 0 for other prompts; Context is the context
	// an Ollama server was given or uses (num_ctx), 0 where it refuses
	// rather than cuts a prompt too long. A prompt the server cut is
	// counted in Metrics.Truncated: see truncated.
	InputTokens, Context int
	// NotSent counts the turns of conversations never sent because an
	// earlier turn failed. SharedPrefix is the tokens of the system
	// message every request began with (BENCH_SHARED_PREFIX), 0 if none.
	// A request's turn is in its Result: a prompt is cold (nothing of it
	// cached) only on turn 1 with no shared prefix.
	NotSent, SharedPrefix int
	// Asked is what each request asked for, parallel to Results, where
	// requests differ (a length distribution, a workload); nil: every
	// request asked InputTokens and MaxTokens.
	Asked []Asked
	// Tools says the requests were sent with tools (BENCH_TOOLS): their
	// replies' tool calls are counted in Metrics.Tools.
	Tools bool
}

// Asked is what one request asked for: the prompt tokens it was sized
// to (0: not sized) and the output tokens (max_tokens).
type Asked struct {
	InputTokens, MaxTokens int
}

// asked is what request i of rd asked for.
func (rd Round) asked(i int) Asked {
	if i < len(rd.Asked) {
		return rd.Asked[i]
	}
	return Asked{InputTokens: rd.InputTokens, MaxTokens: rd.MaxTokens}
}

// Lengths are the lengths requests asked for, where they differ: how
// many, their sum, the least and the most.
type Lengths struct {
	N, Sum, Min, Max int
}

func (l *Lengths) add(n int) {
	if n <= 0 {
		return
	}
	if l.N == 0 || n < l.Min {
		l.Min = n
	}
	l.Max = max(l.Max, n)
	l.N++
	l.Sum += n
}

// Varies reports whether the lengths differ.
func (l Lengths) Varies() bool { return l.N > 0 && l.Min != l.Max }

// cold reports whether no server can have had any of res's prompt
// cached: rd's prompts are unique, res is the first turn of its
// conversation, and no shared prefix comes before them.
func (rd Round) cold(res Reply) bool {
	return rd.Cold && res.Turn <= 1 && rd.SharedPrefix == 0
}

// truncated reports whether the server cut res's prompt, by its count of
// the prompt's tokens: more than 5% short of the length it was sized to,
// or (Ollama, which keeps the end of a prompt longer than its context and
// says nothing) a count that reaches the context it was given.
func truncated(rd Round, res Reply) bool {
	if res.PromptTokens <= 0 {
		return false
	}
	return (rd.InputTokens > 0 && float64(res.PromptTokens) < 0.95*float64(rd.InputTokens)) ||
		(rd.Context > 0 && int(res.PromptTokens) >= rd.Context)
}

// droppedHistory reports whether the server cut res's prompt, a turn of a
// conversation, by dropping some of its history: its count is not above
// that of prev, the turn before, whose prompt it holds whole with a reply
// and a follow-up more. (Ollama drops a conversation's first messages
// when they exceed its context, and says nothing.) The conversation's
// turns are consecutive in a round's results.
func droppedHistory(prev, res Reply) bool {
	return res.Turn > 1 && prev.Turn == res.Turn-1 && prev.Conversation == res.Conversation &&
		prev.PromptTokens > 0 && res.PromptTokens > 0 && res.PromptTokens <= prev.PromptTokens
}

// Stat summarises the samples of one figure. N is zero when the figure has
// no samples; the others are then meaningless (zero).
type Stat struct {
	N                        int
	Mean, P50, P95, P99, Max float64
}

// Metrics are the figures of a set of rounds (one leaf benchmark run, or
// the pooled repetitions of a leaf). Times are in seconds, rates in tokens
// per second. Aggregate has one sample per round, ITL one per gap between
// two text chunks, the others one per successful request that has the
// figure.
type Metrics struct {
	Rounds                        int
	Requests, Successes, Failures int

	TTFT, TTFC, Total, TPOT, ITL       Stat
	Decode, Request, Prompt, Aggregate Stat
	// ServerDecode is the server's own decode rate, output tokens over
	// its own decode time (Ollama eval_count / eval_duration), per
	// request whose server gives one; Decode is the client's on every
	// runtime, and the two are never compared (docs/metrics.md).
	ServerDecode Stat
	// Bursts counts the successful replies that came in a burst
	// (IsBurst): left out of Decode and TPOT.
	Bursts int
	// BurstBelow is the decode time per token (seconds) below which a
	// reply of BurstMinTokens or more was a burst: the median TPOT of
	// the replies divided by BurstFactor; 0 where none could be.
	BurstBelow float64
	// Wall is the round wall time in seconds, over every round.
	Wall Stat
	// TokensPerChunk is output tokens / text chunks, per request.
	TokensPerChunk Stat
	// ReasoningTokens, PromptTokens and CachedTokens are the server's
	// counts, per request that has one.
	ReasoningTokens, PromptTokens, CachedTokens Stat
	// CachedSources counts the requests of CachedTokens by where their
	// replies stated them (runtimes.CachedSource); see CachedSource.
	CachedSources map[string]int
	// PromptCountsCached is set when some successful request had a
	// prompt evaluation time but no count of the tokens evaluated in it
	// (Ollama) in a round whose prompts were not unique: its prompt rate
	// is left out, as its count may include cached tokens.
	PromptCountsCached bool

	// TokensApprox is set when some successful request's OutputTokens was
	// a chunk count rather than the server's token count.
	TokensApprox bool
	// MinTokens and MaxTokens are the fewest and most output tokens of a
	// successful request (zero without successes); OutputTokens their sum.
	MinTokens, MaxTokens, OutputTokens int
	// FinishReasons counts the successful requests by the server's finish
	// reason (those without one are not counted), but a reply the server
	// said "stop" of that produced every token asked for counts as
	// "length", and in StopAtCap: the cap ended it, whatever the API's
	// word (Ollama's /v1/responses says completed at the cap).
	FinishReasons map[string]int
	StopAtCap     int
	// Short are the successful requests that produced fewer tokens than
	// their round asked for.
	Short ShortOutputs
	// ServedModels counts the successful requests by the model their
	// replies named.
	ServedModels map[string]int

	// ModelLoads counts the successful requests during which the server
	// loaded the model (Ollama's load_duration above 100 ms).
	ModelLoads int
	// Whole counts the successful replies of several tokens that came in
	// one chunk (wholeReply): no client-side decode rate or TPOT.
	Whole int
	// InputTokens is the length the prompts were sized to (the largest
	// if rounds differed), 0 for prompts not sized; Truncated counts the
	// successful requests whose prompt the server cut (see truncated).
	InputTokens, Truncated int
	// AskedInput and AskedMax are the prompt lengths and max_tokens each
	// request asked for, in rounds whose requests differ (Round.Asked).
	AskedInput, AskedMax Lengths

	// Goodput are the requests that met the SLO per second of the rounds'
	// wall time, and Attainment their share of all requests (failures
	// count as misses); both valid when SLOSet.
	Goodput, Attainment float64
	SLOSet              bool
	// WallTotal is the rounds' wall time summed, seconds.
	WallTotal float64

	// The figures of an open-loop leaf (zero otherwise): the rate asked
	// for, the rate achieved (requests sent / sending window), how late
	// the client sent (seconds), the most in flight and the arrivals the
	// cap held back, completed requests per second from the first send to
	// the last end.
	Rate, Achieved, Throughput float64
	// EmbedRPS and EmbedInputTPS are, for embeddings
	// (BENCH_API=embeddings), the completed requests and their inputs'
	// tokens per second of WallTotal; 0 for the other APIs.
	EmbedRPS, EmbedInputTPS float64
	SendLag                 Stat
	InflightMax, Capped     int

	// NotSent counts the turns never sent (see Round.NotSent). Turns are
	// the figures of each turn (from 1) of conversations of more than
	// one; nil otherwise.
	NotSent int
	Turns   []Metrics
	// Cached and CachedOf are the cached prompt tokens and the prompt
	// tokens of the successful requests whose server said how many it
	// took from its cache (CachedOf 0: none did). Reuse says what should
	// have been cached: "history" (turns after the first),
	// "shared prefix", or "" for neither.
	Cached, CachedOf int
	Reuse            string

	// Tools are the tool calls of the successful replies, for rounds
	// whose requests were sent with tools (Round.Tools); zero otherwise.
	Tools ToolCalls

	// FirstError is the error of the first failed request, if any.
	FirstError error
	// Errors counts the failures by class (runtimes.ErrorClass), with the
	// first message of each; nil without failures.
	Errors map[runtimes.Class]ErrorCount
}

// ToolCalls are the tool calls of the successful replies to requests sent
// with tools.
type ToolCalls struct {
	// Sent is set when some round's requests were sent with tools
	// (Round.Tools); without it the rest are zero.
	Sent bool
	// Replies are the successful replies that made at least one tool
	// call, of Of successful replies to requests sent with tools.
	Replies, Of int
	// Calls are those replies' tool calls, and ArgsValid how many of them
	// had arguments that, once whole, are a JSON object
	// (runtimes.Result.ToolArgsValid).
	Calls, ArgsValid int
	// TTF is the time to the first chunk that carried part of a tool
	// call, in seconds, one sample per reply that made one.
	TTF Stat
}

// ReplyRatio is the share of the successful replies that made a tool
// call; false where there were none (or no tools).
func (t ToolCalls) ReplyRatio() (float64, bool) {
	if t.Of == 0 {
		return 0, false
	}
	return float64(t.Replies) / float64(t.Of), true
}

// ArgsValidRatio is the share of the tool calls whose arguments are a
// JSON object; false where there were no calls.
func (t ToolCalls) ArgsValidRatio() (float64, bool) {
	if t.Calls == 0 {
		return 0, false
	}
	return float64(t.ArgsValid) / float64(t.Calls), true
}

// ShortOutputs are the successful requests that stopped before the length
// asked for: how many, of what length was asked, and how they ended.
// Replies that made a tool call are in neither count: a call ends a reply
// whatever its length.
type ShortOutputs struct {
	Count, Of int
	// Asked is the length asked for (the largest if rounds differed).
	Asked int
	// ByReason counts them by finish reason ("" when the server gave
	// none), with the fewest and most tokens of each reason.
	ByReason map[string]TokenRange
}

// TokenRange is how many requests, and the fewest and most tokens among
// them.
type TokenRange struct{ N, Min, Max int }

// String says how the short requests ended, for a log line: "2 stop, 1
// length at 894".
func (s ShortOutputs) String() string {
	reasons := slices.Sorted(maps.Keys(s.ByReason))
	slices.SortStableFunc(reasons, func(a, b string) int { return cmp.Compare(s.ByReason[b].N, s.ByReason[a].N) })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		tr := s.ByReason[r]
		name := r
		if name == "" {
			name = "no reason given"
		}
		parts[i] = strconv.Itoa(tr.N) + " " + name
		if r == "length" {
			parts[i] += " at " + strconv.Itoa(tr.Min)
			if tr.Max != tr.Min {
				parts[i] += "–" + strconv.Itoa(tr.Max)
			}
		}
	}
	return strings.Join(parts, ", ")
}

// CachedSource says where the cached tokens were read: the source, or
// the sources, most requests first, joined by ", " ("" for none).
func (m Metrics) CachedSource() string {
	srcs := slices.Sorted(maps.Keys(m.CachedSources))
	slices.SortStableFunc(srcs, func(a, b string) int { return cmp.Compare(m.CachedSources[b], m.CachedSources[a]) })
	return strings.Join(srcs, ", ")
}

// ServedModel is the model most successful requests' replies named ("" if
// none named one); the first seen wins a tie.
func (m Metrics) ServedModel() string {
	best, n := "", 0
	for name, c := range m.ServedModels {
		if c > n || c == n && name < best {
			best, n = name, c
		}
	}
	return best
}

// ErrorCount is one class of failures: how many, and the first one's
// message.
type ErrorCount struct {
	Count int    `json:"count"`
	First string `json:"first"`
}

// ErrorCounts is the failures by class for a message, most frequent first:
// "3 timeout, 1 reset".
func (m Metrics) ErrorCounts() string {
	classes := slices.Collect(maps.Keys(m.Errors))
	slices.SortFunc(classes, func(a, b runtimes.Class) int {
		if c := cmp.Compare(m.Errors[b].Count, m.Errors[a].Count); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = strconv.Itoa(m.Errors[c].Count) + " " + string(c)
	}
	return strings.Join(parts, ", ")
}

// AddError counts err under its class.
func (m *Metrics) AddError(class runtimes.Class, err error) {
	if m.Errors == nil {
		m.Errors = map[runtimes.Class]ErrorCount{}
	}
	ec, seen := m.Errors[class]
	if !seen {
		ec.First = err.Error()
	}
	ec.Count++
	m.Errors[class] = ec
}

// Report reports the means of m through r (a *testing.B) in the units
// above, and the medians of the decode rate and TPOT (decode-p50-tok/s,
// tpot-p50-ns). A figure without samples is not reported; prompt-tok/s
// and server-decode-tok/s (native Ollama's own rate) therefore
// appears only where the server reports prompt timing, and the tool-call
// figures only for a leaf whose requests were sent with tools (the
// time to the first tool call and the valid arguments only where some
// reply made a call).
func (m Metrics) Report(r interface{ ReportMetric(float64, string) }) {
	report := func(s Stat, unit string, conv func(float64) float64) {
		if s.N > 0 && finite(s.Mean) {
			r.ReportMetric(conv(s.Mean), unit)
		}
	}
	same := func(x float64) float64 { return x }
	// The clock's resolution is a nanosecond; digits below it are noise.
	ns := func(sec float64) float64 { return math.Round(sec * 1e9) }
	report(m.TTFT, figures.TTFTMean.Unit, ns)
	if m.EmbedRPS > 0 {
		// Embeddings generate no tokens: their reply's time (TTFT), the
		// requests and the input tokens a second.
		r.ReportMetric(m.EmbedRPS, figures.EmbedRequests.Unit)
		r.ReportMetric(m.EmbedInputTPS, figures.EmbedInput.Unit)
		return
	}
	report(m.TTFC, figures.TTFCMean.Unit, ns)
	report(m.TPOT, figures.TPOTMean.Unit, ns)
	median := func(s Stat, unit string, conv func(float64) float64) {
		if s.N > 0 && finite(s.P50) {
			r.ReportMetric(conv(s.P50), unit)
		}
	}
	median(m.TPOT, figures.TPOTP50.Unit, ns)
	report(m.Decode, figures.Decode.Unit, same)
	median(m.Decode, figures.DecodeP50.Unit, same)
	report(m.ServerDecode, figures.ServerDecodeRate.Unit, same)
	report(m.Request, figures.Request.Unit, same)
	report(m.Aggregate, figures.Aggregate.Unit, same)
	report(m.Prompt, figures.Prompt.Unit, same)
	if m.Rate > 0 && m.Throughput > 0 {
		r.ReportMetric(m.Throughput, figures.Throughput.Unit)
	}
	if m.SLOSet && m.Requests > 0 {
		r.ReportMetric(m.Goodput, figures.Goodput.Unit)
	}
	// The tool figures only for a leaf sent with tools: a leaf without
	// reports none, and the .txt of a run without has no Unit line for
	// them.
	if ratio, ok := m.Tools.ReplyRatio(); ok {
		r.ReportMetric(ratio, figures.ToolCallReplies.Unit)
	}
	if ratio, ok := m.Tools.ArgsValidRatio(); ok {
		r.ReportMetric(ratio, figures.ToolArgsValid.Unit)
	}
	report(m.Tools.TTF, figures.TTFToolCallMean.Unit, ns)
}

// NoteSettings name the settings the notes point a reader to, as the
// caller calls them (the suite: BENCH_KEEP_ALIVE, BENCH_NUM_CTX,
// BENCH_CACHE): the figures know no setting.
type NoteSettings struct {
	// KeepAlive keeps a model loaded between leaves, NumCtx sets Ollama's
	// context, Cache sends unique (cold) or repeated (warm) prompts.
	KeepAlive, NumCtx, Cache string
}

// Notes are what a reader of a leaf's figures must know that the figures
// do not show: failed requests, short outputs, another model answering,
// a prompt rate left out. requested is the model asked for; set names
// the settings that a note says to change.
func (m Metrics) Notes(requested string, set NoteSettings) []string {
	var notes []string
	if m.Failures > 0 && m.Successes > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests failed (%s); the first: %v", m.Failures, m.Requests, m.ErrorCounts(), m.FirstError))
	}
	if s := m.Short; s.Count > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests ended before %d tokens (%s): the runtimes did unequal work", s.Count, s.Of, s.Asked, s))
	}
	if m.StopAtCap > 0 {
		notes = append(notes, fmt.Sprintf("%d replies said stop at the cap (every token asked for): counted as length in finish_reasons", m.StopAtCap))
	}
	if served := m.ServedModel(); served != "" && requested != "" && served != requested {
		notes = append(notes, fmt.Sprintf("the server answered as model %q, not %q as asked; the summary keeps %q as the model and says served_model %q", served, requested, requested, served))
	}
	if m.ModelLoads > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests waited for the server to load the model (load_duration above %v): their TTFT includes the load; %s keeps a model loaded between leaves", m.ModelLoads, m.Successes, modelLoad, set.KeepAlive))
	}
	if m.Truncated > 0 {
		what := "their prompt"
		if m.InputTokens > 0 {
			what = fmt.Sprintf("their prompt (sized to %d tokens)", m.InputTokens)
		}
		notes = append(notes, fmt.Sprintf("%d of %d requests had %s cut by the server, by its count of %.0f prompt tokens on average: the row does not describe the prompt as sent; on Ollama raise %s", m.Truncated, m.Successes, what, m.PromptTokens.Mean, set.NumCtx))
	}
	if m.PromptCountsCached && m.Prompt.N == 0 {
		notes = append(notes, "no prompt-tok/s: the server counts cached prompt tokens in its prompt count but not in its prompt time (Ollama's prompt_eval_count and prompt_eval_duration), so with "+set.Cache+"=warm, turns after the first or a shared prefix their ratio is no prompt rate")
	}
	if m.Whole > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d replies of several tokens came whole, in one chunk (Ollama before 0.8 holds back the reply of a request with tools): their TTFT is the whole reply's time, and they give no client-side decode rate or TPOT", m.Whole, m.Successes))
	}
	if m.Bursts > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d replies came in a burst (%d tokens or more, their decode time per token under a quarter of the leaf's median, %.3g ms): their tokens arrived at once after a late first one, so they are left out of the decode rate and TPOT; their TTFT and total count as measured", m.Bursts, m.Successes, BurstMinTokens, m.BurstBelow*BurstFactor*1e3))
	}
	if m.NotSent > 0 {
		notes = append(notes, fmt.Sprintf("%d turns were not sent: an earlier turn of their conversation failed", m.NotSent))
	}
	if m.Reuse != "" && m.CachedOf > 0 && m.Cached == 0 {
		notes = append(notes, fmt.Sprintf("the server reused none of the %s (0 of %d prompt tokens came from its cache): no prefix cache, or it is off; TTFT pays for the whole prompt every time", m.Reuse, m.CachedOf))
	}
	return notes
}

// stat summarises xs; it sorts xs in place. Samples may be float32, so
// that a million of them (the gaps of 1024 streams × 1024 tokens) take
// 4 MB, not 8.
func stat[T float32 | float64](xs []T) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += float64(x)
	}
	return Stat{
		N:    len(xs),
		Mean: sum / float64(len(xs)),
		P50:  quantile(xs, 0.50),
		P95:  quantile(xs, 0.95),
		P99:  quantile(xs, 0.99),
		Max:  float64(xs[len(xs)-1]),
	}
}

// Median is the median of xs, the mean of the middle two for an even
// count; NaN if xs is empty. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return quantile(slices.Sorted(slices.Values(xs)), 0.5)
}

// quantile returns the p-quantile of the sorted, non-empty xs by linear
// interpolation between closest ranks (R type 7, numpy's default). It is
// written here because gonum's stat.Quantile offers only the empirical and
// nearest-rank estimators, not R-7.
func quantile[T float32 | float64](sorted []T, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return float64(sorted[len(sorted)-1])
	}
	return float64(sorted[lo]) + (h-float64(lo))*float64(sorted[lo+1]-sorted[lo])
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Report reports a leaf run's figures through r (a *testing.B), as its
// result line in the .txt has them: m's (see Metrics.Report) and, where
// there are power figures, mean power and, where the samples covered
// enough of the timed part (telemetry.MinCoverage), energy per output
// token, gross (J/tok) and, with an idle baseline, net (net-J/tok).
func Report(r interface{ ReportMetric(float64, string) }, m Metrics, power *telemetry.Figures) {
	m.Report(r)
	if power == nil {
		return
	}
	var e TokenEnergy
	e.Add(power, m.OutputTokens)
	if j, ok := e.PerToken(); ok {
		r.ReportMetric(j, figures.Energy.Unit)
	}
	if j, ok := e.NetPerToken(); ok {
		r.ReportMetric(j, figures.NetEnergy.Unit)
	}
	r.ReportMetric(power.AllPowerWMean, figures.Power.Unit)
}

// num returns &x, or nil if x is not finite (JSON has no NaN).
func num(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}
