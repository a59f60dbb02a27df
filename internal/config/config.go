// Package config reads the suite's settings from the environment.
//
// Every setting is an environment variable (docs/settings.md lists them,
// the README those a new user needs; BENCH_PRESET sets a job's group of
// them, Presets). A bad
// value is an error that names the variable and the value, returned before
// any request is sent. Runtimes are configured per name: BENCH_RUNTIMES
// lists names, and each name NAME has NAME_URL, NAME_MODEL, NAME_KIND,
// NAME_API_KEY and NAME_VERSION, with NAME upper-cased and '-', '.' and '@' turned into '_'
// (vllm-metal → VLLM_METAL_URL, ollama@0.6.5 → OLLAMA_0_6_5_URL). A name
// PRODUCT@TAG is a side of a known server (or of the simulator): two
// versions of one runtime served at once, on two ports (Product).
package config

// This file is long because Settings declares every BENCH_ setting in one
// struct, each with its tag and comment, and the checks of their values
// sit beside it.

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/caarlos0/env/v11"

	"github.com/inferencebench/inferencebench/internal/envvar"
	"github.com/inferencebench/inferencebench/internal/images"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Settings are the BENCH_* variables.
type Settings struct {
	// Preset is BENCH_PRESET: the name of the preset (Presets) whose
	// variables the run read where the environment left them unset, ""
	// for none; PresetSet are those variables with the values it gave
	// them (nil without a preset). Load sets PresetSet.
	Preset    string `env:"BENCH_PRESET"`
	PresetSet map[string]string
	Runtimes  Names `env:"BENCH_RUNTIMES"`
	// Concurrency are the closed-loop loads: a list, or "sweep[:max]"
	// (1, 2, 4, … until throughput stops growing).
	Concurrency Concurrency `env:"BENCH_CONCURRENCY" envDefault:"1,4"`
	// Rates are open-loop loads, requests per second; none by default.
	Rates Floats `env:"BENCH_RATES"`
	// Burstiness is the shape of the gamma distribution of the gaps
	// between open-loop arrivals (vLLM's burstiness): 1 is Poisson.
	Burstiness float64 `env:"BENCH_BURSTINESS" envDefault:"1"`
	// MaxInflight caps the requests an open-loop leaf has in flight.
	MaxInflight int `env:"BENCH_MAX_INFLIGHT" envDefault:"256"`
	// Ramp is the length of each leaf run's ramp (BENCH_RAMP): after its
	// warm-ups, the load grows linearly to the leaf's, a closed loop's
	// workers starting one by one over it, an open loop's rate rising from
	// 0; its requests are in no figure. 0: none.
	Ramp Duration `env:"BENCH_RAMP" envDefault:"0"`
	// SLO are latency targets for goodput: "ttft=2s,tpot=50ms,total=30s".
	SLO     SLO `env:"BENCH_SLO"`
	Warmups int `env:"BENCH_WARMUPS" envDefault:"2"`
	// MaxTokens is the output length asked for: BENCH_MAX_TOKENS, or,
	// when that is a distribution (MaxTokensDist), the most a request
	// draws (its Bound), which context checks fit. Load sets it.
	MaxTokens int
	// MaxTokensDist is BENCH_MAX_TOKENS as given: a length, or a
	// distribution each request draws its own from.
	MaxTokensDist Length `env:"BENCH_MAX_TOKENS" envDefault:"128"`
	// Seed is sent only when set: mlx_lm.server does not batch a request
	// that has one, and at temperature 0 decoding is greedy anyway.
	Seed        *int    `env:"BENCH_SEED"`
	Temperature float64 `env:"BENCH_TEMPERATURE" envDefault:"0"`
	// Cache is cold (every request's prompt is unique, so no server
	// answers any of it from a prompt cache) or warm (every request sends
	// the same prompt, as a chat's next turn would).
	Cache string `env:"BENCH_CACHE"`
	// IgnoreEOS asks OpenAI-kind servers to generate exactly
	// BENCH_MAX_TOKENS tokens (ignore_eos).
	IgnoreEOS bool `env:"BENCH_IGNORE_EOS"`
	// KeepAlive is sent with Ollama requests (keep_alive) so that the
	// model stays loaded between leaves.
	KeepAlive string `env:"BENCH_KEEP_ALIVE" envDefault:"30m"`
	// RecordChunks adds every text chunk's arrival time to the request
	// records.
	RecordChunks bool     `env:"BENCH_RECORD_CHUNKS"`
	Timeout      Duration `env:"BENCH_TIMEOUT" envDefault:"600s"`
	// IdleTimeout fails a request whose reply sends nothing for that
	// long; 0 turns it off.
	IdleTimeout Duration `env:"BENCH_IDLE_TIMEOUT" envDefault:"120s"`
	// SkipUnreachable skips, instead of failing, the benchmarks of a named
	// runtime that does not answer at the start.
	SkipUnreachable bool   `env:"BENCH_SKIP_UNREACHABLE"`
	Prompts         Names  `env:"BENCH_PROMPTS"`
	PromptsDir      string `env:"BENCH_PROMPTS_DIR"`
	OutputDir       string `env:"BENCH_OUTPUT_DIR"` // unset: DefaultOutputDir
	// Progress is where a line per round goes: ProgressAuto,
	// ProgressOff (also written 0 or false), ProgressStderr, or any other
	// value a file's path. Load turns the other ways to say off into
	// ProgressOff.
	Progress string `env:"BENCH_PROGRESS"`
	// MaxFailures is the share of failed requests (0 to 1) above which
	// the run fails: DefaultMaxFailures unless set; 1 never fails a run
	// whose every benchmark had a success. A pointer, as before it had a
	// default: Load always sets it.
	MaxFailures *float64 `env:"BENCH_MAX_FAILURES" envDefault:"0.05"`
	// ControlMax bounds the time the control leaf's timed rounds take
	// (BENCH_CONTROL_MAX): a share of the runtime's timed time in the run
	// ("10%", never below MinControlTime) or a duration ("30s").
	ControlMax ControlMax `env:"BENCH_CONTROL_MAX" envDefault:"10%"`
	// Power is auto (measure with macmon where it is found), on (macmon
	// must work, or the run stops at setup) or off.
	Power string `env:"BENCH_POWER"`
	// Macmon is the macmon binary, a path or a name on PATH.
	Macmon string `env:"BENCH_MACMON" envDefault:"macmon"`
	// PowerInterval is macmon's sampling interval.
	PowerInterval Duration `env:"BENCH_POWER_INTERVAL" envDefault:"200ms"`
	// MetricsInterval is how often each server's /metrics is scraped for
	// the metric series (<run id>.metrics.jsonl); off by default.
	MetricsInterval MetricsInterval `env:"BENCH_METRICS_INTERVAL" envDefault:"off"`
	// InputTokens are the lengths, in tokens, of the in<N> prompts to
	// run (BENCH_INPUT_TOKENS: "512,2048,8k"): InputLengths.Fixed, which
	// Load copies here.
	InputTokens InputTokens
	// InputLengths is BENCH_INPUT_TOKENS as given: the in<N> lengths and
	// the distributions (a prompt each, workload.InputName, whose every request
	// draws its own length).
	InputLengths InputLengths `env:"BENCH_INPUT_TOKENS"`
	// Workload is a workload file (BENCH_WORKLOAD): ShareGPT
	// conversations, a trace or message lists, benchmarked as a prompt
	// named after the file (workload.Name). WorkloadN, if above 0, takes
	// that many of its items (a sample, drawn with a fixed seed), and
	// TraceSpeed scales a trace's time (2: twice as fast).
	Workload   string  `env:"BENCH_WORKLOAD"`
	WorkloadN  int     `env:"BENCH_WORKLOAD_N" envDefault:"0"`
	TraceSpeed float64 `env:"BENCH_TRACE_SPEED" envDefault:"1"`
	// Tools is a tools file (BENCH_TOOLS): a JSON array of OpenAI
	// function tools sent with every request.
	Tools string `env:"BENCH_TOOLS"`
	// Images are the images sent with every request's prompt
	// (BENCH_IMAGES=N@WxH[:png|:jpeg]): N pictures of W×H pixels drawn
	// from BENCH_SEED (0 when unset) once for the run; none by default.
	Images images.Spec `env:"BENCH_IMAGES"`
	// NumCtx is the options.num_ctx sent to Ollama; nil: the driver
	// makes it fit the longest conversation when there is an in<N>
	// prompt, or turns or a shared prefix that need more than Ollama's
	// own context; else it is not sent.
	NumCtx *int `env:"BENCH_NUM_CTX"`
	// Fresh is leaf (before each leaf run, return every server to a known
	// state where it offers a way: see runtimes.FreshWay) or off.
	Fresh string `env:"BENCH_FRESH"`
	// Control is on (at the end of the run, each runtime's first leaf
	// runs once more, and the change says whether the server or the
	// machine drifted) or off.
	Control string `env:"BENCH_CONTROL"`
	// Turns is the turns of each conversation: 1, every request stands
	// alone; N, every request is a conversation of N turns, turn k
	// carrying the k−1 earlier ones (prompts.FollowUp).
	Turns int `env:"BENCH_TURNS" envDefault:"1"`
	// SharedPrefix is the length, in tokens, of a system message every
	// request of the run begins with (0: none), sized as an in<N> prompt.
	SharedPrefix int `env:"BENCH_SHARED_PREFIX" envDefault:"0"`
	// Order is interleaved (for each prompt and load, every runtime in
	// turn), grouped (every leaf of one runtime, then the next's) or
	// alternate (for each prompt and load, the leaf runs of every runtime
	// in turn, run by run: A1 B1 A2 B2 …). Unset, it is alternate when two
	// runtimes of BENCH_RUNTIMES share a product (ollama@old,ollama@new),
	// else interleaved: Load sets it so.
	Order string `env:"BENCH_ORDER"`
	// Fallback is what runs when BENCH_RUNTIMES is unset and no runtime
	// answers on the known local ports: the simulator (sim), or nothing
	// (none: the run fails, naming the runtimes tried).
	Fallback string `env:"BENCH_FALLBACK"`
	// Canary is on (after a leaf run's warm-ups, one untimed request at
	// temperature 0 whose reply is kept in the row) or off.
	Canary string `env:"BENCH_CANARY"`
	// RecordText keeps every reply's text in the request records.
	RecordText bool `env:"BENCH_RECORD_TEXT"`
	// HTTPTrace stamps each request's DNS lookup, connect, TLS handshake,
	// request written and first response byte (net/http/httptrace) into
	// its record and the row.
	HTTPTrace bool `env:"BENCH_HTTP_TRACE"`
	// HostLabel names the machine in host.label; empty: its host name.
	HostLabel string `env:"BENCH_HOST_LABEL"`
	// IdlePowerS is how long, in seconds, power is sampled with nothing
	// in flight before the first leaf, for the idle baseline; 0: none.
	IdlePowerS float64 `env:"BENCH_IDLE_POWER_S" envDefault:"5"`
	// Cooldown is a wait before each leaf run after the first
	// (BENCH_COOLDOWN): none (0), a fixed duration ("30s"), or "idle":
	// until the machine's power and temperature return near the idle
	// baseline, at most Cooldown.Max ("idle:5m").
	Cooldown Cooldown `env:"BENCH_COOLDOWN" envDefault:"0"`
	// API is the API every request goes through (runtimes.API): chat,
	// completions, responses, messages or embeddings.
	API string `env:"BENCH_API"`
	// EmbedBatch is how many inputs an embeddings request sends
	// (BENCH_API=embeddings).
	EmbedBatch int `env:"BENCH_EMBED_BATCH" envDefault:"1"`
	// Quality are the measurements besides speed, untimed before the
	// timed rounds (quality.go): off, agree, exact or agree,exact.
	Quality Quality `env:"BENCH_QUALITY" envDefault:"off"`
	// Reference is the runtime whose greedy replies the others' are
	// compared with under BENCH_QUALITY=agree; empty: the first runtime
	// (ReferenceName).
	Reference string `env:"BENCH_REFERENCE"`

	// Specs are the settings of each runtime of BENCH_RUNTIMES, in order,
	// or with none named, of the known local ones (ProbeOrder) and then
	// the simulator: read by Load from their NAME_* variables.
	Specs []Runtime
}

