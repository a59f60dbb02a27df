package driver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// addNamed adds the runtimes of BENCH_RUNTIMES. A model its server does
// not serve (runtimes.ErrNotServed), or a server that answers as another
// than the one named where that fails every request (checkIdentity),
// stops the run before any request.
// Another runtime that cannot be described stays, marked unreachable (it does not answer) or unavailable
// (it answers, but with an error or no model): its benchmarks fail with the
// reason, or are skipped if unreachable and BENCH_SKIP_UNREACHABLE=1, and
// the others still run.
func (d *Driver) addNamed(ctx context.Context, specs []config.Runtime) error {
	if err := d.checkSameServer(specs); err != nil {
		return err
	}
	for _, spec := range specs {
		rt, err := d.open(spec)
		if err != nil {
			return err
		}
		if err := d.checkIdentity(ctx, rt, spec); err != nil {
			return err
		}
		info, err := rt.Describe(ctx)
		if errors.Is(err, runtimes.ErrNotServed) {
			return explain(err, spec) // every request would fail
		}
		if err != nil {
			err = explain(err, spec)
			d.unavailable[rt.Name] = err
			switch {
			case !unreachable(err):
				d.logf("%v", err)
			case d.Settings.SkipUnreachable:
				d.logf("%v; skipping its benchmarks (BENCH_SKIP_UNREACHABLE=1)", err)
			default:
				d.logf("%v; its benchmarks will fail (BENCH_SKIP_UNREACHABLE=1 skips them)", err)
			}
		}
		d.addRuntime(rt, info)
		d.stateServerEnv(spec)
	}
	return nil
}

// stateServerEnv keeps, in the last runtime added, the server settings
// its NAME_SERVER_ENV states, and says them.
func (d *Driver) stateServerEnv(spec config.Runtime) {
	if len(spec.ServerEnv) == 0 {
		return
	}
	d.Run.Runtimes[len(d.Run.Runtimes)-1].ServerEnv = spec.ServerEnv
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(spec.ServerEnv)) {
		kv = append(kv, k+"="+spec.ServerEnv[k])
	}
	d.logf("%s: its server's settings, as %sSERVER_ENV states them: %s", spec.Name, config.EnvPrefix(spec.Name), strings.Join(kv, " "))
}

// checkSameServer refuses, before any request, two runtimes of
// BENCH_RUNTIMES whose URLs reach one server (runtimes.ServerKey: the
// same scheme, host, port and path, localhost and 127.0.0.1 alike) through
// the same API (their kind): the run would benchmark that server twice
// and compare it with itself (mlx_lm.server and llama-server share port
// 8080). Two that reach it through its two APIs (Ollama's own and its
// /v1), or that ask it for two different models (both NAME_MODEL set),
// are allowed, and said once. With BENCH_API other than the chat, the
// API is its endpoint for each kind: Ollama's two kinds reach one
// /v1/completions, /v1/responses or /v1/messages, but two embeddings
// endpoints (/api/embed and /v1/embeddings).
func (d *Driver) checkSameServer(specs []config.Runtime) error {
	var errs []error
	for i, a := range specs {
		key := runtimes.ServerKey(a.URL)
		if a.URL == "" || key == "" {
			continue // the simulator, or a URL config.Load refused
		}
		for _, b := range specs[i+1:] {
			if runtimes.ServerKey(b.URL) != key {
				continue
			}
			pair := fmt.Sprintf("%s (%s) and %s (%s)", a.Name, runtimes.RedactURL(a.URL), b.Name, runtimes.RedactURL(b.URL))
			via := string(a.Kind)
			if api := d.api(); api != runtimes.APIChat {
				via = api.Path(a.Kind)
			}
			switch {
			case d.api().Path(a.Kind) != d.api().Path(b.Kind):
				d.logf("%s are one server, reached through two APIs (%s and %s)", pair, a.Kind, b.Kind)
			case a.Model != "" && b.Model != "" && a.Model != b.Model:
				d.logf("%s are one server, asked for two models (%s and %s)", pair, a.Model, b.Model)
			default:
				errs = append(errs, fmt.Errorf("BENCH_RUNTIMES=%s: %s are one server, reached through the same API (%s): the run would benchmark it twice and compare it with itself; point %sURL or %sURL at another server, or list one of them",
					strings.Join([]string(d.Settings.Runtimes), ","), pair, via, config.EnvPrefix(a.Name), config.EnvPrefix(b.Name)))
			}
		}
	}
	return errors.Join(errs...)
}

