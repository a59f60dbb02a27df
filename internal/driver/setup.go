package driver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// ProbeTimeout bounds the check of each known local port when
// BENCH_RUNTIMES is unset.
const ProbeTimeout = 300 * time.Millisecond

// addNamed adds the runtimes of BENCH_RUNTIMES. A model its server does
// not serve (runtimes.ErrNotServed) stops the run before any request.
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
	}
	return nil
}

// checkSameServer refuses, before any request, two runtimes of
// BENCH_RUNTIMES whose URLs reach one server (runtimes.ServerKey: the
// same scheme, host, port and path, localhost and 127.0.0.1 alike) through
// the same API (their kind): the run would benchmark that server twice
// and compare it with itself (mlx_lm.server and llama-server share port
// 8080). Two that reach it through its two APIs (Ollama's own and its
// /v1), or that ask it for two different models (both NAME_MODEL set),
// are allowed, and said once.
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
			switch {
			case a.Kind != b.Kind:
				d.logf("%s are one server, reached through two APIs (%s and %s)", pair, a.Kind, b.Kind)
			case a.Model != "" && b.Model != "" && a.Model != b.Model:
				d.logf("%s are one server, asked for two models (%s and %s)", pair, a.Model, b.Model)
			default:
				errs = append(errs, fmt.Errorf("BENCH_RUNTIMES=%s: %s are one server, reached through the same API (%s): the run would benchmark it twice and compare it with itself; point %sURL or %sURL at another server, or list one of them",
					strings.Join([]string(d.Settings.Runtimes), ","), pair, a.Kind, config.EnvPrefix(a.Name), config.EnvPrefix(b.Name)))
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
// answer on their ports within ProbeTimeout and can be benchmarked, each
// named by its answers (see probe), or else the simulator.
func (d *Driver) addProbed(ctx context.Context, known []config.Runtime, simSpec config.Runtime) error {
	var tried []string
	for _, spec := range known {
		tried = append(tried, spec.Name+" "+runtimes.RedactURL(spec.URL))
	}
	var unusable []string // answered, but cannot be benchmarked
	for _, f := range d.probe(ctx, known) {
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

// found is a runtime probing found: its settings, the URL where it
// answered, and why it has that name when its answers chose it ("" when
// it answered on its own port as itself).
type found struct {
	spec config.Runtime
	why  string
}

// probe asks each known port once, all at once, within ProbeTimeout, and
// names what answers by its answers, as two names may share a port
// (llama-server's and mlx_lm.server's: see runtimes.KnownServers) and a
// server may run on another's: a port is named after
//
//  1. the runtime whose port it is, if the server answers that runtime's
//     own endpoint (runtimes.Server.Endpoint, asked by runtimes.Probe);
//  2. else another known runtime whose own endpoint it answers, if that
//     runtime's port did not answer (nor another port take the name);
//  3. else the first runtime whose port it is that has no such endpoint
//     (mlx_lm.server, vLLM, SGLang answer the OpenAI endpoints only), or
//     failing that the first whose port it is.
//
// The result is in the order of known, by port.
func (d *Driver) probe(ctx context.Context, known []config.Runtime) []found {
	ports := portsOf(known)
	d.probePorts(ctx, ports)
	names, whys := namePorts(ports)
	return foundOf(known, ports, names, whys)
}

// port is one URL of the known runtimes, and what its probe found.
type port struct {
	url   string           // as the first spec on it gives it
	specs []config.Runtime // the known runtimes whose port it is
	p     runtimes.Probe
}

// portsOf groups known by port (the server its URL reaches,
// runtimes.ServerKey: localhost and 127.0.0.1 alike), in the order of
// known; a URL that does not parse (config.Load checked them) has none.
func portsOf(known []config.Runtime) []*port {
	var ports []*port
	byURL := map[string]*port{}
	for _, spec := range known {
		key := runtimes.ServerKey(spec.URL)
		if key == "" {
			continue // config.Load checked it
		}
		if p := byURL[key]; p != nil {
			p.specs = append(p.specs, spec)
			continue
		}
		p := &port{url: spec.URL, specs: []config.Runtime{spec}}
		byURL[key] = p
		ports = append(ports, p)
	}
	return ports
}

// probePorts probes every port at once, each within ProbeTimeout, as its
// first runtime.
func (d *Driver) probePorts(ctx context.Context, ports []*port) {
	var wg sync.WaitGroup
	for _, p := range ports {
		wg.Go(func() {
			spec := p.specs[0]
			rt, err := runtimes.New(runtimes.Config{Name: spec.Name, Kind: spec.Kind, URL: spec.URL, APIKey: spec.APIKey, Client: d.client})
			if err != nil {
				return
			}
			pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
			defer cancel()
			p.p = rt.Probe(pctx)
		})
	}
	wg.Wait()
}

// namePorts names each port that answered by its probe's answers, by the
// rules of probe, and says why where the answers chose among names ("":
// a silent port, or one with a single name that answered as itself).
func namePorts(ports []*port) (names, whys []string) {
	// answeredOn: the names whose own port answered; only a name whose
	// port is silent may go to a server on another port.
	answeredOn := map[string]bool{}
	for _, p := range ports {
		for _, spec := range p.specs {
			answeredOn[spec.Name] = p.p.Answered
		}
	}
	identifiable := func(name string) bool { return slices.Contains(runtimes.IdentifiedServers, name) }
	names = make([]string, len(ports))
	whys = make([]string, len(ports))
	taken := map[string]bool{}
	for i, p := range ports {
		if !p.p.Answered {
			continue
		}
		for _, spec := range p.specs { // 1. its own, by its endpoint
			if names[i] == "" && p.p.Is(spec.Name) {
				names[i] = spec.Name
				if len(p.specs) > 1 {
					whys[i] = fmt.Sprintf(" (it answers %s)", serverDesc(spec.Name))
				}
			}
		}
		for _, s := range p.p.Says { // 2. another's
			if _, known := answeredOn[s]; names[i] == "" && known && !answeredOn[s] && !taken[s] {
				names[i] = s
				whys[i] = fmt.Sprintf(" (%s's port; it answers %s)", p.specs[0].Name, serverDesc(s))
			}
		}
		for _, spec := range p.specs { // 3. its own without an endpoint of its own
			if names[i] == "" && !identifiable(spec.Name) {
				names[i] = spec.Name
				if len(p.specs) > 1 {
					whys[i] = fmt.Sprintf(" (it does not answer %s)", ownEndpoints(p.specs))
				}
			}
		}
		if names[i] == "" {
			names[i] = p.specs[0].Name
		}
		taken[names[i]] = true
	}
	return names, whys
}

// foundOf is what probing found: the runtime of each name given to a
// port, at that port's URL, in the order of known.
func foundOf(known []config.Runtime, ports []*port, names, whys []string) []found {
	var out []found
	for _, spec := range known { // in the order of known
		for i, p := range ports {
			if names[i] != spec.Name {
				continue
			}
			spec.URL = p.url
			out = append(out, found{spec: spec, why: whys[i]})
		}
	}
	return out
}

// serverDesc is the endpoint that names a known runtime's server, for a
// message: "llama-server's GET /props" (runtimes.Server.Proof).
func serverDesc(name string) string {
	if s, ok := runtimes.KnownServer(name); ok && s.Endpoint != "" {
		return s.Proof()
	}
	return name
}

// ownEndpoints lists the endpoints that would have named the runtimes of
// specs, or of none: "llama-server's GET /props".
func ownEndpoints(specs []config.Runtime) string {
	var list []string
	for _, spec := range specs {
		if slices.Contains(runtimes.IdentifiedServers, spec.Name) {
			list = append(list, serverDesc(spec.Name))
		}
	}
	return strings.Join(list, " or ")
}

// open returns the runtime of spec, starting the simulator for "sim".
func (d *Driver) open(spec config.Runtime) (*runtimes.Runtime, error) {
	url := spec.URL
	if spec.Name == config.Sim {
		if spec.Kind == runtimes.KindOllama && !d.simCfg.ServesOllama() {
			return nil, fmt.Errorf("SIM_KIND=ollama: SIM_FLAVOR=%s plays a server without Ollama's API; use SIM_FLAVOR vllm, llamacpp or plain", d.simCfg.Flavor)
		}
		if d.sim == nil {
			var err error
			if d.sim, err = sim.Start(d.simCfg); err != nil {
				return nil, fmt.Errorf("starting the simulator: %w", err)
			}
		}
		url = d.sim.URL
	}
	return runtimes.New(runtimes.Config{
		Name: spec.Name, Kind: spec.Kind, URL: url, Model: spec.Model, APIKey: spec.APIKey,
		Timeout:     time.Duration(d.Settings.Timeout),
		IdleTimeout: time.Duration(d.Settings.IdleTimeout),
		Client:      d.client,
	})
}

// addRuntime adds rt to the run, with what it told of itself.
func (d *Driver) addRuntime(rt *runtimes.Runtime, info runtimes.Info) {
	d.Runtimes = append(d.Runtimes, rt)
	r := d.Run
	r.Versions[rt.Name] = d.version(rt, info.Version)
	r.ModelMetadata[rt.Name] = info.Models
	limit, source := info.ContextLimit(rt.Model)
	r.Runtimes = append(r.Runtimes, summary.RuntimeInfo{Name: rt.Name, Kind: string(rt.Kind), BaseURL: rt.BaseURL, Model: rt.Model,
		ContextLimit: limit, ContextSource: source})
	d.describeServed(rt, info)
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
		errs = append(errs, fmt.Errorf("BENCH_TOOLS=%q: %s (%s) serves %s, which takes no tools (%s has no \"tools\"), and Ollama refuses every request with tools to it (HTTP 400 \"… does not support tools\"); serve a model whose chat template uses .Tools (see `ollama show --template MODEL`), or unset BENCH_TOOLS",
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
			what := fmt.Sprintf("%s with BENCH_MAX_TOKENS=%d", p.Name, st.MaxTokens)
			variable := "BENCH_INPUT_TOKENS"
			switch {
			case st.SharedPrefix > 0:
				variable = fmt.Sprintf("BENCH_SHARED_PREFIX=%d", st.SharedPrefix)
			case st.Turns > 1:
				variable = fmt.Sprintf("BENCH_TURNS=%d", st.Turns)
			}
			if st.Turns > 1 || st.SharedPrefix > 0 {
				what = fmt.Sprintf("a conversation of %s (a shared prefix of %d tokens, %d turn(s) of BENCH_MAX_TOKENS=%d)", p.Name, st.SharedPrefix, st.Turns, st.MaxTokens)
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
		case rt.Kind == runtimes.KindOllama && a.OllamaURL == nil:
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
	if d.numCtx > 0 && slices.ContainsFunc(d.Runtimes, func(rt *runtimes.Runtime) bool { return rt.Kind == runtimes.KindOllama }) {
		n := d.numCtx
		a.NumCtx = &n
	}
	if d.opts.Count > 0 {
		a.Count = &d.opts.Count
	}
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