// MaxRamp bounds BENCH_RAMP.
const MaxRamp = time.Hour

// MaxTurns bounds BENCH_TURNS.
const MaxTurns = 100

// MaxIdlePowerS bounds BENCH_IDLE_POWER_S.
const MaxIdlePowerS = 600

// MaxCooldown bounds BENCH_COOLDOWN's wait and its idle cap;
// DefaultCooldownMax is the cap of "idle" without one.
const (
	MaxCooldown        = time.Hour
	DefaultCooldownMax = 5 * time.Minute
)

// CooldownIdle is the BENCH_COOLDOWN word for a wait until the machine
// is back near its idle baseline.
const CooldownIdle = "idle"

// Cooldown is BENCH_COOLDOWN: a fixed Wait before each leaf run after the
// first, or, with Idle, a wait until the machine's power and temperature
// are back near the idle baseline, ended after Max. The zero Cooldown
// waits for nothing.
type Cooldown struct {
	Wait time.Duration
	Idle bool
	Max  time.Duration
	text string
}

func (c *Cooldown) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	*c = Cooldown{text: s}
	if rest, ok := strings.CutPrefix(s, CooldownIdle); ok {
		c.Idle, c.Max = true, DefaultCooldownMax
		if rest == "" {
			return nil
		}
		cap, ok := strings.CutPrefix(rest, ":")
		var d Duration
		if !ok || d.UnmarshalText([]byte(cap)) != nil || d <= 0 || time.Duration(d) > MaxCooldown {
			return fmt.Errorf("idle's cap must be a duration above 0 and at most %v (idle:5m)", MaxCooldown)
		}
		c.Max = time.Duration(d)
		return nil
	}
	var d Duration
	if err := d.UnmarshalText(b); err != nil || d < 0 || time.Duration(d) > MaxCooldown {
		return fmt.Errorf("want a duration from 0 (none) to %v (30s), or idle (idle:5m caps it)", MaxCooldown)
	}
	c.Wait = time.Duration(d)
	return nil
}