// explain adds to a runtime's error the setting that would mend it.
func explain(err error, spec config.Runtime) error {
	if errors.Is(err, runtimes.ErrNoModel) {
		return fmt.Errorf("%w; set %sMODEL", err, config.EnvPrefix(spec.Name))
	}
	if errors.Is(err, runtimes.ErrNotServed) {
		return fmt.Errorf("%sMODEL=%q: %w; set it to a model the server serves, or unset it for the first it lists", config.EnvPrefix(spec.Name), spec.Model, err)
	}
	return err
}

// unreachable tells a runtime that did not answer (no connection, or no
// reply in time) from one that answered with something wrong.
func unreachable(err error) bool {
	switch runtimes.ErrorClass(err) {
	case runtimes.ClassConnect, runtimes.ClassTimeout:
		return true
	}
	return false
}

// addProbed adds, with BENCH_RUNTIMES unset, the known runtimes that
// answer on their ports within runtimes.ProbeTimeout and can be
// benchmarked, each named by its answers (see runtimes.Discover), or else
// the simulator.
func (d *Driver) addProbed(ctx context.Context, known []config.Runtime, simSpec config.Runtime) error {
	var tried []string
	for _, spec := range known {
		tried = append(tried, spec.Name+" "+runtimes.RedactURL(spec.URL))
	}
	var unusable []string // answered, but cannot be benchmarked
	for _, f := range d.discover(ctx, known) {
		spec := f.spec
		rt, err := d.open(spec)
		if err != nil {
			return err
		}
		info, err := rt.Describe(ctx)
		if errors.Is(err, runtimes.ErrNotServed) {
			return explain(err, spec) // its NAME_MODEL was set for it
		}
		if err != nil {
			d.logf("BENCH_RUNTIMES is unset; %s answers at %s but cannot be benchmarked, skipping it: %v", spec.Name, rt.BaseURL, explain(err, spec))
			unusable = append(unusable, spec.Name)
			continue
		}
		d.logf("BENCH_RUNTIMES is unset; found %s at %s%s", spec.Name, rt.BaseURL, f.why)
		d.addRuntime(rt, info)
		d.stateServerEnv(spec)
	}
	if len(d.Runtimes) > 0 {
		return nil
	}
	nothing := fmt.Sprintf("no runtime answered on the known local ports (%s)", strings.Join(tried, ", "))
	if len(unusable) > 0 {
		nothing = fmt.Sprintf("no runtime on the known local ports (%s) can be benchmarked: %s answered but cannot (see above)", strings.Join(tried, ", "), strings.Join(unusable, ", "))
	}
	if d.Settings.Fallback == config.FallbackNone {
		return fmt.Errorf("BENCH_RUNTIMES is unset and %s; BENCH_FALLBACK=none: not benchmarking the simulator instead", nothing)
	}
	d.logf("BENCH_RUNTIMES is unset and %s", nothing)
	d.logf("benchmarking the built-in simulator \"sim\" instead (BENCH_FALLBACK=none fails instead); set BENCH_RUNTIMES to choose runtimes")
	rt, err := d.open(simSpec)
	if err != nil {
		return err
	}
	info, err := rt.Describe(ctx)
	if err != nil {
		return fmt.Errorf("the simulator: %w", err)
	}
	d.addRuntime(rt, info)
	return nil
}

// found is a known runtime discovery found: its settings, with the URL
// where it answered, and why it has that name when its answers chose it.
type found struct {
	spec config.Runtime
	why  string
}

