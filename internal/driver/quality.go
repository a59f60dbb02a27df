package driver

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/quality"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The quality pass (BENCH_QUALITY, docs/metrics.md "Quality"): in Setup,
// after every check and before any timed request, untimed greedy replies
// of a fixed length from every runtime, the reference's first. Its
// figures go into the rows of each runtime and prompt (summary.Quality),
// its cost is said before the timed rounds and its share of the run at
// the end. Its requests are bounded: agreeTokens a reply, one a prompt
// and runtime; exactTokens a reply, one a problem and runtime; a runtime
// that fails failLimit in a row is asked no more.
const (
	agreeTokens = 128
	exactTokens = 256
	failLimit   = 3
)

// qualityPass is one run's quality pass under way.
type qualityPass struct {
	d        *Driver
	run      summary.QualityRun
	figs     map[[2]string]*summary.Quality // by runtime and prompt
	requests int
}

// measureQuality runs the quality pass if BENCH_QUALITY asks for one.
func (d *Driver) measureQuality(ctx context.Context) {
	q := d.Settings.Quality
	if !q.On() {
		return
	}
	start := time.Now()
	p := &qualityPass{d: d, run: summary.QualityRun{Measured: q.String()}, figs: map[[2]string]*summary.Quality{}}
	rts := d.qualityRuntimes()
	d.logf("quality (%s=%s): untimed greedy replies from %s before the timed rounds, at most %d requests",
		config.Var("Quality"), q, plural(len(rts), "runtime"), p.bound(rts))
	if q.Agree {
		p.agreement(ctx, rts)
	}
	if q.Exact {
		p.exact(ctx, rts)
	}
	p.run.Requests, p.run.Seconds = p.requests, time.Since(start).Seconds()
	for k, f := range p.figs {
		d.Run.SetQuality(k[0], k[1], *f)
	}
	d.Run.QualityRun = &p.run
	d.qualityTime = time.Since(start)
	d.logf("quality: %s, untimed, in %.1f s, before any timed request", plural(p.requests, "request"), p.run.Seconds)
}

// bound is the most requests the pass sends to rts.
func (p *qualityPass) bound(rts []*runtimes.Runtime) int {
	n := 0
	if p.d.Settings.Quality.Agree {
		n += (len(rts) + 1) * len(p.agreePrompts()) // the reference twice
	}
	if p.d.Settings.Quality.Exact {
		n += len(rts) * quality.DefaultProblems
	}
	return n
}

// qualityRuntimes are the runtimes that can be benchmarked, in order.
func (d *Driver) qualityRuntimes() []*runtimes.Runtime {
	var rts []*runtimes.Runtime
	for _, rt := range d.Runtimes {
		if d.unavailable[rt.Name] == nil {
			rts = append(rts, rt)
		}
	}
	return rts
}

// fig is the quality figures of runtime and prompt, made on first use.
func (p *qualityPass) fig(runtime, prompt string) *summary.Quality {
	k := [2]string{runtime, prompt}
	if p.figs[k] == nil {
		p.figs[k] = &summary.Quality{}
	}
	return p.figs[k]
}

// say says a line on the log and keeps it in the quality object's notes.
func (p *qualityPass) say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	p.run.Notes = append(p.run.Notes, line)
	p.d.logf("quality: %s", line)
}

// greedy is one untimed greedy reply of rt, counted.
func (p *qualityPass) greedy(ctx context.Context, rt *runtimes.Runtime, prompt string, maxTokens, topK int) (runtimes.Greedy, error) {
	p.requests++
	return rt.Greedy(ctx, prompt, maxTokens, topK)
}

// replyOf is g as the quality package reads it.
func replyOf(g runtimes.Greedy) quality.Reply {
	r := quality.Reply{Text: g.Text, Logprobs: g.Logprobs, Tokens: make([]quality.Token, len(g.Tokens))}
	for i, t := range g.Tokens {
		top := make([]quality.Alt, len(t.Top))
		for j, a := range t.Top {
			top[j] = quality.Alt{Text: a.Text, LogProb: a.LogProb}
		}
		r.Tokens[i] = quality.Token{Text: t.Text, LogProb: t.LogProb, Top: top}
	}
	return r
}