// Set reports whether the cooldown waits at all.
func (c Cooldown) Set() bool { return c.Idle || c.Wait > 0 }

// String is the setting as given ("30s", "idle").
func (c Cooldown) String() string {
	switch {
	case c.text != "":
		return c.text
	case c.Idle:
		return CooldownIdle + ":" + c.Max.String()
	}
	return c.Wait.String()
}

// The BENCH_ORDER modes.
const (
	OrderInterleaved = "interleaved"
	OrderGrouped     = "grouped"
	OrderAlternate   = "alternate"
)

// The BENCH_FALLBACK modes.
const (
	FallbackSim  = "sim"
	FallbackNone = "none"
)

// The BENCH_CANARY modes.
const (
	CanaryOn  = "on"
	CanaryOff = "off"
)

// MaxVersion and MaxHostLabel bound NAME_VERSION and BENCH_HOST_LABEL,
// in characters.
const (
	MaxVersion   = 100
	MaxHostLabel = 100
)

// oneLine reports whether v, blanks around it left out, is one line of
// at most max characters: a newline anywhere in v is refused, even at its
// end, where a value pasted from a command's output would have it.
func oneLine(v string, max int) bool {
	return !strings.ContainsAny(v, "\r\n") && utf8.RuneCountInString(strings.TrimSpace(v)) <= max
}

// The BENCH_FRESH modes.
const (
	FreshLeaf = "leaf"
	FreshOff  = "off"
)

// The BENCH_CONTROL modes.
const (
	ControlOn  = "on"
	ControlOff = "off"
)

// DefaultMaxFailures is BENCH_MAX_FAILURES unset: a run in which more
// than 5% of the requests failed fails, so that a nightly does not go
// green with a third of them lost.
const DefaultMaxFailures = 0.05

// MinControlTime is the least a control's timed rounds may take when
// BENCH_CONTROL_MAX is a share: a short run's 10% would not hold one round.
// Against all the first leaf's runs (-count=6 of 3 rounds: 18 requests) a
// control needs 3 requests, a run's rounds, which 6 s holds up to 2 s a
// round; it holds the 12 a single 3-round run needs up to 0.5 s a round.
const MinControlTime = 6 * time.Second

// ControlMax is BENCH_CONTROL_MAX: the most time a runtime's control
// leaf's timed rounds may take, as a Share of the runtime's timed time in
// the run (at least MinControlTime), or as a Time.
type ControlMax struct {
	Share float64       // 0.1 for "10%"; 0 when Time is set
	Time  time.Duration // "30s"; 0 when Share is set
	text  string
}

func (c *ControlMax) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	*c = ControlMax{text: s}
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || !(f > 0 && f <= 1000) {
			return fmt.Errorf("a share must be a percentage above 0 and at most 1000%% (10%%), or a duration (30s)")
		}
		c.Share = f / 100
		return nil
	}
	var d Duration
	if err := d.UnmarshalText(b); err != nil || d <= 0 {
		return fmt.Errorf("want a share of the run's timed time (10%%) or a duration above 0 (30s, 2m)")
	}
	c.Time = time.Duration(d)
	return nil
}