// discover asks the known runtimes' ports (runtimes.Discover, each within
// runtimes.ProbeTimeout) and returns those found, in the order of known.
func (d *Driver) discover(ctx context.Context, known []config.Runtime) []found {
	cands := make([]runtimes.Candidate, len(known))
	for i, spec := range known {
		cands[i] = runtimes.Candidate{Name: spec.Name, Kind: spec.Kind, URL: spec.URL, APIKey: spec.APIKey}
	}
	var out []found
	for _, f := range runtimes.Discover(ctx, d.client, cands, runtimes.ProbeTimeout) {
		i := slices.IndexFunc(known, func(s config.Runtime) bool { return s.Name == f.Name })
		spec := known[i]
		spec.URL = f.URL
		out = append(out, found{spec: spec, why: f.Why})
	}
	return out
}

// open returns the runtime of spec, starting the simulator for "sim" (a
// side sim@TAG starts one of its own, with its own settings).
func (d *Driver) open(spec config.Runtime) (*runtimes.Runtime, error) {
	url := spec.URL
	if config.Product(spec.Name) == config.Sim {
		srv, err := d.startSim(spec)
		if err != nil {
			return nil, err
		}
		url = srv.URL
	}
	return runtimes.New(runtimes.Config{
		Name: spec.Name, Kind: spec.Kind, URL: url, Model: spec.Model, APIKey: spec.APIKey,
		Timeout:     time.Duration(d.Settings.Timeout),
		IdleTimeout: time.Duration(d.Settings.IdleTimeout),
		Client:      d.client,
		API:         d.api(), // BENCH_API: api.go
	})
}

// startSim starts, once, the simulator of spec: d.sim for "sim", with the
// SIM_ settings, or a side's own for sim@TAG, with spec.Sim.
func (d *Driver) startSim(spec config.Runtime) (*sim.Server, error) {
	cfg := d.simCfg
	if spec.Sim != nil {
		cfg = *spec.Sim
	}
	if p, ok := runtimes.ProtocolOf(spec.Kind); ok && p.Server == runtimes.ServerOllama && !cfg.ServesOllama() {
		prefix := config.EnvPrefix(spec.Name)
		return nil, fmt.Errorf("%sKIND=ollama: %sFLAVOR=%s plays a server without Ollama's API; use %[2]sFLAVOR vllm, llamacpp or plain", prefix, prefix, cfg.Flavor)
	}
	srv := d.sim
	if spec.Name != config.Sim {
		srv = d.sides[spec.Name]
	}
	if srv != nil {
		return srv, nil
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting the simulator: %w", err)
	}
	if spec.Name == config.Sim {
		d.sim = srv
	} else {
		if d.sides == nil {
			d.sides = map[string]*sim.Server{}
		}
		d.sides[spec.Name] = srv
	}
	return srv, nil
}

// addRuntime adds rt to the run, with what it told of itself.
func (d *Driver) addRuntime(rt *runtimes.Runtime, info runtimes.Info) {
	d.Runtimes = append(d.Runtimes, rt)
	r := d.Run
	r.Versions[rt.Name] = d.version(rt, info.Version)
	r.ModelMetadata[rt.Name] = info.Models
	limit, source := info.ContextLimit(rt.Model)
	r.Runtimes = append(r.Runtimes, summary.RuntimeInfo{Name: rt.Name, Product: config.Product(rt.Name), Kind: string(rt.Kind), BaseURL: rt.BaseURL, Model: rt.Model,
		ContextLimit: limit, ContextSource: source})
	d.describeServed(rt, info)
	for _, u := range info.Unread { // a fact lost at start (runtimes.Info.Unread) is said
		d.logf("%s: could not read %s: what it says is unknown", rt.Name, u)
	}
	if none, source := info.TakesNoTools(); none {
		d.noTools[rt.Name] = source
	}
}

// fitNumCtx is the options.num_ctx the run sends to Ollama, 0 for none:
// BENCH_NUM_CTX; else, with in<N> prompts, room for the longest
// conversation by an upper bound (see conversationTokens; with single
// turns and no shared prefix, the longest N and BENCH_MAX_TOKENS
// exactly); else, with turns or a shared prefix, that bound when it is
// above ollamaContext, which every Ollama gives a model unasked; else
// none. Setup keeps it in d.numCtx, the same for every leaf: a change
// reloads the model.
func (d *Driver) fitNumCtx() int {
	st := d.Settings
	if st.NumCtx != nil {
		return *st.NumCtx
	}
	n, sized := 0, false
	for _, p := range d.Prompts {
		if d.sizedWork(p) {
			n = max(n, d.conversationTokens(p, true))
			sized = sized || p.InputTokens > 0
		}
	}
	if need, trace := d.workNumCtx(); need > 0 {
		n, sized = max(n, need), sized || trace
	}
	if !sized && n <= ollamaContext {
		return 0
	}
	return n
}