// exact asks every runtime the exact-answer problems and scores them.
func (p *qualityPass) exact(ctx context.Context, rts []*runtimes.Runtime) {
	ps := quality.Problems(quality.DefaultSeed, quality.DefaultProblems)
	p.run.Problems, p.run.ExactSeed, p.run.ExactTokens = len(ps), quality.DefaultSeed, exactTokens
	anyRight := false
	for _, rt := range rts {
		replies := make([]*string, len(ps))
		failed := 0
		for i, pr := range ps {
			if ctx.Err() != nil || failed >= failLimit {
				break
			}
			g, err := p.greedy(ctx, rt, pr.Prompt(), exactTokens, 0)
			if err != nil {
				if failed++; failed == failLimit {
					p.say("%s failed %d exact-answer problems in a row (%v): it is asked no more, and the rest count as wrong", rt.Name, failLimit, err)
				}
				continue
			}
			failed, replies[i] = 0, &g.Text
		}
		acc := quality.Score(ps, replies)
		anyRight = anyRight || acc.Right > 0
		share, _ := acc.Share()
		for _, pr := range p.d.Prompts {
			f := p.fig(rt.Name, pr.Name)
			f.ExactRight, f.ExactAsked, f.ExactAccuracy = pointer(acc.Right), pointer(acc.Asked), pointer(share)
			f.ExactLo, f.ExactHi, f.ExactUnparsed, f.ExactFailed = pointer(acc.Lo), pointer(acc.Hi), pointer(acc.Unparsed), pointer(acc.Failed)
		}
		p.d.logf("quality: %s answered %d of %d problems right (%.0f%%, 95%% interval %.0f–%.0f%%), %d with no answer by the rule",
			rt.Name, acc.Right, acc.Asked, 100*share, 100*acc.Lo, 100*acc.Hi, acc.Unparsed)
	}
	if !anyRight && len(rts) > 0 {
		p.say("no runtime answered any problem right: a model of random weights (or one too small) measures nothing here, and equal accuracies near 0 are no difference")
	}
}

func pointer[T any](v T) *T { return &v }

// agreePrompts are the prompts whose text is one for every runtime: an
// in<N> prompt or a workload's is sized per runtime, so two runtimes'
// replies to it would answer different texts.
func (p *qualityPass) agreePrompts() []string {
	var names []string
	for _, pr := range p.d.Prompts {
		if pr.InputTokens == 0 && p.d.work[pr.Name] == nil {
			names = append(names, pr.Name)
		}
	}
	return names
}

// promptText is the text of the prompt named name.
func (p *qualityPass) promptText(name string) string {
	i := slices.IndexFunc(p.d.Prompts, func(pr prompts.Prompt) bool { return pr.Name == name })
	if i < 0 {
		return ""
	}
	return p.d.Prompts[i].Text
}

// setAgreement sets f's agreement figures from ag, against ref.
func setAgreement(f *summary.Quality, ref string, ag quality.Agreement) {
	f.Reference, f.AgreeBy = ref, unitOf(ag)
	if top1, ok := ag.Top1(); ok {
		f.AgreeTop1Ratio = pointer(top1)
	}
	f.AgreeCompared, f.AgreeFirstDiff = pointer(ag.Compared), pointer(ag.FirstDiff)
	if kl, ok := ag.MeanKL(); ok {
		f.AgreeKLMean, f.AgreeKLPositions = pointer(kl), pointer(ag.KLPositions)
		f.AgreeKLTailMean = pointer(ag.Tail / float64(ag.KLPositions))
	}
	f.AgreeTextEqual, f.AgreeCharRatio = pointer(ag.TextEqual), pointer(ag.CharShare())
}

// sayQualityCost says the quality pass's share of the run, at its end.
func (d *Driver) sayQualityCost() {
	if d.qualityTime <= 0 {
		return
	}
	whole := time.Since(d.Run.CreatedAt)
	d.logf("quality: its untimed requests took %.1f s, %.0f%% of the run's %.0f s",
		d.qualityTime.Seconds(), 100*d.qualityTime.Seconds()/max(whole.Seconds(), d.qualityTime.Seconds()), whole.Seconds())
}