// Budget is the most time a control's timed rounds may take in a run
// whose runtime had timed rounds for timed.
func (c ControlMax) Budget(timed time.Duration) time.Duration {
	if c.Time > 0 {
		return c.Time
	}
	return max(time.Duration(c.Share*float64(timed)), MinControlTime)
}

// String is the setting as given ("10%", "30s").
func (c ControlMax) String() string {
	if c.text != "" {
		return c.text
	}
	if c.Time > 0 {
		return c.Time.String()
	}
	return strconv.FormatFloat(100*c.Share, 'f', -1, 64) + "%"
}

// The BENCH_PROGRESS words; any other value is a file's path.
const (
	ProgressAuto   = "auto"   // the terminal (/dev/tty) if there is one, else nowhere
	ProgressOff    = "off"    // nowhere (0 and false say it too)
	ProgressStderr = "stderr" // standard error: only for a test binary run directly
)

// The BENCH_POWER modes.
const (
	PowerAuto = "auto"
	PowerOn   = "on"
	PowerOff  = "off"
)

// Concurrency is BENCH_CONCURRENCY: the concurrencies to run, or a sweep.
type Concurrency struct {
	Levels []int
	// Sweep, if not zero, is the upper bound of a sweep: 1, 2, 4, … up to
	// it, stopping at the knee (see the driver).
	Sweep int
}

// DefaultSweep is the upper bound of "sweep" without one.
const DefaultSweep = 256

func (c *Concurrency) UnmarshalText(b []byte) error {
	*c = Concurrency{}
	s := strings.TrimSpace(string(b))
	if rest, ok := strings.CutPrefix(s, "sweep"); ok {
		c.Sweep = DefaultSweep
		if rest == "" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimPrefix(rest, ":"))
		if !strings.HasPrefix(rest, ":") || err != nil {
			return fmt.Errorf("want sweep or sweep:<upper bound>, e.g. sweep:64")
		}
		c.Sweep = n
		return nil
	}
	var levels Ints
	if err := levels.UnmarshalText(b); err != nil {
		return err
	}
	c.Levels = levels
	return nil
}

// Max is the highest concurrency the setting can reach.
func (c Concurrency) Max() int {
	m := c.Sweep
	for _, n := range c.Levels {
		m = max(m, n)
	}
	return m
}

// SLO is BENCH_SLO.
type SLO struct{ stats.SLO }

func (s *SLO) UnmarshalText(b []byte) error {
	v, err := stats.ParseSLO(string(b))
	s.SLO = v
	return err
}

// MaxInputTokens bounds BENCH_INPUT_TOKENS: no local model reads more.
const MaxInputTokens = 1_000_000

// InputTokens is BENCH_INPUT_TOKENS: whole numbers of tokens, "k" for
// thousands of 1024 ("32k" is 32768). Its errors say which item is wrong.
type InputTokens []int

