package driver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// work is what a prompt made by BENCH_WORKLOAD or by a distribution in
// BENCH_INPUT_TOKENS sends: its requests differ one from the next.
type work struct {
	// w is the workload read (nil for a distribution).
	w *workload.Workload
	// dist is the distribution of input lengths (BENCH_INPUT_TOKENS),
	// zero for a workload.
	dist workload.Distribution
	// rate is a trace's mean arrival rate, requests a second, which
	// names its leaf (rate=…).
	rate float64
}

func (k *work) trace() bool { return k.w != nil && k.w.Kind == workload.Trace }

// selectPrompts is the run's prompts: those prompts.Select makes of
// BENCH_PROMPTS, BENCH_PROMPTS_DIR and the in<N> lengths, then one per
// distribution of BENCH_INPUT_TOKENS (workload.InputName) and the workload
// of BENCH_WORKLOAD (named after its file). With BENCH_PROMPTS unset and
// any of those, only they run (and the in<N> prompts); with it set it
// must list each.
func (d *Driver) selectPrompts(st config.Settings, opts Options) ([]prompts.Prompt, error) {
	var made []prompts.Prompt
	for _, dist := range st.InputLengths.Dists {
		name := workload.InputName(dist)
		made = append(made, prompts.Prompt{Name: name, InputTokens: dist.Bound()})
		d.setWork(name, &work{dist: dist})
	}
	if st.Workload != "" {
		w, err := d.readWorkload(st, opts)
		if err != nil {
			return nil, err
		}
		made = append(made, prompts.Prompt{Name: w.Name})
		k := &work{w: w}
		if k.trace() {
			k.rate = traceRate(w)
		}
		d.setWork(w.Name, k)
	}
	if len(made) == 0 {
		return prompts.Select(st.Prompts, st.PromptsDir, st.InputTokens)
	}
	var names []string
	for _, n := range st.Prompts {
		if d.work[strings.TrimSpace(n)] == nil {
			names = append(names, n)
		}
	}
	if len(st.Prompts) > 0 {
		for _, p := range made {
			if !slices.ContainsFunc(st.Prompts, func(n string) bool { return strings.TrimSpace(n) == p.Name }) {
				what := envInputTokens
				if d.work[p.Name].w != nil {
					what = envWorkload
				}
				return nil, fmt.Errorf("%s makes prompt %s, which "+envPrompts+" does not list: add it, or leave "+envPrompts+" unset to run only the prompts it and "+envInputTokens+" make", what, p.Name)
			}
		}
	}
	var out []prompts.Prompt
	if len(names) > 0 || len(st.InputTokens) > 0 {
		ps, err := prompts.Select(names, st.PromptsDir, st.InputTokens)
		if err != nil {
			return nil, fmt.Errorf(envPrompts+"=%q: %w", strings.Join(st.Prompts, ","), err)
		}
		out = ps
	}
	for _, p := range made {
		if slices.ContainsFunc(out, func(q prompts.Prompt) bool { return q.Name == p.Name }) {
			return nil, fmt.Errorf("prompt %s is made twice: rename the workload file", p.Name)
		}
	}
	return append(out, made...), nil
}

func (d *Driver) setWork(name string, k *work) {
	if d.work == nil {
		d.work = map[string]*work{}
	}
	d.work[name] = k
}

// readWorkload reads BENCH_WORKLOAD as BENCH_WORKLOAD_N and
// BENCH_TRACE_SPEED say. A trace is replayed with -benchtime=Nx, its
// first N requests (at most all of them): go test's timing of a
// -benchtime duration would send as many as it asks for, the trace over
// and over, so a duration is refused, saying whether the trace would
// have fitted it.
func (d *Driver) readWorkload(st config.Settings, opts Options) (*workload.Workload, error) {
	o := workload.Options{N: st.WorkloadN, Speed: st.TraceSpeed}
	rounds := d.fixedRounds()
	if rounds == 0 {
		o.MaxDuration = time.Second
		if v, err := time.ParseDuration(opts.Benchtime); err == nil && v > 0 {
			o.MaxDuration = v
		}
	}
	w, err := workload.Read(st.Workload, o)
	nx := func(n int) string {
		return fmt.Sprintf("-benchtime=Nx replays a trace's first N requests (-benchtime=%dx all of them), whatever they take", n)
	}
	if err != nil {
		var e *workload.Error
		if errors.As(err, &e) && o.MaxDuration > 0 && strings.Contains(e.Msg, "the run allows") {
			if all, rerr := workload.Read(st.Workload, workload.Options{N: st.WorkloadN, Speed: st.TraceSpeed}); rerr == nil {
				return nil, fmt.Errorf(envWorkload+"=%q: %w (-benchtime=%s); %s", st.Workload, err, o.MaxDuration, nx(all.Len()))
			}
		}
		return nil, fmt.Errorf(envWorkload+"=%q: %w", st.Workload, err)
	}
	if w.Kind == workload.Trace {
		switch {
		case rounds == 0:
			return nil, fmt.Errorf(envWorkload+"=%q: a trace is not replayed for a -benchtime duration (-benchtime=%s: go test would send as many requests as its timing asks for, the trace over and over); %s",
				st.Workload, o.MaxDuration, nx(len(w.Requests)))
		case rounds > len(w.Requests):
			return nil, fmt.Errorf(envWorkload+"=%q: -benchtime=%s asks for %d requests, and the trace has %d ("+envWorkloadN+"=%d): -benchtime=%dx replays it whole",
				st.Workload, opts.Benchtime, rounds, len(w.Requests), st.WorkloadN, len(w.Requests))
		}
	}
	skipped := ""
	if n := w.SkippedCount(); n > 0 {
		skipped = fmt.Sprintf(", %d skipped that cannot be replayed (%s)", n, w.SkippedSummary())
	}
	d.logf(envWorkload+": %s is %s, prompt=%s: %d of its %d items%s", st.Workload, describeKind(w), w.Name, w.Len(), w.Total, skipped)
	return w, nil
}

