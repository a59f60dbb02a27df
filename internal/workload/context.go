package workload

import (
	"fmt"
)

// TokensByBytes counts a text's tokens as a typical tokenizer does, a
// token per four bytes (rounded up): the driver's estimate of a text that
// is not sized on the runtime.
func TokensByBytes(s string) int { return (len(s) + 3) / 4 }

// Need is the context, in tokens, that item or request i needs at its
// end. A trace request needs its input_length + output_length. A
// conversation needs, at its last turn, its system prompt, every turn's
// user message and every turn's reply: tokensOf each text (nil:
// TokensByBytes) and the item's MaxTokens for each reply, or maxTokens if
// it has none.
func (w *Workload) Need(i, maxTokens int, tokensOf func(string) int) int {
	if w.Kind == Trace {
		r := w.Requests[i]
		return r.InputTokens + r.OutputTokens
	}
	if tokensOf == nil {
		tokensOf = TokensByBytes
	}
	it := w.Items[i]
	per := maxTokens
	if it.MaxTokens > 0 {
		per = it.MaxTokens
	}
	n := len(it.Turns) * per
	if it.System != "" {
		n += tokensOf(it.System)
	}
	for _, t := range it.Turns {
		n += tokensOf(t)
	}
	return n
}

// MaxNeed is the largest Need of the workload's items, and the index of
// the first that needs it: what Ollama's num_ctx must hold.
func (w *Workload) MaxNeed(maxTokens int, tokensOf func(string) int) (tokens, index int) {
	for i := range w.Len() {
		if n := w.Need(i, maxTokens, tokensOf); n > tokens {
			tokens, index = n, i
		}
	}
	return tokens, index
}

// CheckContext returns an error naming the first item or request that
// needs more than limit tokens (Need), and how many more do, or nil if
// every one fits. The driver calls it for every runtime whose context it
// knows, before any request.
func (w *Workload) CheckContext(limit, maxTokens int, tokensOf func(string) int) error {
	first, over := -1, 0
	for i := range w.Len() {
		if w.Need(i, maxTokens, tokensOf) > limit {
			if first < 0 {
				first = i
			}
			over++
		}
	}
	if first < 0 {
		return nil
	}
	e := w.at(first)
	need := w.Need(first, maxTokens, tokensOf)
	if w.Kind == Trace {
		r := w.Requests[first]
		e.Msg = fmt.Sprintf("input_length %d + output_length %d = %d tokens, more than the context of %d", r.InputTokens, r.OutputTokens, need, limit)
	} else {
		it := w.Items[first]
		per := maxTokens
		if it.MaxTokens > 0 {
			per = it.MaxTokens
		}
		e.Msg = fmt.Sprintf("needs about %d tokens (%d turn(s), each reply up to %d tokens), more than the context of %d", need, len(it.Turns), per, limit)
	}
	if over > 1 {
		e.Msg += fmt.Sprintf(" (and %d more of the %d)", over-1, w.Len())
	}
	return e
}

// at is an Error that names item or request i.
func (w *Workload) at(i int) *Error {
	e := &Error{What: "workload", Path: w.Path, Item: -1}
	switch {
	case w.Kind == Trace:
		e.Line = w.Requests[i].Line
	case w.byLine:
		e.Line = w.Items[i].Index
	default:
		e.Item, e.ID = w.Items[i].Index, w.Items[i].ID
	}
	return e
}