// String is the lengths as BENCH_INPUT_TOKENS lists them, in tokens.
func (in InputTokens) String() string {
	s := make([]string, len(in))
	for i, n := range in {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (in *InputTokens) UnmarshalText(b []byte) error {
	*in = nil
	seen := map[int]bool{}
	for _, item := range strings.Split(string(b), ",") {
		s := strings.TrimSpace(item)
		if s == "" {
			return fmt.Errorf("an empty length between commas")
		}
		n, err := workload.ParseLength(s)
		switch {
		case err != nil:
			return err
		case n <= 0:
			return fmt.Errorf("%q: a length must be above 0", s)
		case n > MaxInputTokens:
			return fmt.Errorf("%q: above the largest length, %d tokens", s, MaxInputTokens)
		}
		if seen[n] {
			return fmt.Errorf("%q: %d tokens is listed twice", s, n)
		}
		seen[n] = true
		*in = append(*in, n)
	}
	return nil
}

// Floats is a comma-separated list of numbers.
type Floats []float64

func (f *Floats) UnmarshalText(b []byte) error {
	*f = nil
	for _, s := range strings.Split(string(b), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*f = append(*f, v)
	}
	return nil
}

// Runtime is one runtime's settings.
type Runtime struct {
	Name   string
	Kind   runtimes.Kind
	URL    string // may hold user:pass@; print runtimes.RedactURL(URL)
	Model  string // empty: the server's first listed model
	APIKey string
	// Version is NAME_VERSION: the runtime's version as the user states
	// it, recorded instead of the server's (or where it states none).
	Version string
	// Known is set for the names with built-in defaults.
	Known bool
	// Product is the part of Name before '@' (Name without one): a known
	// server's name or the simulator's for a side PRODUCT@TAG, whose
	// server's descriptor, kind and ways apply. Two runtimes with one
	// product are two sides of it (two versions served at once).
	Product string
	// ServerEnv is NAME_SERVER_ENV: the server's own settings as the
	// user states them, KEY=VALUE (serverenv.go); nil when unset.
	ServerEnv map[string]string
	// Sim is the simulator's configuration of a side sim@TAG: the SIM_
	// settings, each SIM_<TAG>_ variable over its SIM_ one (loadSimSide);
	// nil for others.
	Sim *sim.Config
}

// Product is the product of the runtime name: the part before '@' of a
// side PRODUCT@TAG (ollama@0.6.5 → ollama), else the name itself.
func Product(name string) string {
	product, _, _ := strings.Cut(name, "@")
	return product
}

// SharesProduct reports whether two of names are sides of one product
// (ollama@old and ollama@new, or ollama and ollama@new).
func SharesProduct(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[Product(n)] {
			return true
		}
		seen[Product(n)] = true
	}
	return false
}

// products lists the products a side may name: the known servers and the
// simulator, for a message.
func products() string { return strings.Join(append(slices.Clone(ProbeOrder), Sim), ", ") }

// Known runtimes and their defaults: runtimes.KnownServers' kinds and
// local ports, and "sim", the built-in simulator, whose URL is wherever
// the suite starts it.
var Known = known()

func known() map[string]Runtime {
	m := map[string]Runtime{Sim: {Kind: runtimes.Protocols[0].Kind}}
	for _, s := range runtimes.KnownServers {
		m[s.Name] = Runtime{Kind: s.Kind, URL: s.URL()}
	}
	return m
}

// ProbeOrder is the order in which known local ports are tried when
// BENCH_RUNTIMES is unset: runtimes.KnownServers'. Names that share a
// port (llamacpp and mlx) are probed once, and the server named by its
// answers (see the driver).
var ProbeOrder = probeOrder()

func probeOrder() []string {
	var names []string
	for _, s := range runtimes.KnownServers {
		names = append(names, s.Name)
	}
	return names
}

// kindList names the protocols' kinds for a message: "ollama or openai".
func kindList() string {
	var names []string
	for _, k := range runtimes.Kinds() {
		names = append(names, string(k))
	}
	slices.Sort(names)
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Sim is the simulator's name.
const Sim = "sim"

// Load reads Settings, and the settings of each runtime they name (or of
// the known local ones and the simulator), from the process's environment
// and validates them.
func Load() (Settings, error) { return LoadFrom(nil) }

// LoadFrom is Load reading the variables of environ instead (nil: the
// process's environment): a test's settings, built in code.
func LoadFrom(environ map[string]string) (Settings, error) {
	var s Settings
	// A misspelt variable would be ignored, and the defaults run: the
	// names are checked first.
	var runtimeNames Names
	if v, _ := lookupIn(environ, Var("Runtimes")); v != "" {
		_ = runtimeNames.UnmarshalText([]byte(v))
	}
	if err := checkNames(environ, runtimeNames); err != nil {
		return s, err
	}
	environ, preset, presetSet, err := applyPreset(environ)
	if err != nil {
		return s, err
	}
	s.codeDefault()
	if err := parse(environ, &s, ""); err != nil {
		return s, err
	}
	if s.Progress == "0" || s.Progress == "false" {
		envvar.Say(fmt.Sprintf("%s=%s: write %s (%s=%s); 0 and false are still read", Var("Progress"), s.Progress, ProgressOff, Var("Progress"), ProgressOff))
		s.Progress = ProgressOff
	}
	for _, note := range envvar.OldSwitches(&s, "", environ) {
		envvar.Say(note)
	}
	// A blank BENCH_OUTPUT_DIR is left for validate to refuse, with the
	// other settings' faults.
	if dir, err := OutputDir(func(k string) (string, bool) { return lookupIn(environ, k) }); err == nil {
		s.OutputDir = dir
	}
	s.Preset, s.PresetSet = preset, presetSet
	s.MaxTokens = s.MaxTokensDist.Bound()
	s.InputTokens = s.InputLengths.Fixed
	if v, _ := lookupIn(environ, Var("Order")); strings.TrimSpace(v) == "" && SharesProduct(s.Runtimes) {
		s.Order = OrderAlternate
	}
	if err := s.validate(environ); err != nil {
		return s, err
	}
	named := s.Runtimes
	if len(named) == 0 {
		named = append(slices.Clone(ProbeOrder), Sim)
	}
	for _, name := range named {
		spec, err := loadRuntime(environ, name)
		if err != nil {
			return s, err
		}
		s.Specs = append(s.Specs, spec)
	}
	if why := s.referenceProblem(); why != "" {
		return s, fmt.Errorf("%s=%q: %s", Var("Reference"), s.Reference, why)
	}
	return s, nil
}

// validate checks every setting of s, step by step, and returns an error
// for each bad value, naming its variable and the value as environ holds
// it.
func (s Settings) validate(environ map[string]string) error {
	var errs []error
	for _, p := range slices.Concat(s.loadProblems(), s.powerProblems(), s.runProblems(), s.requestProblems(), s.apiProblems(), s.workloadProblems(environ), runtimeNameProblems(s.Runtimes), s.promptNameProblems()) {
		// The message shows the variable as the user wrote it.
		errs = append(errs, fmt.Errorf("%s=%q: %s", p.variable, envvar.Get(environ, p.variable), p.why))
	}
	return errors.Join(errs...)
}

// Modes are the values of each setting that takes one of a few words, by
// its Settings field: the default first, then the others. The default is
// written here only: such a field has no envDefault tag, and LoadFrom
// starts it at its first mode (codeDefaults; Default says it for the
// docs).
var Modes = map[string][]string{
	"Cache":    {CacheCold, CacheWarm},
	"Power":    {PowerAuto, PowerOn, PowerOff},
	"Fresh":    {FreshLeaf, FreshOff},
	"Control":  {ControlOn, ControlOff},
	"Order":    {OrderInterleaved, OrderGrouped, OrderAlternate},
	"Fallback": {FallbackSim, FallbackNone},
	"Canary":   {CanaryOn, CanaryOff},
	"API":      apiNames(),
}

// Default is the default of the Settings field named field, as a
// variable would be written: its envDefault tag, or for a setting of
// Modes its first mode; "" for none.
func Default(field string) string {
	if d, ok := codeDefaults()[field]; ok {
		return d
	}
	f, ok := reflect.TypeFor[Settings]().FieldByName(field)
	if !ok {
		panic("config: Settings has no field " + field)
	}
	return f.Tag.Get("envDefault")
}

// codeDefaults are the defaults written as constants rather than tags,
// by Settings field: each setting of Modes' first mode, and
// BENCH_PROGRESS's ProgressAuto.
func codeDefaults() map[string]string {
	d := map[string]string{"Progress": ProgressAuto}
	for field, modes := range Modes {
		d[field] = modes[0]
	}
	return d
}

// codeDefault sets every setting of codeDefaults to its default, before
// the environment is read over it.
func (s *Settings) codeDefault() {
	v := reflect.ValueOf(s).Elem()
	for field, d := range codeDefaults() {
		v.FieldByName(field).SetString(d)
	}
}

// apiNames are runtimes.APIs' names, the chat first.
func apiNames() []string {
	names := make([]string, len(runtimes.APIs))
	for i, a := range runtimes.APIs {
		names[i] = string(a)
	}
	return names
}

// MaxEmbedBatch bounds BENCH_EMBED_BATCH.
const MaxEmbedBatch = 2048

// checkMode calls bad when the setting of field holds none of its Modes:
// "must be auto, on or off".
func (s Settings) checkMode(bad func(variable, why string), field string) {
	modes := Modes[field]
	if slices.Contains(modes, reflect.ValueOf(s).FieldByName(field).String()) {
		return
	}
	bad(Var(field), "must be "+strings.Join(modes[:len(modes)-1], ", ")+" or "+modes[len(modes)-1])
}

// problem is a setting's bad value: its variable, and why the value is
// refused.
type problem struct{ variable, why string }

// loadProblems checks the loads: BENCH_CONCURRENCY, BENCH_RATES,
// BENCH_BURSTINESS, BENCH_MAX_INFLIGHT and BENCH_RAMP.
func (s Settings) loadProblems() []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	if len(s.Concurrency.Levels) == 0 && s.Concurrency.Sweep == 0 {
		bad(Var("Concurrency"), "need at least one concurrency, or sweep")
	}
	if n := s.Concurrency.Sweep; n != 0 && (n < 2 || n > 4096) {
		bad(Var("Concurrency"), fmt.Sprintf("a sweep's upper bound %d is out of range 2..4096", n))
	}
	seen := map[int]bool{}
	for _, n := range s.Concurrency.Levels {
		if n < 1 || n > 4096 {
			bad(Var("Concurrency"), fmt.Sprintf("%d is out of range 1..4096", n))
		}
		if seen[n] {
			bad(Var("Concurrency"), fmt.Sprintf("%d is listed twice", n))
		}
		seen[n] = true
	}
	for _, r := range s.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			bad(Var("Rates"), fmt.Sprintf("%v: a rate must be a number of requests per second above 0", r))
		}
	}
	if !(s.Burstiness > 0) || math.IsInf(s.Burstiness, 0) {
		bad(Var("Burstiness"), "must be a number above 0 (1 is Poisson; below 1 burstier, above 1 steadier)")
	}
	if s.MaxInflight < 1 {
		bad(Var("MaxInflight"), "must be 1 or more")
	}
	if s.Ramp < 0 || time.Duration(s.Ramp) > MaxRamp {
		bad(Var("Ramp"), "must be a duration from 0 (no ramp) to 1h (30s, 2m)")
	}
	return ps
}