func describeKind(w *workload.Workload) string {
	switch w.Kind {
	case workload.Trace:
		return fmt.Sprintf("a trace of requests over %v at speed %g", w.Duration().Round(time.Millisecond), w.Speed)
	case workload.Messages:
		return "message lists"
	}
	return "ShareGPT conversations"
}

// traceRate is a trace's mean arrival rate, requests a second: its
// requests after the first over its duration (its count, if it has no
// duration).
func traceRate(w *workload.Workload) float64 {
	n, dur := len(w.Requests), w.Duration().Seconds()
	if n < 2 || dur <= 0 {
		return float64(n)
	}
	return math.Round(float64(n-1)/dur*1000) / 1000
}

// readTools reads BENCH_TOOLS into the JSON array every request sends,
// and the first 16 hex digits of the SHA-256 of the file's bytes, which
// the summary records (arguments.tools_sha256).
func readTools(path string) (json.RawMessage, string, error) {
	if path == "" {
		return nil, "", nil
	}
	tools, sum, err := workload.ReadToolsSum(path)
	if err != nil {
		return nil, "", fmt.Errorf(envTools+"=%q: %w", path, err)
	}
	b := []byte{'['}
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.JSON...)
	}
	return append(b, ']'), hex.EncodeToString(sum[:8]), nil
}

// promptText is what the summary says of prompt p: its text, or how its
// requests are made.
func (d *Driver) promptText(p prompts.Prompt) string {
	if k := d.work[p.Name]; k != nil {
		switch {
		case k.trace():
			return fmt.Sprintf("(workload %s: %s, %d requests of %d; each request's text is the suite's generated text, sized per runtime to its input_length, the same for the same hash_ids: see runtimes[].input_sizes)", k.w.Path, describeKind(k.w), k.w.Len(), k.w.Total)
		case k.w != nil:
			return fmt.Sprintf("(workload %s: %s, %d conversations of %d, replayed turn by turn)", k.w.Path, describeKind(k.w), k.w.Len(), k.w.Total)
		}
		return fmt.Sprintf("(the suite's generated text, each request of a length drawn from %s tokens, sized per runtime: see runtimes[].input_sizes)", k.dist)
	}
	if p.InputTokens > 0 {
		return fmt.Sprintf("(the suite's generated text, sized for each runtime to %d prompt tokens: see runtimes[].input_sizes)", p.InputTokens)
	}
	return p.Text
}

// checkWorkloadContext stops the run, before any request, when an item
// of the workload does not fit a runtime's stated context
// (workload.Workload.CheckContext, each reply of BENCH_MAX_TOKENS or its
// largest draw).
func (d *Driver) checkWorkloadContext() error {
	var errs []error
	for _, k := range d.work {
		if k.w == nil {
			continue
		}
		for _, info := range d.Run.Runtimes {
			if info.ContextLimit == 0 || d.unavailable[info.Name] != nil {
				continue
			}
			if err := k.w.CheckContext(info.ContextLimit, d.Settings.MaxTokens, nil); err != nil {
				errs = append(errs, fmt.Errorf(envWorkload+"=%q: %s (%s) takes at most %d tokens (%s): %w",
					d.Settings.Workload, info.Name, info.BaseURL, info.ContextLimit, info.ContextSource, err))
			}
		}
	}
	return errors.Join(errs...)
}

// templateTokens bounds what a chat template adds to a trace request's
// input_length (its texts are sized without it).
const templateTokens = 64

