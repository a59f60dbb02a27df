package summary

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
)

// Round is one b.Loop iteration: n requests sent at once, and the wall time
// from their release to the end of the last one.
type Round struct {
	Wall    time.Duration
	Results []runtimes.Result
}

// The units Report uses. They are the benchmark's public names: saved runs
// compare only while they stay the same.
const (
	UnitTTFT      = "ttft-ns"
	UnitDecode    = "decode-tok/s"
	UnitRequest   = "request-tok/s"
	UnitAggregate = "agg-tok/s"
	UnitPrompt    = "prompt-tok/s"
)

// Stat summarises the samples of one figure. N is zero when the figure has
// no samples; Mean, P50 and P95 are then meaningless (zero).
type Stat struct {
	N              int
	Mean, P50, P95 float64
}

// Metrics are the figures of a set of rounds (one leaf benchmark run, or
// the pooled repetitions of a leaf). TTFT and Total are in seconds, the
// others in tokens per second. Aggregate has one sample per round, the
// others one per successful request that has the figure.
type Metrics struct {
	Rounds                        int
	Requests, Successes, Failures int

	TTFT, Total                        Stat
	Decode, Request, Prompt, Aggregate Stat
	// Wall is the round wall time in seconds, over every round.
	Wall Stat

	// TokensApprox is set when some successful request's OutputTokens was
	// a chunk count rather than the server's token count.
	TokensApprox bool
	// MinTokens and MaxTokens are the fewest and most output tokens of a
	// successful request (zero without successes).
	MinTokens, MaxTokens int
	// FirstError is the error of the first failed request, if any.
	FirstError error
	// Errors counts the failures by class (runtimes.ErrorClass), with the
	// first message of each; nil without failures.
	Errors map[runtimes.Class]ErrorCount
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

// addError counts err under its class.
func (m *Metrics) addError(class runtimes.Class, err error) {
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

// Compute returns the figures of rounds, as defined in the package doc.
func Compute(rounds []Round) Metrics {
	var (
		m                                         Metrics
		ttft, total, decode, request, prompt, agg []float64
		wall                                      []float64
	)
	m.Rounds = len(rounds)
	for _, rd := range rounds {
		wall = append(wall, rd.Wall.Seconds())
		tokens, ok := 0, 0
		for _, res := range rd.Results {
			m.Requests++
			if !res.OK() {
				m.Failures++
				if m.FirstError == nil {
					m.FirstError = res.Err
				}
				m.addError(runtimes.ErrorClass(res.Err), res.Err)
				continue
			}
			m.Successes++
			ok++
			tokens += res.OutputTokens
			m.TokensApprox = m.TokensApprox || res.TokensApprox
			if m.Successes == 1 || res.OutputTokens < m.MinTokens {
				m.MinTokens = res.OutputTokens
			}
			m.MaxTokens = max(m.MaxTokens, res.OutputTokens)
			out := float64(res.OutputTokens)

			if res.TTFT > 0 {
				ttft = append(ttft, res.TTFT.Seconds())
			}
			total = append(total, res.Total.Seconds())
			switch {
			case res.Eval > 0:
				decode = append(decode, out/res.Eval.Seconds())
			case res.TTFT > 0 && res.Total > res.TTFT:
				decode = append(decode, out/(res.Total-res.TTFT).Seconds())
			}
			if res.Total > 0 {
				request = append(request, out/res.Total.Seconds())
			}
			if res.PromptTokens > 0 && res.PromptEval > 0 {
				prompt = append(prompt, float64(res.PromptTokens)/res.PromptEval.Seconds())
			}
		}
		if ok > 0 && rd.Wall > 0 {
			agg = append(agg, float64(tokens)/rd.Wall.Seconds())
		}
	}
	m.TTFT = stat(ttft)
	m.Total = stat(total)
	m.Decode = stat(decode)
	m.Request = stat(request)
	m.Prompt = stat(prompt)
	m.Aggregate = stat(agg)
	m.Wall = stat(wall)
	return m
}

// Report reports the means of m through r (a *testing.B) in the units
// above. A figure without samples is not reported; prompt-tok/s therefore
// appears only where the server reports prompt timing.
func (m Metrics) Report(r interface{ ReportMetric(float64, string) }) {
	report := func(s Stat, unit string, conv func(float64) float64) {
		if s.N > 0 && finite(s.Mean) {
			r.ReportMetric(conv(s.Mean), unit)
		}
	}
	same := func(x float64) float64 { return x }
	// The clock's resolution is a nanosecond; digits below it are noise.
	report(m.TTFT, UnitTTFT, func(sec float64) float64 { return math.Round(sec * 1e9) })
	report(m.Decode, UnitDecode, same)
	report(m.Request, UnitRequest, same)
	report(m.Aggregate, UnitAggregate, same)
	report(m.Prompt, UnitPrompt, same)
}

// stat summarises xs; it sorts xs in place.
func stat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Stat{
		N:    len(xs),
		Mean: sum / float64(len(xs)),
		P50:  quantile(xs, 0.50),
		P95:  quantile(xs, 0.95),
	}
}

// quantile returns the p-quantile of the sorted, non-empty xs by linear
// interpolation between closest ranks (R type 7, numpy's default). It is
// written here because gonum's stat.Quantile offers only the empirical and
// nearest-rank estimators, not R-7.
func quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
