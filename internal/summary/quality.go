package summary

import (
	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
)

// Quality are a row's figures of quality (BENCH_QUALITY): its runtime's
// greedy reply to the row's prompt against the reference runtime's
// (agree_*), and its runtime's score on the exact-answer problems
// (exact_*, the same in every row of the runtime). Every key is absent
// where it was not measured, so a file of a run without BENCH_QUALITY is
// as it was before them. docs/metrics.md ("Quality") defines them.
type Quality struct {
	// Reference is the runtime compared with; AgreeBy is what was
	// matched: "token" (both gave log-probabilities) or "word" (text
	// only).
	Reference string `json:"quality_reference,omitempty"`
	AgreeBy   string `json:"agree_by,omitempty"`
	// AgreeTop1Ratio is the share of the reference's compared tokens
	// (words) the reply has too, of AgreeCompared; AgreeFirstDiff the
	// reference's tokens (words) before the first that differs.
	AgreeTop1Ratio *float64 `json:"agree_top1_ratio,omitempty"`
	AgreeCompared  *int     `json:"agree_compared,omitempty"`
	AgreeFirstDiff *int     `json:"agree_first_diff,omitempty"`
	// AgreeKLMean is the mean KL divergence in nats over the common
	// prefix's positions (AgreeKLPositions), each over the two servers'
	// shared top-k with the rest lumped (a lower bound of the whole
	// vocabulary's); AgreeKLTailMean the reference's mean probability
	// outside the shared top-k there, the share the bound did not see.
	AgreeKLMean      *float64 `json:"agree_kl_mean,omitempty"`
	AgreeKLPositions *int     `json:"agree_kl_positions,omitempty"`
	AgreeKLTailMean  *float64 `json:"agree_kl_tail_mean,omitempty"`
	// AgreeTextEqual: the two replies' texts are equal; AgreeCharRatio
	// the common prefix's share of the longer's characters.
	AgreeTextEqual *bool    `json:"agree_text_equal,omitempty"`
	AgreeCharRatio *float64 `json:"agree_char_ratio,omitempty"`
	// The exact-answer problems: right of asked, their share and its
	// Wilson 95% interval, and the replies with no answer by the
	// parsing rule (failed requests are wrong, and counted in Failed).
	ExactRight    *int     `json:"exact_right,omitempty"`
	ExactAsked    *int     `json:"exact_asked,omitempty"`
	ExactAccuracy *float64 `json:"exact_accuracy,omitempty"`
	ExactLo       *float64 `json:"exact_accuracy_lo,omitempty"`
	ExactHi       *float64 `json:"exact_accuracy_hi,omitempty"`
	ExactUnparsed *int     `json:"exact_unparsed,omitempty"`
	ExactFailed   *int     `json:"exact_failed,omitempty"`
}

// QualityRun is the summary's quality object: how the quality figures of
// the rows were measured, and what they cost. Absent without
// BENCH_QUALITY.
type QualityRun struct {
	// Measured is BENCH_QUALITY ("agree", "exact", "agree,exact").
	Measured string `json:"measured"`
	// Reference is the runtime the others were compared with (after a
	// reference that did not answer, the one used instead); AgreeTokens
	// the greedy replies' length and TopK the alternatives asked.
	Reference   string `json:"reference,omitempty"`
	AgreeTokens int    `json:"agree_tokens,omitempty"`
	TopK        int    `json:"top_k,omitempty"`
	// Problems of seed ExactSeed, each reply at most ExactTokens.
	Problems    int    `json:"problems,omitempty"`
	ExactSeed   uint64 `json:"exact_seed,omitempty"`
	ExactTokens int    `json:"exact_tokens,omitempty"`
	// Requests and Seconds are the quality requests' cost, before the
	// timed rounds; Notes what a reader must know (a reference without
	// log-probabilities, a runtime that failed).
	Requests int      `json:"requests"`
	Seconds  float64  `json:"seconds"`
	Notes    []string `json:"notes,omitempty"`
}

type qualityKey struct{ runtime, prompt string }

// SetQuality sets the quality figures of the rows of runtime and prompt.
func (r *Run) SetQuality(runtime, prompt string, q Quality) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.quality == nil {
		r.quality = map[qualityKey]Quality{}
	}
	r.quality[qualityKey{runtime, prompt}] = q
}

// QualityOf is what SetQuality set for runtime and prompt, if anything.
func (r *Run) QualityOf(runtime, prompt string) (Quality, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q, ok := r.quality[qualityKey{runtime, prompt}]
	return q, ok
}

// qualityOf is QualityOf for a leaf's key.
func (r *Run) qualityOf(k bench.Key) Quality {
	q, _ := r.QualityOf(k.Runtime, k.Prompt)
	return q
}

// The quality figures on the result lines.
var qualityUnits = []struct {
	f     figures.Figure
	value func(Quality) *float64
}{
	{figures.AgreeTop1, func(q Quality) *float64 { return q.AgreeTop1Ratio }},
	{figures.AgreeKL, func(q Quality) *float64 { return q.AgreeKLMean }},
	{figures.ExactAccuracy, func(q Quality) *float64 { return q.ExactAccuracy }},
}

// Report reports q's figures through r, as the result lines have them:
// top-1 agreement, mean KL and accuracy, each where measured.
func (q Quality) Report(r interface{ ReportMetric(float64, string) }) {
	for _, u := range qualityUnits {
		if v := u.value(q); v != nil {
			r.ReportMetric(*v, u.f.Unit)
		}
	}
}