// workNumCtx is the context a workload's longest item needs, by an upper
// bound for conversations (a token per byte of text and marker, each
// reply twice its max tokens), for a trace its longest input_length +
// output_length and the chat template's tokens (its lengths are sized),
// and whether it is a trace; 0 without a workload.
func (d *Driver) workNumCtx() (int, bool) {
	for _, k := range d.work {
		if k.w == nil {
			continue
		}
		if k.trace() {
			n, _ := k.w.MaxNeed(d.Settings.MaxTokens, nil)
			return n + templateTokens, true
		}
		n, _ := k.w.MaxNeed(2*d.Settings.MaxTokens, func(s string) int { return len(s) + markerBytes })
		return n, false
	}
	return 0, false
}

// varies reports whether the leaf's requests differ one from the next: a
// workload, an input length distribution, or a distribution of
// max_tokens.
func (l *Leaf) varies() bool { return l.work != nil || l.d.Settings.MaxTokensDist.Varies() }

// prepareWork readies the leaf of a workload or distribution prompt on
// its runtime: the draws' generator, seeded from the leaf's name and
// repetition so that every runtime draws the same lengths; for a trace or
// a distribution, the words of generated text per token on this runtime
// (sized once, at the mean length); and the request the canary and the
// warm-ups of a trace send.
func (l *Leaf) prepareWork(ctx context.Context) error {
	h := fnv.New64a()
	h.Write([]byte(l.key.Levels()))
	s := h.Sum64()
	l.rng = rand.New(rand.NewPCG(s, uint64(max(l.count, 1))))
	k := l.work
	if k == nil {
		return nil
	}
	switch {
	case k.w == nil || k.trace():
		if err := l.calibrate(ctx); err != nil {
			return err
		}
		if k.trace() {
			t, err := workload.NewTraceText(k.w, l.wordsFor)
			if err != nil {
				return err
			}
			l.text = t
			first := k.w.Requests[0]
			// Line 0 is no request's: its text shares no block with the
			// trace's, so warm-ups and the canary leave nothing for them
			// in a prefix cache.
			l.req.Prompt = t.Prompt(workload.TraceRequest{InputTokens: first.InputTokens})
		} else {
			l.req.Prompt = prompts.Words(l.wordsFor(int(math.Round(k.dist.Mean()))))
		}
	default:
		it := k.w.Items[0]
		l.req.Prompt, l.req.System = it.Turns[0], it.System
	}
	return nil
}

// calibrate finds how many words of generated text make a number of
// tokens on the leaf's runtime (l.wordsFor), from the generated text sized
// as in<N> prompts are at the two ends of the lengths its requests ask for
// (input_sizes "<prompt>.min" and "<prompt>"), or once at their middle when
// they are close. A distribution's text is one piece, so its words are the
// line through the two sizes, the chat template's tokens included; a
// trace's is pieces (blocks and a tail), so its words are the line's slope
// alone, and a request counts its input_length and the template's tokens.
func (l *Leaf) calibrate(ctx context.Context) error {
	k := l.work
	var lo, hi int
	if k.w == nil {
		half := math.Sqrt(3) * k.dist.SD() // a uniform's ends
		lo, hi = int(math.Round(k.dist.Mean()-half)), min(int(math.Round(k.dist.Mean()+half)), k.dist.Bound())
	} else {
		lo, hi = math.MaxInt, 0
		for _, r := range k.w.Requests {
			lo, hi = min(lo, r.InputTokens), max(hi, r.InputTokens)
		}
	}
	lo, hi = max(lo, 16), max(hi, 16)
	size := func(name string, n int) (*size, error) {
		if _, err := l.d.sized(ctx, l.rt, prompts.Prompt{Name: name, InputTokens: n}, false); err != nil {
			return nil, err
		}
		return l.d.sizes[l.rt.Name][name], nil
	}
	if hi-lo < max(16, lo/8) {
		s, err := size(l.key.Prompt, (lo+hi)/2)
		if err != nil {
			return err
		}
		l.wordsFor = workload.PerWord(float64(s.Tokens) / float64(s.Words))
		return nil
	}
	a, err := size(l.key.Prompt+".min", lo)
	if err != nil {
		return err
	}
	b, err := size(l.key.Prompt, hi)
	if err != nil {
		return err
	}
	slope := float64(b.Words-a.Words) / float64(b.Tokens-a.Tokens) // words a token
	switch {
	case !(slope > 0) || math.IsInf(slope, 0):
		l.wordsFor = workload.PerWord(float64(b.Tokens) / float64(b.Words))
	case k.trace():
		l.wordsFor = workload.PerWord(1 / slope)
	default:
		l.wordsFor = func(tokens int) int {
			if tokens <= 0 {
				return 0
			}
			return max(1, int(math.Round(float64(a.Words)+float64(tokens-a.Tokens)*slope)))
		}
	}
	return nil
}