// powerProblems checks how power is measured: BENCH_POWER and
// BENCH_POWER_INTERVAL.
func (s Settings) powerProblems() []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	s.checkMode(bad, "Power")
	if time.Duration(s.PowerInterval) < 100*time.Millisecond {
		bad(Var("PowerInterval"), "must be 100ms or more (macmon's shortest)")
	}
	return ps
}

// runProblems checks how the run goes: BENCH_NUM_CTX, BENCH_FRESH,
// BENCH_CONTROL, BENCH_TURNS, BENCH_SHARED_PREFIX, BENCH_ORDER,
// BENCH_FALLBACK, BENCH_CANARY, BENCH_HOST_LABEL and BENCH_IDLE_POWER_S.
func (s Settings) runProblems() []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	if s.NumCtx != nil && *s.NumCtx < 1 {
		bad(Var("NumCtx"), "must be a whole number of tokens above 0")
	}
	s.checkMode(bad, "Fresh")
	s.checkMode(bad, "Control")
	if s.Turns < 1 || s.Turns > MaxTurns {
		bad(Var("Turns"), fmt.Sprintf("must be a whole number of turns from 1 to %d", MaxTurns))
	}
	if s.SharedPrefix < 0 || s.SharedPrefix > MaxInputTokens {
		bad(Var("SharedPrefix"), fmt.Sprintf("must be a whole number of tokens from 0 (none) to %d", MaxInputTokens))
	}
	s.checkMode(bad, "Order")
	s.checkMode(bad, "Fallback")
	s.checkMode(bad, "Canary")
	if !oneLine(s.HostLabel, MaxHostLabel) {
		bad(Var("HostLabel"), fmt.Sprintf("must be one line of at most %d characters", MaxHostLabel))
	}
	if !(s.IdlePowerS >= 0 && s.IdlePowerS <= MaxIdlePowerS) {
		bad(Var("IdlePowerS"), fmt.Sprintf("must be a number of seconds from 0 (no idle baseline) to %d", MaxIdlePowerS))
	}
	return ps
}

// requestProblems checks each request's settings and what counts as a
// failed run: BENCH_WARMUPS, BENCH_MAX_TOKENS, BENCH_CACHE,
// BENCH_KEEP_ALIVE, BENCH_TEMPERATURE, BENCH_TIMEOUT, BENCH_IDLE_TIMEOUT,
// BENCH_MAX_FAILURES and BENCH_OUTPUT_DIR.
func (s Settings) requestProblems() []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	if s.Warmups < 0 {
		bad(Var("Warmups"), "must be 0 or more")
	}
	if s.MaxTokens < 1 {
		bad(Var("MaxTokensDist"), "must be 1 or more")
	}
	s.checkMode(bad, "Cache")
	if _, err := time.ParseDuration(s.KeepAlive); err != nil && s.KeepAlive != "-1" {
		bad(Var("KeepAlive"), "not a duration (Ollama's keep_alive: 30m, 1h, 0 to unload at once, -1 to keep for ever)")
	}
	if s.Temperature < 0 || math.IsNaN(s.Temperature) || math.IsInf(s.Temperature, 0) {
		bad(Var("Temperature"), "must be a finite number ≥ 0")
	}
	if s.Timeout <= 0 {
		bad(Var("Timeout"), "must be more than 0")
	}
	if s.IdleTimeout < 0 {
		bad(Var("IdleTimeout"), "must be 0 (off) or more")
	}
	if m := s.MaxFailures; m != nil && !(*m >= 0 && *m <= 1) {
		bad(Var("MaxFailures"), "must be a share from 0 to 1 (0.01 is 1%)")
	}
	if strings.TrimSpace(s.OutputDir) == "" {
		bad(Var("OutputDir"), "must name a folder")
	}
	return ps
}

