package stats

import (
	"slices"
	"time"
	"unique"

	"github.com/inferencebench/inferencebench/runtimes"
)

// Reply is what the figures need of one request's runtimes.Result, and
// nothing more: a few numbers, no chunk and no text. A run keeps one for
// every request until it ends (Round.Compact), so its size is what a long
// run costs a request: 152 bytes, against the 392 of a Result and
// the 4 bytes a chunk of its gaps (which go to the leaf's Gaps instead).
type Reply struct {
	// start is the Result's Start in Unix nanoseconds (0: none; see
	// Start); TTFT, TTFC, Total, TTFToolCall, PromptEval, Eval and
	// LoadDuration are the Result's.
	start                           int64
	TTFT, TTFC, Total, TTFToolCall  time.Duration
	PromptEval, Eval, LoadDuration  time.Duration
	OutputTokens, Chunks            int32
	ToolCalls, ToolArgsValid        int32
	ReasoningTokens, PromptTokens   int32
	CachedTokens, PromptEvalTokens  int32
	Conversation, Turn              int32
	Embeddings                      int32 // the Result's (BENCH_API=embeddings)
	TokensApprox, ReasoningReported bool
	CachedReported                  bool
	cachedFrom                      uint8                 // 1 + the index in runtimes.CachedSources of the Result's CachedSource; 0: none
	finishReason, servedModel       unique.Handle[string] // zero: none
	// Err is the Result's: nil for a request that completed.
	Err error
	// HTTP is the Result's: nil unless BENCH_HTTP_TRACE asked for it.
	HTTP *runtimes.HTTPTrace
}

// ReplyOf is what the figures need of res.
func ReplyOf(res runtimes.Result) Reply {
	return Reply{
		start: unixNano(res.Start), TTFT: res.TTFT, TTFC: res.TTFC, Total: res.Total, TTFToolCall: res.TTFToolCall,
		PromptEval: res.PromptEval, Eval: res.Eval, LoadDuration: res.LoadDuration,
		OutputTokens: clamp32(res.OutputTokens), Chunks: clamp32(res.Chunks),
		ToolCalls: clamp32(res.ToolCalls), ToolArgsValid: clamp32(res.ToolArgsValid),
		ReasoningTokens: clamp32(res.ReasoningTokens), PromptTokens: clamp32(res.PromptTokens),
		CachedTokens: clamp32(res.CachedTokens), PromptEvalTokens: clamp32(res.PromptEvalTokens),
		Conversation: clamp32(res.Conversation), Turn: clamp32(res.Turn), Embeddings: clamp32(res.Embeddings),
		TokensApprox: res.TokensApprox, ReasoningReported: res.ReasoningReported, CachedReported: res.CachedReported,
		cachedFrom:   cachedIndex(res.CachedSource),
		finishReason: intern(res.FinishReason), servedModel: intern(res.ServedModel),
		Err: res.Err, HTTP: res.HTTP,
	}
}

// cachedIndex is src's cachedFrom.
func cachedIndex(src runtimes.CachedSource) uint8 {
	i := slices.Index(runtimes.CachedSources, src)
	if i < 0 || i > 254 {
		return 0
	}
	return uint8(i + 1)
}

// CachedSource is the Result's: where its CachedTokens were read, ""
// when not reported.
func (r Reply) CachedSource() runtimes.CachedSource {
	if r.cachedFrom == 0 {
		return ""
	}
	return runtimes.CachedSources[r.cachedFrom-1]
}

// Start is the Result's Start, on the wall clock (without the monotonic
// reading, which Total already made use of).
func (r Reply) Start() time.Time {
	if r.start == 0 {
		return time.Time{}
	}
	return time.Unix(0, r.start)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// OK reports whether the request completed.
func (r Reply) OK() bool { return r.Err == nil }

// FinishReason and ServedModel are the Result's: every reply that names
// the same one shares its string.
func (r Reply) FinishReason() string { return value(r.finishReason) }

// ServedModel: see FinishReason.
func (r Reply) ServedModel() string { return value(r.servedModel) }

func intern(s string) unique.Handle[string] {
	if s == "" {
		return unique.Handle[string]{}
	}
	return unique.Make(s)
}

func value(h unique.Handle[string]) string {
	if h == (unique.Handle[string]{}) {
		return ""
	}
	return h.Value()
}

// clamp32 is n as an int32, held to its range: no count a server sends
// comes near it, but a broken one is not to wrap around.
func clamp32(n int) int32 {
	return int32(max(min(n, 1<<31-1), -1<<31))
}

// Compact replaces rd's Results by Replies, and counts the gaps between
// the text chunks of its successful ones in g (shared by the rounds of a
// leaf run: see Gaps), which becomes rd.Gaps. Its figures are the same as
// before but for the percentiles of ITL once g holds more than
// gapsExact gaps. A round already compact is returned as it is.
func (rd Round) Compact(g *Gaps) Round {
	if rd.Results == nil {
		return rd
	}
	rd.Replies = make([]Reply, len(rd.Results))
	for i, res := range rd.Results {
		rd.Replies[i] = ReplyOf(res)
		if res.OK() {
			g.Add(res.Gaps)
		}
	}
	rd.Results, rd.Gaps = nil, g
	return rd
}

// replies are rd's requests as the figures see them: its Replies, or
// those of its Results if it is not compact.
func (rd Round) replies() []Reply {
	if rd.Results == nil {
		return rd.Replies
	}
	out := make([]Reply, len(rd.Results))
	for i, res := range rd.Results {
		out[i] = ReplyOf(res)
	}
	return out
}

// Requests are rd's requests as the figures see them (its Replies, or
// its Results', whichever it has), for a reader outside stats.
func (rd Round) Requests() []Reply { return rd.replies() }

// Len is the number of requests of rd.
func (rd Round) Len() int { return len(rd.Results) + len(rd.Replies) }

// gapsOf is the gaps of rounds, compact ones' Gaps (each counted once, as
// a leaf run's rounds share one) and exact, the others', merged; nil when
// no round is compact: exact are then all of them.
func gapsOf(rounds []Round, exact []float32) *Gaps {
	var seen []*Gaps
	for _, rd := range rounds {
		if rd.Gaps != nil && !slices.Contains(seen, rd.Gaps) {
			seen = append(seen, rd.Gaps)
		}
	}
	if len(seen) == 0 {
		return nil
	}
	g := &Gaps{}
	g.Add(exact)
	for _, o := range seen {
		g.Merge(o)
	}
	return g
}

// turn is rd with only its requests of turn t (from 1; a request sent
// alone is turn 1), none of its turns not sent and no open loop's
// figures. A compact round's gaps are not told apart by turn: its turn
// has none (no ITL).
func (rd Round) turn(t int) Round {
	var asked []Asked
	keep := func(i, turn int) bool {
		if max(turn, 1) != t {
			return false
		}
		if rd.Asked != nil {
			asked = append(asked, rd.asked(i))
		}
		return true
	}
	out := rd
	out.Results, out.Replies, out.Gaps = nil, nil, nil
	for i, res := range rd.Results {
		if keep(i, res.Turn) {
			out.Results = append(out.Results, res)
		}
	}
	for i, res := range rd.Replies {
		if keep(i, int(res.Turn)) {
			out.Replies = append(out.Replies, res)
		}
	}
	out.NotSent, out.Open, out.Asked = 0, nil, asked
	return out
}
