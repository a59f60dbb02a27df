package driver

import (
	"context"
	"slices"

	"github.com/inferencebench/inferencebench/internal/quality"
	"github.com/inferencebench/inferencebench/runtimes"
)

// agreement asks the reference for a greedy reply to each prompt, then
// the reference again and every other runtime, and compares each reply
// with the reference's first. A
// reference that answers none is said, and the next runtime that answers
// is the reference instead; one without log-probabilities is said, and
// the texts alone are compared.
func (p *qualityPass) agreement(ctx context.Context, rts []*runtimes.Runtime) {
	names := p.agreePrompts()
	if len(names) < len(p.d.Prompts) {
		p.say("prompts sized per runtime (in<N>, workloads) are not compared: each runtime answers its own text")
	}
	if len(names) == 0 || len(rts) == 0 {
		return
	}
	p.run.AgreeTokens, p.run.TopK = agreeTokens, runtimes.MaxTopLogprobs
	// BENCH_REFERENCE, else the first runtime of the run (found, where
	// none were named).
	asked := p.d.Settings.Reference
	order := slices.Clone(rts)
	if i := slices.IndexFunc(rts, func(rt *runtimes.Runtime) bool { return rt.Name == asked }); i > 0 {
		order = append([]*runtimes.Runtime{rts[i]}, slices.Concat(rts[:i], rts[i+1:])...)
	} else if i < 0 && asked != "" {
		why := "it is not among the runtimes found"
		if err := p.d.unavailable[asked]; err != nil {
			why = err.Error()
		}
		p.say("the reference %s cannot be benchmarked (%s): %s is the reference instead", asked, why, order[0].Name)
	}
	ref, refReplies, rest := p.reference(ctx, order, names)
	if ref == nil {
		p.say("no runtime answered a greedy request: no agreement is measured")
		return
	}
	p.run.Reference = ref.Name
	for _, name := range names {
		p.fig(ref.Name, name).Reference = ref.Name
	}
	if !anyLogprobs(refReplies) {
		p.say("the reference %s gives no log-probabilities: every runtime's agreement is of its text only (equal texts, common prefix, words), with no top-1 token agreement or KL", ref.Name)
	}
	// The reference asked again: how far it agrees with itself at
	// temperature 0, the noise floor of the others' agreement.
	for _, rt := range append([]*runtimes.Runtime{ref}, rest...) {
		p.compare(ctx, rt, ref.Name, names, refReplies)
	}
}

// reference asks order's runtimes in turn until one answers a greedy
// request to some prompt: that one is the reference, with its replies by
// prompt (a prompt it failed has none), and rest the runtimes after it.
func (p *qualityPass) reference(ctx context.Context, order []*runtimes.Runtime, names []string) (*runtimes.Runtime, map[string]*quality.Reply, []*runtimes.Runtime) {
	for i, rt := range order {
		replies, err := p.replies(ctx, rt, names)
		if len(replies) > 0 {
			return rt, replies, order[i+1:]
		}
		if next := "no runtime"; ctx.Err() == nil {
			if i+1 < len(order) {
				next = order[i+1].Name
			}
			p.say("the reference %s did not answer a greedy request (%v): %s is the reference instead", rt.Name, err, next)
		}
	}
	return nil, nil, nil
}

// replies are rt's greedy replies to the prompts names, by name, and the
// last error; it stops after failLimit failures in a row.
func (p *qualityPass) replies(ctx context.Context, rt *runtimes.Runtime, names []string) (map[string]*quality.Reply, error) {
	out := map[string]*quality.Reply{}
	var last error
	failed := 0
	for _, name := range names {
		if ctx.Err() != nil || failed >= failLimit {
			break
		}
		g, err := p.greedy(ctx, rt, p.promptText(name), agreeTokens, runtimes.MaxTopLogprobs)
		if err != nil {
			failed, last = failed+1, err
			continue
		}
		r := replyOf(g)
		out[name], failed = &r, 0
	}
	return out, last
}

// compare asks rt the prompts the reference answered and sets its
// agreement figures.
func (p *qualityPass) compare(ctx context.Context, rt *runtimes.Runtime, ref string, names []string, refReplies map[string]*quality.Reply) {
	var asked []string
	for _, name := range names {
		if refReplies[name] != nil {
			asked = append(asked, name)
		}
	}
	replies, err := p.replies(ctx, rt, asked)
	if len(replies) < len(asked) && ctx.Err() == nil {
		p.say("%s did not answer %d of %d greedy requests (%v): those prompts' rows have no agreement", rt.Name, len(asked)-len(replies), len(asked), err)
	}
	if anyLogprobs(refReplies) && len(replies) > 0 && !anyLogprobs(replies) {
		p.say("%s gives no log-probabilities: its agreement with %s is of its text only", rt.Name, ref)
	}
	for _, name := range asked {
		r := replies[name]
		if r == nil {
			continue
		}
		ag := quality.Agree(*refReplies[name], *r)
		setAgreement(p.fig(rt.Name, name), ref, ag)
		top1, _ := ag.Top1()
		who := rt.Name + " against " + ref
		if rt.Name == ref {
			who = ref + " asked again against its first reply"
		}
		p.d.logf("quality: %s, prompt %s: %.1f%% of %d %ss agree, the first differs after %d, texts equal: %v",
			who, name, 100*top1, ag.Compared, unitOf(ag), ag.FirstDiff, ag.TextEqual)
	}
}

// anyLogprobs: some reply has tokens with log-probabilities.
func anyLogprobs(rs map[string]*quality.Reply) bool {
	for _, r := range rs {
		if r.Logprobs && len(r.Tokens) > 0 {
			return true
		}
	}
	return false
}

// unitOf is what ag matched: "token" or "word".
func unitOf(ag quality.Agreement) string {
	if ag.Logprobs {
		return "token"
	}
	return "word"
}
