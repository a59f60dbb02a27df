package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Leaf is one run of a leaf benchmark (one -count repetition of one
// runtime × prompt × load): its warm-ups, its timed rounds or arrivals,
// what was measured beside them, and their record.
type Leaf struct {
	d       *Driver
	ctx     context.Context
	key     bench.Key
	rt      *runtimes.Runtime
	req     runtimes.Request
	n       int // this leaf run's number in the run, from 1
	count   int // this leaf's -count repetition, from 1
	warmups int // warm-up rounds run
	// warmupLoads counts the warm-up requests during which the server
	// loaded the model; load is what they showed of its load time
	// (load.go).
	warmupLoads int
	load        loadWatch
	// input is N of an in<N> prompt, 0 for others.
	input int
	// control is set for a control leaf run (see Driver.controls): its
	// figures go in no row and no result line.
	control bool
	// recordErr is the first failure to write the request records.
	recordErr error
	// canary is the reply to the leaf run's canary request, nil if none
	// was sent or it failed; canaryNote says why, or that it differs from
	// the leaf's first run's.
	canary     *canary.Reply
	canaryNote string
	// rounds are the timed rounds, compact (stats.Round.Compact): their
	// gaps between chunks are counted in gaps.
	rounds   []stats.Round
	gaps     stats.Gaps
	open     *openLoop // for an open-loop leaf (key.Rate > 0)
	progress leafProgress
	// recMu serialises an open-loop leaf's conversations' recording
	// (recordArrival); heldOpen are their records, each with where its
	// replies are in the leaf's round, when they are held for their
	// energy (hold).
	recMu    sync.Mutex
	heldOpen []heldChat

	// A workload's or a distribution's leaf (workload.go): what its
	// requests are made of, the draws of their lengths, the next
	// conversation of the workload, the words of generated text per
	// token on the runtime, and a trace's texts.
	work     *work
	rng      *rand.Rand
	cursor   int
	wordsFor workload.WordsFor
	text     *workload.TraceText

	// The timed part: when it began, and the server's counters then (nil
	// where the server has none).
	timedFrom time.Time
	before    *telemetry.Snapshot
	// servers are the server's processes, found before the warm-ups, and
	// machineFrom the machine's CPU time as the timed part began
	// (machine.go); nil where it is not measured.
	servers     *machine.Servers
	machineFrom *machine.Snapshot
	// remote is set for a server on another machine, whose memory is
	// not this machine's; mem reads the server's memory during the timed
	// part (memory.go).
	remote bool
	mem    *memSampler
	// series scrapes the server during the timed part
	// (BENCH_METRICS_INTERVAL); nil when it does not.
	series *seriesScraper
	// rampTail is the output tokens of an open loop's ramp requests
	// that ended after timedFrom (ramp.go).
	rampTail int
}

// Begin starts a run of the leaf k. An error means it must not run: its
// runtime could not be benchmarked at the start. The run's files then get
// a row that says why (class unreachable or unavailable), and skip says
// whether to skip the benchmark (an unreachable runtime with
// BENCH_SKIP_UNREACHABLE=1) rather than fail it.
//
// From Begin to End the driver's log lines are held, and End returns them
// in its Outcome's Notes (see Driver.logf); a Begin that fails says them
// at once.
func (d *Driver) Begin(ctx context.Context, k bench.Key) (l *Leaf, skip bool, err error) {
	d.hold()
	l, skip, err = d.begin(ctx, k)
	if err != nil {
		for _, note := range d.release() {
			d.logf("%s", note)
		}
	}
	return l, skip, err
}

func (d *Driver) begin(ctx context.Context, k bench.Key) (l *Leaf, skip bool, err error) {
	rt := d.runtime(k.Runtime)
	if why := d.unavailable[k.Runtime]; why != nil {
		class := ClassUnavailable
		if unreachable(why) {
			class = ClassUnreachable
		}
		d.Run.AddNotRun(k, class, why)
		if err := d.save(); err != nil {
			return nil, false, fmt.Errorf("%w; and %w", why, err)
		}
		switch {
		case class == ClassUnavailable:
			return nil, false, why
		case d.Settings.SkipUnreachable:
			return nil, true, fmt.Errorf("skipped ("+envSkipUnreachable+"=1): %w", why)
		}
		return nil, false, fmt.Errorf("%w (set "+envSkipUnreachable+"=1 to skip runtimes that do not answer)", why)
	}
	d.cooldown(ctx)
	d.leafRuns++
	if d.repetitions == nil {
		d.repetitions = map[bench.Key]int{}
	}
	d.repetitions[k]++
	name := k.Levels()
	if d.opts.Count > 1 {
		name += fmt.Sprintf(" (run %d of %d)", d.repetitions[k], d.opts.Count)
	}
	l, err = d.newLeaf(ctx, k, rt, d.repetitions[k], d.fixedRounds(), name)
	if err != nil {
		d.Run.AddNotRun(k, ClassSizing, err)
		return nil, false, errors.Join(err, d.save())
	}
	return l, false, nil
}

// newLeaf is leaf run number count of k (0 for a control) on rt, named
// name in progress lines; an open-loop one plans arrivals arrivals (0
// when -benchtime decides).
func (d *Driver) newLeaf(ctx context.Context, k bench.Key, rt *runtimes.Runtime, count, arrivals int, name string) (*Leaf, error) {
	p := d.prompt(k.Prompt)
	kw := d.work[k.Prompt]
	if kw == nil {
		text, err := d.inputText(ctx, rt, p)
		if err != nil {
			return nil, err
		}
		p.Text = text
	}
	system, err := d.sharedPrefix(ctx, rt)
	if err != nil {
		return nil, err
	}
	l := &Leaf{
		d: d, ctx: ctx, key: k, rt: rt, n: d.leafRuns, count: count,
		req:      d.request(p),
		progress: leafProgress{p: d.progress, name: name},
		input:    p.InputTokens,
	}
	l.req.System = system
	if kw != nil {
		l.work, l.input = kw, 0
	}
	if err := l.prepareWork(ctx); err != nil {
		return nil, err
	}
	if k.Rate > 0 {
		st := d.Settings
		// A control draws the arrivals of the first run.
		l.open = newOpenLoop(k.Rate, st.Burstiness, st.MaxInflight, arrivals, fmt.Sprintf("%s #%d", k.Levels(), max(count, 1)))
		if kw != nil && kw.trace() {
			l.open.at = kw.traceAt
		}
		l.open.done = l.recordArrival
	}
	return l, nil
}

// WarmUp unloads the model of the other sides of the runtime's product
// (sides.go), returns the server to a known state (BENCH_FRESH=leaf), runs the
// BENCH_WARMUPS rounds, which count nowhere (an open-loop leaf's are
// rounds of one request), sends the canary request (BENCH_CANARY), runs
// the ramp (BENCH_RAMP, ramp.go), and then starts the timed part: after
// the first leaf of each runtime it records what the server says of the
// model it has loaded (see runtimes.Runtime.Loaded), and it reads the
// server's counters.
func (l *Leaf) WarmUp() {
	l.d.unloadSides(l.ctx, l.rt)
	l.findServers()
	l.load.unloaded = l.d.fresh(l.ctx, l.rt)
	n := l.d.Settings.Warmups
	for i := range n {
		l.warmups++
		r := l.send(true, l.warmups)
		for _, res := range r.Results {
			if res.Err == nil && stats.Loaded(res) {
				l.warmupLoads++
			}
		}
		l.load.warmUpRound(l.warmups, r.Results)
		l.progress.warmUp(i+1, n, r)
	}
	if l.d.Settings.Canary == config.CanaryOn && !l.control {
		l.sendCanary()
	}
	l.d.describeLoaded(l.ctx, l.rt)
	l.ramp()
	l.before = l.d.scrape(l.ctx, l.rt)
	l.machineFrom = l.takeMachine()
	l.timedFrom = time.Now()
	l.startMemory()
	l.startSeries()
}

// sendCanary sends the leaf run's canary request: the prompt without
// marker (with the shared prefix, if any), at temperature 0, for
// BENCH_MAX_TOKENS tokens, timed by nothing. Its reply goes in the row, so
// that a server that answers differently, after an upgrade say, is seen;
// its record is marked "canary" and keeps the text.
func (l *Leaf) sendCanary() {
	req := l.req
	req.Temperature, req.KeepText = 0, true
	req.Conversation = l.d.nextConversation()
	res := l.rt.Do(l.ctx, req)
	res.Conversation, res.Turn = req.Conversation, 1
	recs := records.OfRound(l.key, l.count, 0, false, l.d.Run.CreatedAt, []runtimes.Result{res}, records.Keep{Text: true})
	recs[0].Canary = true
	l.appendRecords(recs)
	if res.Err != nil {
		l.canaryNote = fmt.Sprintf("the canary request failed, so the row has no canary from this run: %v", res.Err)
		return
	}
	text := res.Text
	if res.ToolCalls > 0 {
		// A reply that called tools is its calls: the functions called,
		// in order, are the answer a changed server would change.
		if text != "" {
			text += "\n"
		}
		text += "[tool calls: " + strings.Join(res.ToolNames, ", ") + "]"
	}
	l.canary = canary.New(text, res.OutputTokens)
	if res.Embedding != nil {
		// An embedding has no text: its vector is its answer.
		l.canary = canary.OfEmbedding(res.Embedding)
	}
	if res.Text == "" && res.OutputTokens > 0 && res.ToolCalls == 0 {
		l.canaryNote = fmt.Sprintf("the canary's answer is empty: its %d output tokens were all reasoning (or sent no text), so only their number can show a changed reply; a larger "+envMaxTokens+" leaves room for the answer", res.OutputTokens)
	}
	if l.d.canaries == nil {
		l.d.canaries = map[bench.Key]*canary.Reply{}
	}
	first, ok := l.d.canaries[l.key]
	if !ok {
		l.d.canaries[l.key] = l.canary
		return
	}
	if changed, _ := canary.Change(first, l.canary); changed && l.canaryNote == "" {
		l.canaryNote = fmt.Sprintf("the canary reply differs from this leaf's first run's (%d tokens, was %d): the server does not answer the same at temperature 0", l.canary.OutputTokens, first.OutputTokens)
		if first.Embedding != nil {
			l.canaryNote = fmt.Sprintf("the canary embedding differs from this leaf's first run's (cosine %.4f): the server does not embed the same text the same", first.Embedding.Cosine(l.canary.Embedding))
		}
	}
}

// Next runs one b.Loop iteration: a timed round of a closed-loop leaf, or
// the next arrival of an open-loop one.
func (l *Leaf) Next() {
	if l.open != nil && l.varies() {
		l.nextVaried()
		return
	}
	if l.open != nil {
		i := l.open.sent()
		req := l.coldRequest(l.req, false, 1, i)
		l.open.arrive(func(r runtimes.Request) []runtimes.Result { return l.rt.Converse(l.ctx, r, l.d.follow) }, req)
		return
	}
	r := l.send(false, len(l.rounds)+1)
	l.progress.round(r)
	l.rounds = append(l.rounds, r.Compact(&l.gaps))
}

// send runs one round: warm-up or timed round number i, a conversation
// (BENCH_TURNS) for each request of the load.
func (l *Leaf) send(warmup bool, i int) stats.Round {
	if l.varies() {
		return l.sendVaried(warmup, i)
	}
	n := l.key.Concurrency
	if l.open != nil {
		n = 1
	}
	reqs := runtimes.Copies(l.req, n)
	for j := range reqs {
		reqs[j] = l.coldRequest(reqs[j], warmup, i, j)
	}
	wall, chats := l.rt.Chats(l.ctx, reqs, l.d.follow)
	rd := l.shape()
	rd.Wall = wall
	for _, chat := range chats {
		rd.Results = append(rd.Results, chat...)
		rd.NotSent += l.d.Settings.Turns - len(chat)
	}
	l.record(warmup, i, rd.Results, nil)
	return rd
}

// shape is a round of the leaf with no results yet: how its requests were
// sent (with tools, BENCH_TOOLS, every request or none).
func (l *Leaf) shape() stats.Round {
	return stats.Round{MaxTokens: l.req.MaxTokens, Cold: l.cold(), InputTokens: l.input, Context: l.context(),
		SharedPrefix: l.d.Settings.SharedPrefix, Tools: len(l.req.Tools) > 0}
}

// endOpen ends an open-loop leaf run once its last conversation has
// ended (each recorded as it ended, or held now, in the round's order).
func (l *Leaf) endOpen() {
	r := l.open.end(l.d.Settings.Turns, l.shape())
	ramp := l.open.rampResults()
	l.recordRamp(ramp)
	l.rampTail = rampTail(ramp, l.timedFrom)
	if l.heldOpen != nil {
		slices.SortFunc(l.heldOpen, func(a, b heldChat) int { return cmp.Compare(a.at, b.at) })
		var recs []records.Record
		for _, c := range l.heldOpen {
			recs = append(recs, c.recs...)
		}
		l.heldOpen = nil
		l.hold(recs)
	}
	l.rounds = append(l.rounds, r)
}

// heldChat are the records of a conversation of an open-loop leaf, whose
// replies are from at on in its round.
type heldChat struct {
	at   int
	recs []records.Record
}

// recordArrival records the requests of conversation chat, whose replies
// are from at on in the open-loop leaf's round, that asked for asked
// (nil: the round's lengths), as it ends: written at once, or, when they
// are held for their share of the leaf's energy, kept for endOpen.
func (l *Leaf) recordArrival(at int, chat []runtimes.Result, asked *stats.Asked) {
	l.recMu.Lock()
	defer l.recMu.Unlock()
	for _, res := range chat {
		l.d.versionFromReply(l.rt, res)
	}
	recs := records.OfRound(l.key, l.count, 1, false, l.d.Run.CreatedAt, chat, records.Keep{Chunks: l.d.Settings.RecordChunks, Text: l.d.Settings.RecordText})
	if asked != nil {
		for j := range recs {
			recs[j].InputTokens, recs[j].MaxTokens = asked.InputTokens, asked.MaxTokens
		}
	}
	if l.holds() {
		l.heldOpen = append(l.heldOpen, heldChat{at: at, recs: recs})
		return
	}
	l.appendRecords(recs)
}

func (l *Leaf) cold() bool { return l.d.cold() }

func (d *Driver) cold() bool { return d.Settings.Cache == config.CacheCold }

// context is the context an Ollama server cuts the leaf's prompts to:
// the num_ctx sent, 0 for other servers, which refuse a prompt too long.
func (l *Leaf) context() int {
	if l.rt.Protocol().NumCtx {
		return l.req.NumCtx
	}
	return 0
}

// coldRequest is req as request j of round i sends it: the first of a
// new conversation, with, in cold mode, its marker line before its prompt
// (later turns carry it in their history, so a conversation can reuse its
// own turns but never another's).
func (l *Leaf) coldRequest(req runtimes.Request, warmup bool, i, j int) runtimes.Request {
	req.Conversation = l.d.nextConversation()
	if l.cold() {
		m := prompts.Marker{Run: l.d.Run.ID, Salt: l.d.Run.CreatedAt.UnixNano(), Leaf: l.n, Warmup: warmup, Round: i, Request: j}
		req.Prompt = prompts.Cold(req.Prompt, m)
	}
	return req
}

// record appends a round's requests to the run's request records, with
// what each asked for where they differ (asked, parallel to results).
func (l *Leaf) record(warmup bool, i int, results []runtimes.Result, asked []stats.Asked) {
	for _, res := range results {
		l.d.versionFromReply(l.rt, res)
	}
	recs := records.OfRound(l.key, l.count, i, warmup, l.d.Run.CreatedAt, results, records.Keep{Chunks: l.d.Settings.RecordChunks, Text: l.d.Settings.RecordText})
	records.SetAsked(recs, asked)
	if !warmup && l.hold(recs) {
		return // written at the leaf's end, with their energy
	}
	l.appendRecords(recs)
}

// appendRecords appends records of the leaf run to the run's request
// records, marked as a control's if it is one.
func (l *Leaf) appendRecords(recs []records.Record) {
	if im := l.d.Settings.Images; im.Set() {
		for j := range recs {
			recs[j].Images, recs[j].ImageSize = im.N, im.Size()
		}
	}
	if l.control {
		for j := range recs {
			recs[j].Control, recs[j].Count = true, 0
		}
	}
	if err := l.d.files.appendRecords(recs); err != nil && l.recordErr == nil {
		l.recordErr = fmt.Errorf("writing request records to "+envOutputDir+"=%q: %w", l.d.Settings.OutputDir, err)
	}
}

// Outcome is what a finished leaf run has to report.
type Outcome struct {
	// Metrics are the leaf run's figures, and Power the machine's over
	// its timed part (nil without macmon), for testing.B.ReportMetric.
	Metrics stats.Metrics
	Power   *telemetry.Figures
	// Notes are lines for the benchmark's log: what a reader of its
	// figures must know (failed requests, short outputs, …).
	Notes []string
	// Failed is set when no request succeeded: the benchmark fails.
	Failed error
	// SaveErr is set when the run's files could not be written.
	SaveErr error
	// Quality are the quality figures of the leaf's runtime and prompt
	// (BENCH_QUALITY), reported with the others.
	Quality summary.Quality
	// Machine is the machine's state over the leaf run's timed part,
	// whose server memory is reported with the others (nil: not measured).
	Machine *summary.LeafRun
}

// Report reports the leaf's figures through b (a *testing.B), as its
// result line in the .txt has them.
func (o Outcome) Report(b interface{ ReportMetric(float64, string) }) {
	stats.Report(b, o.Metrics, o.Power)
	o.Quality.Report(b)
	o.Machine.Report(b)
}

// End ends the leaf run (an open-loop one once its last request has
// finished), measures what the machine and the server say of its timed
// part, records it, and rewrites the run's files so that a run
// interrupted later keeps it.
func (l *Leaf) End() Outcome {
	d := l.d
	if l.open != nil {
		l.endOpen()
	}
	to := time.Now()
	memPeak := l.stopMemory()
	machineTo := l.takeMachine()
	tel := summary.Telemetry{WarmupLoads: l.warmupLoads, Canary: l.canary}
	tel.LoadS, tel.LoadFrom = l.load.loadTime(l.rounds)
	notes := l.endSeries()
	if l.canaryNote != "" {
		notes = append(notes, l.canaryNote)
	}
	if l.before != nil {
		if after := d.scrape(l.ctx, l.rt); after != nil {
			delta := telemetry.Delta(*l.before, *after)
			tel.Server = &delta
		}
	}
	if d.power != nil && !l.timedFrom.IsZero() {
		tel.Power, tel.Energy, notes = l.measurePower(to, notes)
	}
	tel.Machine = l.machineRun(machineTo, tel.Power)
	if tel.Machine != nil {
		l.memoryRun(tel.Machine, machineTo, memPeak)
	}
	m := d.Run.Add(l.key, l.rounds, tel)
	l.powerAdded(tel.Energy)
	d.noteFirst(l)
	d.noteCached(l, m, tel.Server)
	held := d.release()
	o := Outcome{Metrics: m, Power: tel.Power, Machine: tel.Machine, SaveErr: errors.Join(l.recordErr, d.save())}
	o.Quality, _ = d.Run.QualityOf(l.key.Runtime, l.key.Prompt)
	if m.Requests > 0 && m.Successes == 0 {
		o.Failed = fmt.Errorf("all %d requests failed (%s); the first: %v", m.Requests, m.ErrorCounts(), m.FirstError)
	}
	o.Notes = append(append(held, m.Notes(l.key.Model, config.NoteSettings)...), notes...)
	if tel.Server != nil {
		sf := telemetry.DeriveServerFigures(*tel.Server, m.Requests)
		sf.GeneratedTokensSlack += float64(l.rampTail) // BENCH_RAMP's tail, counted by the server
		if err := telemetry.CheckGeneratedTokens(sf, m.OutputTokens); err != nil {
			o.Notes = append(o.Notes, err.Error()+": another client was using the server, or a count is wrong")
		}
		if len(tel.Server.Reset) > 0 {
			o.Notes = append(o.Notes, fmt.Sprintf("the server's counters went down during the leaf (%v): it restarted; its figures are left out", tel.Server.Reset))
		}
	}
	return o
}

// save writes the run's files as they stand, unless no request has been
// sent yet.
func (d *Driver) save() error {
	if d.Run.Requests() == 0 {
		return nil
	}
	first := d.files.saved == 0
	if err := d.files.write(d.Run); err != nil {
		return fmt.Errorf("writing results to "+envOutputDir+"=%q: %w", d.Settings.OutputDir, err)
	}
	if first {
		d.logf("results go to %s and %s, rewritten after each benchmark, and every request to %s", d.files.json, d.files.txt, d.files.records)
	}
	return nil
}

// request is the request every benchmark of prompt p sends (with a marker
// line before the prompt in cold mode).
func (d *Driver) request(p prompts.Prompt) runtimes.Request {
	st := d.Settings
	return runtimes.Request{
		Prompt: p.Text, MaxTokens: st.MaxTokens, Seed: st.Seed, Temperature: st.Temperature,
		IgnoreEOS: st.IgnoreEOS, KeepAlive: st.KeepAlive, NumCtx: d.numCtx,
		KeepText: st.RecordText, Tools: d.tools, EmbedBatch: st.EmbedBatch, HTTPTrace: st.HTTPTrace,
		Images: d.images,
	}
}

func (d *Driver) runtime(name string) *runtimes.Runtime {
	for _, rt := range d.Runtimes {
		if rt.Name == name {
			return rt
		}
	}
	panic("driver: no runtime " + name)
}

func (d *Driver) prompt(name string) prompts.Prompt {
	for _, p := range d.Prompts {
		if p.Name == name {
			return p
		}
	}
	panic("driver: no prompt " + name)
}