// ollamaContext is the smallest context Ollama loads a model with when
// sent no num_ctx: 2048 in the 0.6 line, more since.
const ollamaContext = 2048

// sizedWork reports whether p's requests have a length the run must fit
// to a context: an in<N> prompt, or any prompt with turns or a shared
// prefix.
func (d *Driver) sizedWork(p prompts.Prompt) bool {
	return p.InputTokens > 0 || d.Settings.Turns > 1 || d.Settings.SharedPrefix > 0
}

// followUpTokens bounds the tokens of one follow-up turn's user message,
// chat template included.
const followUpTokens = 24

// conversationTokens is the tokens a conversation of prompt p takes at
// its last turn: the shared prefix, the prompt (N for in<N>, both sized
// by the server's count), every earlier turn's reply and follow-up, and
// the last reply of BENCH_MAX_TOKENS. What is not sized is estimated:
// with upper, by bounds no tokenizer exceeds in practice (a token per
// byte of prompt and marker; a reply sent back as history twice the
// tokens it was generated in, as a model's text may re-tokenize longer),
// to fit a context to; otherwise as a typical tokenizer counts (a token
// per four bytes, a reply as many tokens as generated), to refuse a run
// only when it surely does not fit.
func (d *Driver) conversationTokens(p prompts.Prompt, upper bool) int {
	st := d.Settings
	prompt, reply := p.InputTokens, st.MaxTokens
	if upper {
		reply *= 2
	}
	switch {
	case prompt > 0:
	case upper:
		prompt = len(p.Text) + markerBytes
	default:
		prompt = len(p.Text) / 4
	}
	return st.SharedPrefix + prompt + (st.Turns-1)*(reply+followUpTokens) + st.MaxTokens
}

// markerBytes bounds the length of a cold marker line (prompts.Marker).
const markerBytes = 64

// checkTools stops the run, before any request, when BENCH_TOOLS is set
// and a runtime's server says its model takes no tools: Ollama answers
// every request with tools to such a model HTTP 400 "… does not support
// tools". A server that says nothing about tools is not refused.
func (d *Driver) checkTools() error {
	if len(d.tools) == 0 {
		return nil
	}
	var errs []error
	for _, info := range d.Run.Runtimes {
		source, ok := d.noTools[info.Name]
		if !ok || d.unavailable[info.Name] != nil {
			continue
		}
		errs = append(errs, fmt.Errorf(envTools+"=%q: %s (%s) serves %s, which takes no tools (%s has no \"tools\"), and Ollama refuses every request with tools to it (HTTP 400 \"… does not support tools\"); serve a model whose chat template uses .Tools (see `ollama show --template MODEL`), or unset "+envTools,
			d.Settings.Tools, info.Name, info.BaseURL, info.Model, source))
	}
	return errors.Join(errs...)
}

// checkContext stops the run, before any request, when a conversation
// (an in<N> prompt, turns, a shared prefix, and BENCH_MAX_TOKENS each
// turn) does not fit the context a runtime's server states.
func (d *Driver) checkContext() error {
	var errs []error
	st := d.Settings
	for _, info := range d.Run.Runtimes {
		if info.ContextLimit == 0 || d.unavailable[info.Name] != nil {
			continue
		}
		for _, p := range d.Prompts {
			need := d.conversationTokens(p, false)
			if !d.sizedWork(p) || need <= info.ContextLimit {
				continue
			}
			what := fmt.Sprintf("%s with "+envMaxTokens+"=%d", p.Name, st.MaxTokens)
			variable := envInputTokens
			switch {
			case st.SharedPrefix > 0:
				variable = fmt.Sprintf(envSharedPrefix+"=%d", st.SharedPrefix)
			case st.Turns > 1:
				variable = fmt.Sprintf(envTurns+"=%d", st.Turns)
			}
			if st.Turns > 1 || st.SharedPrefix > 0 {
				what = fmt.Sprintf("a conversation of %s (a shared prefix of %d tokens, %d turn(s) of "+envMaxTokens+"=%d)", p.Name, st.SharedPrefix, st.Turns, st.MaxTokens)
			}
			errs = append(errs, fmt.Errorf("%s: %s (%s) takes at most %d tokens (%s), and %s needs about %d",
				variable, info.Name, info.BaseURL, info.ContextLimit, info.ContextSource, what, need))
		}
	}
	return errors.Join(errs...)
}