// apiProblems checks BENCH_API and BENCH_EMBED_BATCH, and what goes
// with the chat alone: tools (BENCH_TOOLS), and for embeddings turns.
func (s Settings) apiProblems() []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	s.checkMode(bad, "API")
	if s.EmbedBatch < 1 || s.EmbedBatch > MaxEmbedBatch {
		bad(Var("EmbedBatch"), fmt.Sprintf("must be a whole number of inputs from 1 to %d", MaxEmbedBatch))
	}
	if s.API != string(runtimes.APIChat) && s.Tools != "" {
		bad(Var("API"), "tools (BENCH_TOOLS) are sent with the chat only: unset BENCH_TOOLS or use BENCH_API=chat")
	}
	if s.API == string(runtimes.APIEmbeddings) && s.Turns > 1 {
		bad(Var("API"), "embeddings have no conversation: BENCH_TURNS must be 1")
	}
	return ps
}

// promptNameProblems refuses a name of BENCH_PROMPTS that is a built-in
// prompt's misspelt ("shrot"), naming the built-in: within two letters of
// it, and neither a file of BENCH_PROMPTS_DIR nor an in<N> prompt. Other
// unknown names are left to the prompts' loader, which knows every prompt
// a run makes.
func (s Settings) promptNameProblems() []problem {
	var ps []problem
	for _, n := range s.Prompts {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(prompts.Builtin, n) {
			continue
		}
		if _, ok := prompts.ParseInputName(n); ok {
			continue
		}
		if s.PromptsDir != "" {
			if _, err := os.Stat(filepath.Join(s.PromptsDir, n+".txt")); err == nil {
				continue
			}
		}
		if near, d := envvar.Closest(strings.ToLower(n), prompts.Builtin); d >= 0 && d <= 2 && d < len(near)/2+1 {
			ps = append(ps, problem{Var("Prompts"), fmt.Sprintf("unknown prompt %q: did you mean %s? (built-in: %s)", n, near, strings.Join(prompts.Builtin, ", "))})
		}
	}
	return ps
}

// runtimeNameProblems checks the names of BENCH_RUNTIMES: the letters
// they use, none twice, a known name in the wrong case, a side
// PRODUCT@TAG of a product the suite does not know, and two names whose
// variables would be one (ollama-old and ollama@old: OLLAMA_OLD_URL).
func runtimeNameProblems(names Names) []problem {
	var ps []problem
	bad := func(variable, why string) { ps = append(ps, problem{variable, why}) }
	dup := map[string]bool{}
	prefixes := map[string]string{}
	for _, n := range names {
		product, tag, side := strings.Cut(n, "@")
		switch {
		case side && (!prompts.ValidName.MatchString(product) || !prompts.ValidName.MatchString(tag)):
			bad(Var("Runtimes"), fmt.Sprintf("%q: a side is PRODUCT@TAG, each part of letters, digits, '.', '_' and '-' (ollama@0.6.5)", n))
		case !side && !prompts.ValidName.MatchString(n):
			bad(Var("Runtimes"), fmt.Sprintf("%q: a name may use only letters, digits, '.', '_' and '-'", n))
		case side && Known[product].Kind == "":
			bad(Var("Runtimes"), fmt.Sprintf("%q: %q before @ is not a known server; a side PRODUCT@TAG names one of %s", n, product, products()))
		}
		if dup[n] {
			bad(Var("Runtimes"), fmt.Sprintf("%q is listed twice", n))
		} else if other, ok := prefixes[EnvPrefix(n)]; ok {
			bad(Var("Runtimes"), fmt.Sprintf("%q and %q would read the same variables (%sURL, …): rename one", other, n, EnvPrefix(n)))
		}
		if _, known := Known[product]; !known {
			if _, lower := Known[strings.ToLower(product)]; lower {
				bad(Var("Runtimes"), fmt.Sprintf("%q: runtime names are lower case: did you mean %s?", n, strings.ToLower(n)))
			}
		}
		dup[n] = true
		prefixes[EnvPrefix(n)] = n
	}
	return ps
}

type runtimeEnv struct {
	URL       string `env:"URL"`
	Model     string `env:"MODEL"`
	Kind      string `env:"KIND"`
	APIKey    string `env:"API_KEY"`
	Version   string `env:"VERSION"`
	ServerEnv string `env:"SERVER_ENV"`
}

// LoadRuntime reads one runtime's settings from the process's
// environment, applying the known defaults.
func LoadRuntime(name string) (Runtime, error) { return loadRuntime(nil, name) }

// LoadRuntimeFrom is LoadRuntime reading the variables of environ instead
// (nil: the process's environment).
func LoadRuntimeFrom(environ map[string]string, name string) (Runtime, error) {
	return loadRuntime(environ, name)
}