// drawMax is the max_tokens of the leaf's next request: BENCH_MAX_TOKENS,
// or a draw of its distribution.
func (l *Leaf) drawMax() int {
	if dist := l.d.Settings.MaxTokensDist; dist.Varies() {
		return dist.Sample(l.rng)
	}
	return l.d.Settings.MaxTokens
}

// planned is one conversation of a round or one arrival, built before it
// is sent: its first request, the follow-ups, the turns it has, and what
// it asked for.
type planned struct {
	req    runtimes.Request
	follow []string
	turns  int
	asked  stats.Asked
}

// plan builds request j of round i (warm-up or not) of a varied leaf: a
// conversation of the workload, taken in the file's (or sample's) order
// from the leaf run's first, round after round; a request of a drawn
// input length; or a request of a drawn max_tokens.
func (l *Leaf) plan(warmup bool, i, j int) planned {
	req := l.req
	p := planned{follow: l.d.follow, turns: l.d.Settings.Turns}
	switch k := l.work; {
	case k != nil && k.w != nil:
		it := k.w.Items[l.cursor%len(k.w.Items)]
		l.cursor++
		req.System, req.Prompt = it.System, it.Turns[0]
		p.follow, p.turns = it.Turns[1:], len(it.Turns)
		req.MaxTokens = l.drawMax()
		if it.MaxTokens > 0 {
			req.MaxTokens = it.MaxTokens
		}
	case k != nil:
		n := k.dist.Sample(l.rng)
		req.Prompt = prompts.Words(l.wordsFor(n))
		req.MaxTokens = l.drawMax()
		p.asked.InputTokens = n
	default:
		req.MaxTokens = l.drawMax()
		p.asked.InputTokens = l.input
	}
	p.asked.MaxTokens = req.MaxTokens
	p.req = l.coldRequest(req, warmup, i, j)
	return p
}

// planTrace builds arrival i of a trace: its request's text made for
// this runtime (no cold marker, so that requests that share hash_ids
// share their prefix), asking for its output_length.
func (l *Leaf) planTrace(i int) planned {
	r := l.work.w.Requests[i]
	req := l.req
	req.Prompt = l.text.Prompt(r)
	req.MaxTokens = r.OutputTokens
	req.Conversation = l.d.nextConversation()
	return planned{req: req, turns: 1, asked: stats.Asked{InputTokens: r.InputTokens, MaxTokens: r.OutputTokens}}
}

// traceAt is when arrival i of a trace is due, from the first: its
// recorded offset, Speed applied.
func (k *work) traceAt(i int) time.Duration { return k.w.Requests[i].Arrival }

// sendVaried runs one round of a varied leaf: a conversation (or a
// request) of its own for each request of the load.
func (l *Leaf) sendVaried(warmup bool, i int) stats.Round {
	n := l.key.Concurrency
	if l.open != nil {
		n = 1
	}
	plans := make([]planned, n)
	for j := range plans {
		if l.text != nil {
			plans[j] = l.planTrace(0)
			plans[j].req.Prompt = l.req.Prompt // a warm-up: no block of the trace's
			continue
		}
		plans[j] = l.plan(warmup, i, j)
	}
	wall, convs := chats(l.ctx, l.rt, plans)
	rd := l.shape()
	rd.Wall = wall
	for j, chat := range convs {
		rd.Results = append(rd.Results, chat...)
		rd.NotSent += plans[j].turns - len(chat)
		for range chat {
			rd.Asked = append(rd.Asked, plans[j].asked)
		}
	}
	l.record(warmup, i, rd.Results, rd.Asked)
	return rd
}

// nextVaried sends the next arrival of a varied open-loop leaf: of a
// trace at its recorded time, otherwise at the rate's.
func (l *Leaf) nextVaried() {
	i := l.open.sent()
	var p planned
	if l.text != nil {
		p = l.planTrace(i)
	} else {
		p = l.plan(false, 1, i)
	}
	follow := p.follow
	l.open.arriveAs(func(r runtimes.Request) []runtimes.Result { return l.rt.Converse(l.ctx, r, follow) }, p.req, p.turns, &p.asked)
}

// chats runs the conversations of plans at once (runtimes.Runtime.ChatsEach),
// each with its own follow-ups.
func chats(ctx context.Context, rt *runtimes.Runtime, plans []planned) (wall time.Duration, results [][]runtimes.Result) {
	firsts := make([]runtimes.Request, len(plans))
	for i, p := range plans {
		firsts[i] = p.req
	}
	return rt.ChatsEach(ctx, firsts, func(i int) []string { return plans[i].follow })
}