// describeLoaded adds, once per runtime, what the server says of the model
// it has loaded now that the warm-ups ran (Ollama's /api/ps: size,
// size_vram, context_length) to the runtime's model_metadata.
func (d *Driver) describeLoaded(ctx context.Context, rt *runtimes.Runtime) {
	if d.loaded[rt.Name] {
		return
	}
	if d.loaded == nil {
		d.loaded = map[string]bool{}
	}
	d.loaded[rt.Name] = true
	if ps := rt.Loaded(ctx); ps != nil {
		d.Run.SetMetadata(rt.Name, "ps", ps)
	}
}

// Unavailable returns why rt cannot be benchmarked, or nil.
func (d *Driver) Unavailable(rt *runtimes.Runtime) error { return d.unavailable[rt.Name] }

func (d *Driver) arguments() summary.Arguments {
	st := d.Settings
	a := summary.ArgumentsOf(st)
	a.Concurrency, a.Benchtime = st.Concurrency.Levels, d.opts.Benchtime
	var names []string
	for _, rt := range d.Runtimes {
		names = append(names, rt.Name)
		url, model := rt.BaseURL, rt.Model
		switch {
		case rt.Protocol() == &runtimes.Ollama && a.OllamaURL == nil: // the seed summary's ollama_url
			a.OllamaURL, a.OllamaModel = &url, &model
		case strings.HasPrefix(rt.Name, runtimes.ServerVLLM) && a.VLLMURL == nil:
			a.VLLMURL, a.VLLMModel = &url, &model
		}
	}
	a.Runtime = strings.Join(names, ",")
	if d.Run.Host.IdlePowerW != nil { // a baseline was taken
		a.IdlePowerS = stats.Number(st.IdlePowerS)
	}
	if st.SLO.Set() {
		slo := st.SLO.String()
		a.SLO = &slo
	}
	if st.Concurrency.Sweep > 0 {
		a.Sweep = &summary.Sweep{Max: st.Concurrency.Sweep, Stops: []summary.SweepStop{}}
	}
	for _, p := range d.Prompts {
		a.Prompts = append(a.Prompts, p.Name)
	}
	if n := d.fixedRounds(); n > 0 {
		a.Rounds = &n
	}
	if d.numCtx > 0 && slices.ContainsFunc(d.Runtimes, func(rt *runtimes.Runtime) bool { return rt.Protocol().NumCtx }) {
		n := d.numCtx
		a.NumCtx = &n
	}
	if d.opts.Count > 0 {
		a.Count = &d.opts.Count
	}
	busyMax := BusyMax
	a.BusyMax = &busyMax
	if st.Workload != "" {
		path := st.Workload
		a.Workload = &path
	}
	for _, k := range d.work {
		if k.trace() {
			a.TraceSpeed = stats.Number(st.TraceSpeed)
		}
	}
	if st.Tools != "" {
		path, sum := st.Tools, d.toolsSum
		a.Tools, a.ToolsSHA256 = &path, &sum
	}
	if api := d.api(); api != runtimes.APIChat {
		a.API = string(api)
		if api == runtimes.APIEmbeddings {
			a.EmbedBatch = st.EmbedBatch
		}
	}
	a.Images = st.Images.String()
	return a
}

// fixedRounds is N of -benchtime=Nx, or 0.
func (d *Driver) fixedRounds() int {
	if n, ok := strings.CutSuffix(d.opts.Benchtime, "x"); ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			return v
		}
	}
	return 0
}