func loadRuntime(environ map[string]string, name string) (Runtime, error) {
	prefix := EnvPrefix(name)
	var e runtimeEnv
	err := parse(environ, &e, prefix)
	if err != nil {
		return Runtime{}, err
	}
	product, tag, side := strings.Cut(name, "@")
	rt, known := Known[product]
	if side && !known {
		return Runtime{}, fmt.Errorf("runtime %q: %q before @ is not a known server; a side PRODUCT@TAG names one of %s", name, product, products())
	}
	rt.Name, rt.Known, rt.Product = name, known, product
	if side {
		rt.URL = "" // two sides cannot share the default port
	}
	if e.Kind != "" {
		k := runtimes.Kind(strings.ToLower(strings.TrimSpace(e.Kind)))
		if _, ok := runtimes.ProtocolOf(k); !ok {
			return Runtime{}, fmt.Errorf("%sKIND=%q: must be %s", prefix, e.Kind, kindList())
		}
		rt.Kind = k
	}
	if rt.Kind == "" {
		rt.Kind = runtimes.Protocols[0].Kind
	}
	if e.URL != "" {
		if product == Sim {
			return Runtime{}, fmt.Errorf("%sURL=%q: the simulator runs in-process and takes no URL", prefix, runtimes.RedactURL(e.URL))
		}
		rt.URL = strings.TrimSpace(e.URL)
	}
	if err := needURL(rt, prefix); err != nil {
		return Runtime{}, err
	}
	if rt.URL != "" {
		if _, err := runtimes.ParseURL(rt.URL); err != nil {
			return Runtime{}, fmt.Errorf("%sURL: %w", prefix, err)
		}
	}
	rt.Model = strings.TrimSpace(e.Model)
	rt.APIKey = e.APIKey
	rt.Version = strings.TrimSpace(e.Version)
	if !oneLine(e.Version, MaxVersion) {
		return Runtime{}, fmt.Errorf("%sVERSION=%q: must be one line of at most %d characters", prefix, e.Version, MaxVersion)
	}
	if rt.ServerEnv, err = parseServerEnv(prefix+"SERVER_ENV", e.ServerEnv); err != nil {
		return Runtime{}, err
	}
	if side && product == Sim {
		c, err := loadSimSide(environ, tag)
		if err != nil {
			return Runtime{}, err
		}
		rt.Sim = &c
	}
	return rt, nil
}

// needURL is the error for a runtime without a URL other than the
// simulator: a name of its own, or a side PRODUCT@TAG, which never takes
// its product's default port (the other side is there, or would be).
func needURL(rt Runtime, prefix string) error {
	if rt.URL != "" || rt.Product == Sim {
		return nil
	}
	if rt.Name != rt.Product {
		s, _ := runtimes.KnownServer(rt.Product)
		return fmt.Errorf("runtime %q has no URL: set %sURL; two sides of %s are two servers on two ports, so a side never takes its default, %s", rt.Name, prefix, rt.Product, s.URL())
	}
	defaults := strings.Join(ProbeOrder, ", ") + ", " + Sim
	// A near miss of a known name is most likely a typo: the fix first,
	// the runtime of its own it would otherwise be second.
	if c, d := envvar.Closest(rt.Name, slices.Sorted(maps.Keys(Known))); d >= 0 && d <= 2 {
		return fmt.Errorf("runtime %q is not a known runtime: did you mean %s? (a runtime of its own needs %sURL; names with defaults: %s)", rt.Name, c, prefix, defaults)
	}
	return fmt.Errorf("runtime %q has no URL: set %sURL (names with defaults: %s)", rt.Name, prefix, defaults)
}

// EnvPrefix returns the prefix of a runtime's environment variables:
// "vllm-metal" → "VLLM_METAL_", "ollama@0.6.5" → "OLLAMA_0_6_5_".
func EnvPrefix(name string) string {
	return strings.NewReplacer("-", "_", ".", "_", "@", "_").Replace(strings.ToUpper(name)) + "_"
}

func parse(environ map[string]string, v any, prefix string) error {
	return envvar.Parse(v, env.Options{Prefix: prefix, Environment: environ})
}

// lookupIn is os.LookupEnv in environ (nil: the process's environment).
func lookupIn(environ map[string]string, key string) (string, bool) {
	if environ == nil {
		return os.LookupEnv(key)
	}
	v, ok := environ[key]
	return v, ok
}

// Names is a comma-separated list; blanks around items are dropped.
type Names []string

func (n *Names) UnmarshalText(b []byte) error {
	*n = nil
	for _, s := range strings.Split(string(b), ",") {
		if s = strings.TrimSpace(s); s != "" {
			*n = append(*n, s)
		}
	}
	return nil
}

// The lists are written in a summary's arguments as JSON lists
// (summary.Arguments holds them in these types): UnmarshalJSON reads such
// a list back, where UnmarshalText would want the variable's text.

// UnmarshalJSON reads a JSON list of names.
func (n *Names) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*[]string)(n)) }

// UnmarshalJSON reads a JSON list of numbers.
func (f *Floats) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*[]float64)(f)) }

// UnmarshalJSON reads a JSON list of lengths, in tokens.
func (in *InputTokens) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*[]int)(in)) }

// Ints is a comma-separated list of whole numbers.
type Ints []int

func (n *Ints) UnmarshalText(b []byte) error {
	*n = nil
	for _, s := range strings.Split(string(b), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		i, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		*n = append(*n, i)
	}
	return nil
}

// Duration is a Go duration ("90s", "10m") or a plain number of seconds
// ("600", as the seed's arguments.timeout).
type Duration time.Duration

func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) > float64(math.MaxInt64)/float64(time.Second) {
			return fmt.Errorf("out of range")
		}
		*d = Duration(f * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration (use 600s, 10m or a number of seconds)")
	}
	*d = Duration(v)
	return nil
}

var (
	_ encoding.TextUnmarshaler = (*Concurrency)(nil)
	_ encoding.TextUnmarshaler = (*Floats)(nil)
	_ encoding.TextUnmarshaler = (*InputTokens)(nil)
	_ encoding.TextUnmarshaler = (*SLO)(nil)
	_ encoding.TextUnmarshaler = (*Names)(nil)
	_ encoding.TextUnmarshaler = (*Ints)(nil)
	_ encoding.TextUnmarshaler = (*Duration)(nil)
	_ encoding.TextUnmarshaler = (*ControlMax)(nil)
	_ encoding.TextUnmarshaler = (*Cooldown)(nil)
	_ encoding.TextUnmarshaler = (*MetricsInterval)(nil)
)
