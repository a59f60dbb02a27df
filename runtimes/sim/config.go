package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	// Version is the default of Config.Version: what GET /api/version,
	// GET /version and llama-server's /props build_info report.
	Version = "sim-1"
	// Model is the one model the simulator lists, and the model it reports
	// when a request names none.
	Model = "sim-model"
	// DefaultMaxTokens is n when a request asks for no length (or <= 0).
	DefaultMaxTokens = 128
	// Parameters is the model's size the metadata endpoints state (Ollama's
	// parameter_size "500.00M", llama.cpp's meta.n_params).
	Parameters = 500_000_000
	// DefaultQuantization is the default of Config.Quantization.
	DefaultQuantization = "Q4_K_M"
	// ContextLength is the default of Config.Context: the context length,
	// in tokens, the metadata endpoints report and OpenAI-kind requests
	// must fit in.
	ContextLength = 40960

	// MLXVersion is the mlx flavor's default version (Config.Version):
	// mlx_lm's, the first part of MLXFingerprint.
	MLXVersion = "0.32.2"
	// MLXFingerprint is the system_fingerprint every OpenAI chunk of the
	// mlx flavor carries at the defaults, in mlx_lm.server's shape:
	// mlx_lm's version, MLX's, then the platform (a real one: "0.32.2-
	// 0.32.4-Linux-6.18.44-fc-v1252-x86_64-with-glibc2.36-x86_64"). It is
	// the only place the flavor states a version, as mlx_lm.server has no
	// version endpoint; SIM_VERSION replaces its first part.
	MLXFingerprint     = MLXVersion + mlxFingerprintTail
	mlxFingerprintTail = "-0.32.4-Linux-sim-x86_64"
	// OllamaFingerprint is the system_fingerprint every OpenAI chunk of
	// the ollama flavor carries, as Ollama's /v1 does.
	OllamaFingerprint = "fp_ollama"
	// VLLMFingerprint is the system_fingerprint of the vllm flavor's usage
	// chunk at the defaults, in vLLM's shape ("vllm-0.32.0-a1f68b72": its
	// version, then a hash) with the version GET /version states.
	VLLMFingerprint = "vllm-" + Version + "-sim"
)

// Config is what the server plays: the schedule, real servers' habits and
// the fault, if any. The zero value of every field but TTFT and
// TokensPerSec is that field's default (no fault, no habit).
type Config struct {
	TTFT         time.Duration `env:"SIM_TTFT"`           // request received -> first token chunk; DefaultTTFT
	TokensPerSec float64       `env:"SIM_TOKENS_PER_SEC"` // decode rate after the first token; DefaultTokensPerSec

	// Fault (SIM_FAULT) is how the chat requests that FaultEvery picks
	// misbehave: FaultNone (the default), one of the Fault constants, or
	// "http-NNN" with NNN an HTTP status from 400 to 599. See the package
	// documentation.
	Fault Fault `env:"SIM_FAULT"`
	// FaultEvery (SIM_FAULT_EVERY, default 1) picks the chat requests that
	// get the fault: the k-th (1-based, both chat endpoints counted
	// together) when k % FaultEvery == 0; 1 is every request. 0, the zero
	// value (what internal/config's LoadSim returns when the variable is unset),
	// counts as 1; SIM_FAULT_EVERY=0 written out is an error.
	FaultEvery int `env:"SIM_FAULT_EVERY"`

	// ServedModel (SIM_SERVED_MODEL), if set, is the one model the server
	// serves, as llama-server does: every reply names it in its model
	// field whatever the request asked for, and the model listings list
	// it. Empty: replies echo the requested model (Model when none) and
	// the listings list Model.
	ServedModel string `env:"SIM_SERVED_MODEL"`

	// TextSeed (SIM_TEXT_SEED), if not 0, changes the words of every
	// reply: the same chat gets another reply than with 0 (Token and
	// ReplyText's), and the same input another embedding, as a new model
	// or runtime version would answer.
	TextSeed uint64 `env:"SIM_TEXT_SEED"`
	// Perturb (SIM_PERTURB, default 0; at most 1) plays a model that
	// answers differently by a known share: at each token, where a draw
	// from the reply's seed and the token's place is below Perturb, the
	// reply says its second most likely word and its distribution has the
	// first two swapped (logprobs.go). The same chat gets the same reply
	// every time.
	Perturb float64 `env:"SIM_PERTURB"`
	// Logprobs (SIM_LOGPROBS) says whether the server answers a request's
	// log-probability fields: LogprobsOn or LogprobsOff, with which it
	// ignores them, as LM Studio and Ollama before 0.12.11 do. "" is the
	// flavor's habit: off for lmstudio and for ollama at a SIM_VERSION
	// before 0.12.11, else on (the default).
	Logprobs LogprobsMode `env:"SIM_LOGPROBS"`

	// StopAfter (SIM_STOP_AFTER), if > 0, makes every reply end after
	// min(StopAfter, n) tokens, as a model that reaches its end of
	// sequence: finish reason "stop" when StopAfter <= n ("length" when the
	// length asked for comes first). An OpenAI request with
	// "ignore_eos": true runs to n. 0, the zero value, is off;
	// SIM_STOP_AFTER=0 written out is an error.
	StopAfter int `env:"SIM_STOP_AFTER"`

	// ReasoningTokens (SIM_REASONING_TOKENS, default 0) makes the first
	// min(ReasoningTokens, m) tokens of every reply reasoning text, sent in
	// ReasoningField (OpenAI) or message.thinking (Ollama); the rest is the
	// answer. They count as tokens like the others.
	ReasoningTokens int `env:"SIM_REASONING_TOKENS"`
	// ReasoningField (SIM_REASONING_FIELD) is the OpenAI delta field the
	// reasoning goes in: ReasoningContent (the default, also for "") or
	// Reasoning.
	ReasoningField ReasoningField `env:"SIM_REASONING_FIELD"`

	// ToolCalls (SIM_TOOL_CALLS, default 1) is how many tool calls a reply
	// to a request with tools makes, one after the other. 0, the zero
	// value, counts as 1; SIM_TOOL_CALLS=0 written out sets NoToolCalls.
	// See the package documentation.
	ToolCalls int `env:"SIM_TOOL_CALLS"`
	// NoToolCalls (SIM_TOOL_CALLS=0) makes a reply to a request with tools
	// text, as any other, as a model that calls no tool answers.
	NoToolCalls bool
	// ModelTools (SIM_MODEL_TOOLS) says whether the model takes tools, as
	// Ollama's /api/show capabilities say ("tools" where the model's chat
	// template uses .Tools): ModelToolsOn (the default, also for "") or
	// ModelToolsOff, with which /api/show says ["completion"] and a chat
	// request with tools, on /api/chat or /v1/chat/completions, gets
	// Ollama's 400 "<model> does not support tools". Only for a flavor
	// that serves Ollama's endpoints.
	ModelTools ModelToolsMode `env:"SIM_MODEL_TOOLS"`
	// ModelVision (SIM_MODEL_VISION) says whether the model takes images
	// (images.go): ModelVisionOff (the default, also for ""), a text
	// model, to which a chat request with images is refused as its server
	// refuses it (Ollama: "this model is missing data required for image
	// input"; llama-server: 500 "image input is not supported"; vLLM:
	// "<model> is not a multimodal model"), or ModelVisionOn, whose
	// /api/show capabilities list "vision" and /props modalities say
	// "vision": true.
	ModelVision ModelVisionMode `env:"SIM_MODEL_VISION"`
	// ToolsHeld (SIM_TOOLS_HELD) holds back a streamed reply to a request
	// with tools whole until its end, as Ollama before 0.8 does: /api/chat
	// sends one line, done, with all the reply; /v1/chat/completions one
	// chunk with all of it, then its end. For text replies and tool calls
	// alike. Only for a flavor that serves Ollama's endpoints.
	ToolsHeld bool `env:"SIM_TOOLS_HELD"`
	// ToolArgsInvalid (SIM_TOOL_ARGS_INVALID, default 0; at most 1) is the
	// fraction of tool calls whose arguments are broken JSON (the closing
	// brace cut off): the k-th call the server makes (from 1) when
	// ⌊k·f⌋ > ⌊(k−1)·f⌋, so 0.25 breaks every fourth.
	ToolArgsInvalid float64 `env:"SIM_TOOL_ARGS_INVALID"`

	// TokensPerChunk (SIM_TOKENS_PER_CHUNK, default 1) is how many tokens'
	// text one chunk carries; a chunk is written when its last token is
	// due. 0, the zero value, counts as 1; SIM_TOKENS_PER_CHUNK=0 written
	// out is an error.
	TokensPerChunk int `env:"SIM_TOKENS_PER_CHUNK"`

	// CloseAfterStream (SIM_CLOSE_AFTER_STREAM) closes the TCP connection
	// after every streamed chat reply, as llama-server does, while every
	// response says "Keep-Alive: timeout=5, max=100". See the package
	// documentation.
	CloseAfterStream bool `env:"SIM_CLOSE_AFTER_STREAM"`

	// HTTPThreads (SIM_HTTP_THREADS, default 0: no limit) is how many
	// connections the server serves at once, as llama-server's
	// --threads-http: a connection holds its thread while it is open
	// (idle ones until they have been idle 5 s), and one beyond the limit
	// waits, its requests unanswered, until a thread is free (threads.go).
	HTTPThreads int `env:"SIM_HTTP_THREADS"`

	// LostAttempt (no variable: a test's instrument) is how long a request
	// sent on a connection being closed after a streamed reply waits before
	// the server closes it unanswered; 0 closes it at once, as llama-server
	// on the same machine. A client whose clock kept running through that
	// lost attempt would show it in its TTFT.
	LostAttempt time.Duration

	// Slots (SIM_SLOTS, default 0: unlimited) is how many chat requests
	// decode at once; the others wait, first come first served, and their
	// schedule starts when they get a slot. See the package documentation.
	Slots int `env:"SIM_SLOTS"`
	// BatchSlowdown (SIM_BATCH_SLOWDOWN, default 0) slows each stream's
	// decode when several decode at once: with m streams holding a slot,
	// each decodes at TokensPerSec/(1 + BatchSlowdown·(m−1)). See the
	// package documentation for when m is read.
	BatchSlowdown float64 `env:"SIM_BATCH_SLOWDOWN"`

	// Degrade (SIM_DEGRADE, default 0: off; else 0 < Degrade <= 1) plays
	// Ollama 0.6.5's slowdown: once two chat requests have held a slot at
	// the same time, every request whose schedule starts later decodes at
	// Degrade × TokensPerSec, until the server is reset. See the package
	// documentation.
	Degrade float64 `env:"SIM_DEGRADE"`

	// Jitter (SIM_JITTER, default 0: off; else at most 1) is the spread of
	// each reply's timing, as a real server's varies from request to
	// request: its TTFT and its decode rate are each multiplied by
	// e^N(0, Jitter), drawn apart (0.03: about 3%). For tests of what a
	// comparison calls a change.
	Jitter float64 `env:"SIM_JITTER"`

	// PrefillTPS (SIM_PREFILL_TPS, default 0: off) is the prompt rate: a
	// reply's first token comes TTFT + (uncached prompt tokens)/PrefillTPS
	// after its t0. Off, the first token comes at TTFT whatever the prompt.
	PrefillTPS float64 `env:"SIM_PREFILL_TPS"`

	// PrefixCache (SIM_PREFIX_CACHE) turns the prompt cache on
	// (PrefixCacheOn, the default, also for "") or off (PrefixCacheOff):
	// off, nothing is ever cached and every prompt is evaluated whole. See
	// the package documentation.
	PrefixCache PrefixCacheMode `env:"SIM_PREFIX_CACHE"`

	// LoadTime (SIM_LOAD_TIME, default 0) is how long loading the model
	// takes: the first chat request after the model was unloaded (or, for
	// Ollama, asked for another num_ctx) waits that long before its
	// schedule, and Ollama's load_duration says so.
	LoadTime time.Duration `env:"SIM_LOAD_TIME"`

	// Context (SIM_CONTEXT, default ContextLength; 0 counts as the
	// default, SIM_CONTEXT=0 written out is an error) is the model's
	// context length in tokens: what the metadata endpoints report, what
	// an OpenAI-kind request's prompt and length must fit in, and the most
	// an Ollama-kind request's num_ctx can be.
	Context int `env:"SIM_CONTEXT"`

	// Flavor (SIM_FLAVOR) is the OpenAI-kind server the simulator
	// imitates beside its chat endpoints: FlavorVLLM (the default, also for
	// ""), FlavorLlamaCpp, FlavorPlain, FlavorLMStudio, FlavorMLX or
	// FlavorOllama. See the package documentation.
	Flavor Flavor `env:"SIM_FLAVOR"`

	// Version (SIM_VERSION) is the version the server states, where the
	// server its flavor plays states one, and as that server does: Ollama's
	// GET /api/version {"version":V} (every flavor that serves Ollama's
	// endpoints), vLLM's GET /version and its system_fingerprint
	// "vllm-V-sim", llama-server's /props build_info, mlx_lm.server's
	// system_fingerprint "V-0.32.4-Linux-sim-x86_64" (a client reads a
	// version there only where V is a version number such as 0.32.2).
	// lmstudio states none, as LM Studio's API. Empty: Version, or
	// MLXVersion for mlx. (The suite also reads SIM_VERSION as the
	// built-in simulator's NAME_VERSION, the version it records for it:
	// the same.)
	Version string `env:"SIM_VERSION"`

	// Quantization (SIM_QUANTIZATION, default DefaultQuantization, also
	// for "") is the weights' quantization the metadata endpoints state:
	// Ollama's details.quantization_level, LM Studio's quantization (its
	// compatibility_type "mlx" for MLX bits such as "4bit", else "gguf").
	// llama.cpp and mlx_lm state none but in the model's file or name
	// (SIM_SERVED_MODEL).
	Quantization string `env:"SIM_QUANTIZATION"`

	// Models (SIM_MODELS) is how GET /v1/models answers: ModelsListed (the
	// default, also for ""), the model in the flavor's shape, or
	// ModelsEmpty, status 200 and its headers but no body, as mlx_lm.server
	// 0.32 answers where its Hugging Face cache folder does not exist.
	Models ModelsMode `env:"SIM_MODELS"`

	// Reset (SIM_RESET) says whether the server lets a client return it to
	// a known state: ResetOK (the default, also for "") or ResetRefuse,
	// with which every reset endpoint answers an HTTP error and nothing is
	// cleared.
	Reset ResetMode `env:"SIM_RESET"`

	// NoMetrics (SIM_METRICS=0) turns GET /metrics off (404; 501 and
	// llama-server's error with FlavorLlamaCpp), for testing clients
	// against servers without it. By default the server serves Prometheus
	// metrics in vLLM's names (llama-server's with FlavorLlamaCpp, TGI's with
	// FlavorTGI).
	NoMetrics bool

	// NoPromptTokensDetails (SIM_PROMPT_TOKENS_DETAILS=0) sends the OpenAI
	// usage chunk with "prompt_tokens_details":null, as vLLM started
	// without --enable-prompt-tokens-details: the replies state no cached
	// tokens, which /metrics still counts. By default the usage chunk
	// states them (see Prompt cache).
	NoPromptTokensDetails bool
}

// Flavor is the OpenAI-kind server the simulator imitates: which of the
// endpoints beside the chat it serves, and its context error.
type Flavor string

const (
	// FlavorVLLM plays vLLM: POST /reset_prefix_cache, vLLM's POST
	// /tokenize, GET /version; VLLMFingerprint in the usage chunk.
	FlavorVLLM Flavor = "vllm"
	// FlavorLlamaCpp plays llama.cpp's llama-server: GET /props, GET
	// /slots, POST /slots/{id}?action=erase, llama's POST /tokenize,
	// /metrics in its names; no /version.
	FlavorLlamaCpp Flavor = "llamacpp"
	// FlavorPlain plays a server with none of those.
	FlavorPlain Flavor = "plain"
	// FlavorLMStudio plays LM Studio: GET /api/v0/models (its own model
	// list: arch, quantization, compatibility_type, max_context_length);
	// no Ollama endpoints, no version.
	FlavorLMStudio Flavor = "lmstudio"
	// FlavorMLX plays mlx_lm.server: GET /v1/models lists ids only; no
	// Ollama endpoints, no version endpoint, but MLXFingerprint in every
	// chunk.
	FlavorMLX Flavor = "mlx"
	// FlavorOllama plays Ollama: its native endpoints and its /v1 (the
	// chat, GET /v1/models in Ollama's shape, owned_by "library",
	// OllamaFingerprint in every chunk), none of vLLM's or llama-server's.
	FlavorOllama Flavor = "ollama"
)

// Flavors are the flavors, the default first, then those a file of their
// own adds (addFlavor).
var Flavors = []Flavor{FlavorVLLM, FlavorLlamaCpp, FlavorPlain, FlavorLMStudio, FlavorMLX, FlavorOllama}

// flavorSpec is a flavor of a file of its own, whole: what it serves
// beside the chat and the Ollama endpoints, and its model list's entry.
type flavorSpec struct {
	// noOllama: the server it plays has none of Ollama's endpoints.
	noOllama bool
	// routes adds its own endpoints.
	routes func(s *Server, mux *http.ServeMux)
	// modelsEntry is its model's entry in GET /v1/models; nil: vLLM's.
	modelsEntry func(s *Server) map[string]any
	// metrics answers GET /metrics in its server's names; nil: vLLM's.
	metrics func(s *Server) http.HandlerFunc
}

// flavorSpecs are the flavors of files of their own, by name.
var flavorSpecs = map[Flavor]flavorSpec{}

// addFlavor adds a flavor of a file of its own (called from its init).
func addFlavor(f Flavor, spec flavorSpec) {
	flavorSpecs[f] = spec
	Flavors = append(Flavors, f)
}

// ServesOllama reports whether the flavor serves Ollama's native
// endpoints (/api/chat, /api/version, /api/show, /api/tags, /api/ps) beside
// the OpenAI ones: all but lmstudio, mlx and those of files of their own
// that say so, which play servers that have none.
func (c Config) ServesOllama() bool {
	f := c.flavor()
	return f != FlavorLMStudio && f != FlavorMLX && !flavorSpecs[f].noOllama
}

// ResetMode says whether the server's reset endpoints do their job.
type ResetMode string

const (
	// ResetOK: the reset endpoints clear what they say.
	ResetOK ResetMode = "ok"
	// ResetRefuse: they answer an HTTP error, as a server that does not
	// allow them does, and clear nothing.
	ResetRefuse ResetMode = "refuse"
)

// ModelsMode is how GET /v1/models answers.
type ModelsMode string

const (
	// ModelsListed: the model, in the flavor's shape (the default).
	ModelsListed ModelsMode = "listed"
	// ModelsEmpty: status 200 and headers, then the connection closes
	// with no body, as mlx_lm.server 0.32 does where
	// ~/.cache/huggingface/hub does not exist (its scan of that cache
	// raises after the headers went out).
	ModelsEmpty ModelsMode = "empty"
)

// PrefixCacheMode says whether the server keeps a prompt cache.
type PrefixCacheMode string

const (
	// PrefixCacheOn: a prompt's prefix that an earlier prompt shared is
	// cached (the default).
	PrefixCacheOn PrefixCacheMode = "on"
	// PrefixCacheOff: nothing is cached, as on a server started without
	// a prefix cache (vLLM --no-enable-prefix-caching, llama-server
	// with cache_prompt false).
	PrefixCacheOff PrefixCacheMode = "off"
)

// ModelToolsMode says whether the model takes tools.
type ModelToolsMode string

const (
	// ModelToolsOn: it does (/api/show capabilities ["completion","tools"]).
	ModelToolsOn ModelToolsMode = "on"
	// ModelToolsOff: it does not, as an Ollama model whose chat template
	// never uses .Tools (/api/show capabilities ["completion"]).
	ModelToolsOff ModelToolsMode = "off"
)

// ModelVisionMode says whether the model takes images.
type ModelVisionMode string

const (
	// ModelVisionOn: it does (/api/show capabilities list "vision").
	ModelVisionOn ModelVisionMode = "on"
	// ModelVisionOff: it does not, as a text model.
	ModelVisionOff ModelVisionMode = "off"
)

// ReasoningField is the OpenAI delta field that carries reasoning text.
type ReasoningField string

const (
	// ReasoningContent: delta.reasoning_content (vLLM up to 0.11,
	// llama.cpp, LM Studio).
	ReasoningContent ReasoningField = "reasoning_content"
	// Reasoning: delta.reasoning (vLLM 0.16+, Ollama's /v1, mlx_lm).
	Reasoning ReasoningField = "reasoning"
)

// The settings the server plays: a field's zero value stands for its
// default, which these say once.
func (c Config) flavor() Flavor                   { return cmp.Or(c.Flavor, FlavorVLLM) }
func (c Config) resetMode() ResetMode             { return cmp.Or(c.Reset, ResetOK) }
func (c Config) prefixCacheMode() PrefixCacheMode { return cmp.Or(c.PrefixCache, PrefixCacheOn) }
func (c Config) modelsMode() ModelsMode           { return cmp.Or(c.Models, ModelsListed) }
func (c Config) reasoningField() ReasoningField   { return cmp.Or(c.ReasoningField, ReasoningContent) }
func (c Config) ctxLen() int                      { return cmp.Or(c.Context, ContextLength) }
func (c Config) quantization() string             { return cmp.Or(c.Quantization, DefaultQuantization) }
func (c Config) perChunk() int                    { return max(c.TokensPerChunk, 1) }
func (c Config) every() int                       { return max(c.FaultEvery, 1) }
func (c Config) modelTools() ModelToolsMode       { return cmp.Or(c.ModelTools, ModelToolsOn) }
func (c Config) modelVision() ModelVisionMode     { return cmp.Or(c.ModelVision, ModelVisionOff) }

// version is the version the server states (Config.Version).
func (c Config) version() string {
	if c.flavor() == FlavorMLX {
		return cmp.Or(c.Version, MLXVersion)
	}
	return cmp.Or(c.Version, Version)
}

// mlxFingerprint is the mlx flavor's system_fingerprint.
func (c Config) mlxFingerprint() string { return c.version() + mlxFingerprintTail }

// vllmFingerprint is the vllm flavor's system_fingerprint.
func (c Config) vllmFingerprint() string { return "vllm-" + c.version() + "-sim" }

// toolCalls is how many tool calls a reply to a request with tools makes:
// 0 with NoToolCalls.
func (c Config) toolCalls() int {
	if c.NoToolCalls {
		return 0
	}
	return max(c.ToolCalls, 1)
}

func (c Config) refuses() bool { return c.resetMode() == ResetRefuse }

// numCtxDefault is the num_ctx of an Ollama-kind request that sets none,
// and of the model as loaded at the start.
func (c Config) numCtxDefault() int { return min(DefaultNumCtx, c.ctxLen()) }

// slotCount is the number of slots /props and /slots report: Slots, or 1
// when unlimited.
func (c Config) slotCount() int { return max(c.Slots, 1) }

// listed is the model the listings show.
func (c Config) listed() string { return cmp.Or(c.ServedModel, Model) }

// unserved reports whether a chat request that named model is refused
// because the server serves another: with ServedModel set, the vllm and
// ollama flavors answer 404 for any other name, as vLLM ("The model `x`
// does not exist.") and Ollama ("model \"x\" not found, try pulling it
// first") do; Ollama takes "name" for "name:latest". An empty name is
// served (the simulator's own habit), and the other flavors reply as the
// served model, as llama-server does.
func (c Config) unserved(model string) bool {
	f := c.flavor()
	if c.ServedModel == "" || model == "" || (f != FlavorVLLM && f != FlavorOllama) {
		return false
	}
	if f == FlavorOllama && !strings.Contains(model, ":") {
		model += ":latest"
	}
	served := c.ServedModel
	if f == FlavorOllama && !strings.Contains(served, ":") {
		served += ":latest"
	}
	return model != served
}

// replyModel is what a reply's model field says for a request that named
// model.
func (c Config) replyModel(model string) string { return cmp.Or(c.ServedModel, model, Model) }

// The defaults of the two fields whose zero value is not their default.
const (
	DefaultTTFT         = 50 * time.Millisecond
	DefaultTokensPerSec = 400
)

// DefaultConfig is the Config with no SIM_ variable set (what
// internal/config's LoadSim starts from): TTFT and TokensPerSec their
// defaults, every other field its zero value, which means its default (no
// fault, one token per chunk, no slot limit, /metrics served, ...).
func DefaultConfig() Config {
	return Config{TTFT: DefaultTTFT, TokensPerSec: DefaultTokensPerSec}
}

func errAtLeast1(name string, n int) error { return fmt.Errorf("%s=%d: must be 1 or more", name, n) }

// Validate checks that every field holds a value its variable accepts (see
// the field), 0 standing for the default where the zero value does. Its
// errors name the environment variable, e.g.
// `SIM_TOKENS_PER_SEC=0: must be > 0`,
// `SIM_DEGRADE=2: must be above 0 and at most 1` or
// `SIM_FAULT="bogus": unknown fault; one of reset, …`.
func (c Config) Validate() error {
	return errors.Join(slices.Concat(c.scheduleErrors(), c.faultErrors(), c.generationErrors(), c.serverErrors())...)
}

// scheduleErrors checks the schedule: SIM_TTFT and SIM_TOKENS_PER_SEC.
func (c Config) scheduleErrors() []error {
	var errs []error
	if c.TTFT < 0 {
		errs = append(errs, fmt.Errorf("SIM_TTFT=%v: must be >= 0", c.TTFT))
	}
	switch tps := strconv.FormatFloat(c.TokensPerSec, 'g', -1, 64); {
	case math.IsNaN(c.TokensPerSec):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: not a number", tps))
	case !(c.TokensPerSec > 0):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: must be > 0", tps))
	case math.IsInf(c.TokensPerSec, 0):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: must be finite", tps))
	}
	return errs
}

// faultErrors checks the faults: SIM_FAULT, SIM_FAULT_EVERY and
// SIM_STOP_AFTER.
func (c Config) faultErrors() []error {
	var errs []error
	if err := c.Fault.check(); err != nil {
		errs = append(errs, err)
	}
	if c.FaultEvery < 0 {
		errs = append(errs, errAtLeast1("SIM_FAULT_EVERY", c.FaultEvery))
	}
	if c.StopAfter < 0 {
		errs = append(errs, errAtLeast1("SIM_STOP_AFTER", c.StopAfter))
	}
	return errs
}

// generationErrors checks how replies are generated: SIM_TOKENS_PER_CHUNK,
// SIM_SLOTS, SIM_BATCH_SLOWDOWN, SIM_REASONING_TOKENS,
// SIM_REASONING_FIELD, SIM_PERTURB, SIM_LOGPROBS, SIM_DEGRADE,
// SIM_JITTER, SIM_PREFILL_TPS, SIM_LOAD_TIME and SIM_CONTEXT.
func (c Config) generationErrors() []error {
	var errs []error
	if c.TokensPerChunk < 0 {
		errs = append(errs, errAtLeast1("SIM_TOKENS_PER_CHUNK", c.TokensPerChunk))
	}
	if c.Slots < 0 {
		errs = append(errs, fmt.Errorf("SIM_SLOTS=%d: must be >= 0", c.Slots))
	}
	if c.HTTPThreads < 0 {
		errs = append(errs, fmt.Errorf("SIM_HTTP_THREADS=%d: must be >= 0", c.HTTPThreads))
	}
	switch f := strconv.FormatFloat(c.BatchSlowdown, 'g', -1, 64); {
	case math.IsNaN(c.BatchSlowdown):
		errs = append(errs, fmt.Errorf("SIM_BATCH_SLOWDOWN=%s: not a number", f))
	case c.BatchSlowdown < 0:
		errs = append(errs, fmt.Errorf("SIM_BATCH_SLOWDOWN=%s: must be >= 0", f))
	case math.IsInf(c.BatchSlowdown, 0):
		errs = append(errs, fmt.Errorf("SIM_BATCH_SLOWDOWN=%s: must be finite", f))
	}
	if c.ToolCalls < 0 {
		errs = append(errs, fmt.Errorf("SIM_TOOL_CALLS=%d: must be >= 0 (0: a reply of text, as a model that calls no tool)", c.ToolCalls))
	}
	switch f := strconv.FormatFloat(c.ToolArgsInvalid, 'g', -1, 64); {
	case math.IsNaN(c.ToolArgsInvalid):
		errs = append(errs, fmt.Errorf("SIM_TOOL_ARGS_INVALID=%s: not a number", f))
	case c.ToolArgsInvalid < 0 || c.ToolArgsInvalid > 1:
		errs = append(errs, fmt.Errorf("SIM_TOOL_ARGS_INVALID=%s: must be from 0 to 1 (a fraction of the tool calls)", f))
	}
	if c.ReasoningTokens < 0 {
		errs = append(errs, fmt.Errorf("SIM_REASONING_TOKENS=%d: must be >= 0", c.ReasoningTokens))
	}
	switch c.ReasoningField {
	case "", ReasoningContent, Reasoning:
	default:
		errs = append(errs, fmt.Errorf("SIM_REASONING_FIELD=%q: want %s or %s", c.ReasoningField, ReasoningContent, Reasoning))
	}
	switch f := strconv.FormatFloat(c.Perturb, 'g', -1, 64); {
	case math.IsNaN(c.Perturb):
		errs = append(errs, fmt.Errorf("SIM_PERTURB=%s: not a number", f))
	case c.Perturb < 0 || c.Perturb > 1:
		errs = append(errs, fmt.Errorf("SIM_PERTURB=%s: must be from 0 to 1 (the share of tokens where the reply says its second word)", f))
	}
	switch c.Logprobs {
	case "", LogprobsOn, LogprobsOff:
	default:
		errs = append(errs, fmt.Errorf("SIM_LOGPROBS=%q: want %s or %s", c.Logprobs, LogprobsOn, LogprobsOff))
	}
	switch f := strconv.FormatFloat(c.Degrade, 'g', -1, 64); {
	case math.IsNaN(c.Degrade):
		errs = append(errs, fmt.Errorf("SIM_DEGRADE=%s: not a number", f))
	case c.Degrade < 0 || c.Degrade > 1:
		errs = append(errs, fmt.Errorf("SIM_DEGRADE=%s: must be above 0 and at most 1", f))
	}
	switch f := strconv.FormatFloat(c.Jitter, 'g', -1, 64); {
	case math.IsNaN(c.Jitter):
		errs = append(errs, fmt.Errorf("SIM_JITTER=%s: not a number", f))
	case c.Jitter < 0 || c.Jitter > 1:
		errs = append(errs, fmt.Errorf("SIM_JITTER=%s: must be from 0 to 1 (0.03 spreads each reply's timing by about 3%%)", f))
	}
	switch f := strconv.FormatFloat(c.PrefillTPS, 'g', -1, 64); {
	case math.IsNaN(c.PrefillTPS):
		errs = append(errs, fmt.Errorf("SIM_PREFILL_TPS=%s: not a number", f))
	case c.PrefillTPS < 0:
		errs = append(errs, fmt.Errorf("SIM_PREFILL_TPS=%s: must be >= 0", f))
	case math.IsInf(c.PrefillTPS, 0):
		errs = append(errs, fmt.Errorf("SIM_PREFILL_TPS=%s: must be finite", f))
	}
	if c.LoadTime < 0 {
		errs = append(errs, fmt.Errorf("SIM_LOAD_TIME=%v: must be >= 0", c.LoadTime))
	}
	if c.Context < 0 {
		errs = append(errs, errAtLeast1("SIM_CONTEXT", c.Context))
	}
	return errs
}

// serverErrors checks the server it plays and its habits: SIM_FLAVOR,
// SIM_VERSION, SIM_QUANTIZATION, SIM_RESET, SIM_PREFIX_CACHE, SIM_MODELS,
// SIM_MODEL_TOOLS, SIM_MODEL_VISION and SIM_TOOLS_HELD.
func (c Config) serverErrors() []error {
	var errs []error
	if c.Flavor != "" && !slices.Contains(Flavors, c.Flavor) {
		names := make([]string, len(Flavors))
		for i, f := range Flavors {
			names[i] = string(f)
		}
		errs = append(errs, fmt.Errorf("SIM_FLAVOR=%q: want %s or %s", c.Flavor, strings.Join(names[:len(names)-1], ", "), names[len(names)-1]))
	}
	if v := c.Version; len(v) > 100 || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == '"' || r == '\\' || r == 0x7f }) {
		errs = append(errs, fmt.Errorf("SIM_VERSION=%q: want a version on one line, at most 100 characters, without quotes or backslashes, e.g. 0.7.0", v))
	}
	if q := c.Quantization; len(q) > 40 || strings.ContainsAny(q, " \t\r\n\"") {
		errs = append(errs, fmt.Errorf("SIM_QUANTIZATION=%q: want a quantization's name, e.g. Q4_K_M or 4bit", q))
	}
	switch c.Reset {
	case "", ResetOK, ResetRefuse:
	default:
		errs = append(errs, fmt.Errorf("SIM_RESET=%q: want %s or %s", c.Reset, ResetOK, ResetRefuse))
	}
	switch c.PrefixCache {
	case "", PrefixCacheOn, PrefixCacheOff:
	default:
		errs = append(errs, fmt.Errorf("SIM_PREFIX_CACHE=%q: want %s or %s", c.PrefixCache, PrefixCacheOn, PrefixCacheOff))
	}
	switch c.Models {
	case "", ModelsListed, ModelsEmpty:
	default:
		errs = append(errs, fmt.Errorf("SIM_MODELS=%q: want %s or %s", c.Models, ModelsListed, ModelsEmpty))
	}
	switch c.ModelTools {
	case "", ModelToolsOn, ModelToolsOff:
	default:
		errs = append(errs, fmt.Errorf("SIM_MODEL_TOOLS=%q: want %s or %s", c.ModelTools, ModelToolsOn, ModelToolsOff))
	}
	switch c.ModelVision {
	case "", ModelVisionOn, ModelVisionOff:
	default:
		errs = append(errs, fmt.Errorf("SIM_MODEL_VISION=%q: want %s or %s", c.ModelVision, ModelVisionOn, ModelVisionOff))
	}
	// Both play Ollama: a server without its endpoints has neither habit.
	if !c.ServesOllama() {
		if c.ModelTools == ModelToolsOff {
			errs = append(errs, fmt.Errorf("SIM_MODEL_TOOLS=%s: SIM_FLAVOR=%s plays a server without Ollama's API (its /api/show capabilities); use SIM_FLAVOR ollama, vllm, llamacpp or plain", c.ModelTools, c.Flavor))
		}
		if c.ToolsHeld {
			errs = append(errs, fmt.Errorf("SIM_TOOLS_HELD=true: SIM_FLAVOR=%s plays a server that is not Ollama; use SIM_FLAVOR ollama, vllm, llamacpp or plain", c.Flavor))
		}
	}
	return errs
}

// maxOffset bounds Offset so that time arithmetic cannot overflow (about
// 146 years).
const maxOffset = time.Duration(math.MaxInt64 / 2)

// Offset is when, after t0, token i is due; Offset(m) is when the final
// chunk(s) of an m-token reply are. It is TTFT + i/TokensPerSec, rounded to
// the nanosecond. (With BatchSlowdown the decode steps depend on the
// streams decoding at once, with Degrade the rate may be lower, and with
// PrefillTPS or LoadTime a reply's first token may come later: see the
// package documentation.)
func (c Config) Offset(i int) time.Duration {
	d := c.TTFT + c.decode(i)
	if d < c.TTFT { // overflow
		return math.MaxInt64
	}
	return d
}

// satAdd is a + b (both >= 0), at most maxOffset.
func satAdd(a, b time.Duration) time.Duration {
	if a > maxOffset-b {
		return maxOffset
	}
	return a + b
}

func (c Config) decode(i int) time.Duration { return decodeAt(i, c.TokensPerSec) }

func decodeAt(i int, rate float64) time.Duration {
	d := math.Round(float64(i) * 1e9 / rate)
	if !(d < float64(maxOffset)) { // also catches NaN
		return maxOffset
	}
	return time.Duration(d)
}

// Setting is a SIM_ variable as a command line offers it (cmd/sim's
// flags): its name, its default and what it sets, in a line each.
type Setting struct {
	Var     string // e.g. "SIM_TTFT"
	Default string // e.g. "50ms", as docs/simulator.md's settings table says it
	Usage   string // what it sets
	Bool    bool   // a boolean: 1 or 0, true or false
}

// Settings are the SIM_ variables, in the order of internal/config's
// SimVariables (Config's fields, then SIM_METRICS and
// SIM_PROMPT_TOKENS_DETAILS), each with its default and a line on what it
// sets (see the package documentation's Settings for the whole story).
func Settings() []Setting { return slices.Clone(settings) }

var settings = []Setting{
	{Var: "SIM_TTFT", Default: "50ms", Usage: "time from a request (or its slot) to its first token"},
	{Var: "SIM_TOKENS_PER_SEC", Default: "400", Usage: "decode rate, tokens per second"},
	{Var: "SIM_FAULT", Default: "(none)", Usage: "misbehave on purpose: reset, stall, truncate, malformed, keepalive, … or http-NNN"},
	{Var: "SIM_FAULT_EVERY", Default: "1", Usage: "the fault hits every N-th chat request"},
	{Var: "SIM_SERVED_MODEL", Default: "(echo the request)", Usage: "every reply names this model, and the listings list it"},
	{Var: "SIM_TEXT_SEED", Default: "0", Usage: "another number gives every reply other words and every embedding other numbers, as a new model or version"},
	{Var: "SIM_PERTURB", Default: "0", Usage: "share, 0 to 1, of tokens where a reply says its second most likely word (a model that answers differently)"},
	{Var: "SIM_LOGPROBS", Default: "on", Usage: "off: ignore a request's log-probability fields, as LM Studio and Ollama before 0.12.11 (unset: off for SIM_FLAVOR lmstudio and for ollama at a SIM_VERSION before 0.12.11)"},
	{Var: "SIM_STOP_AFTER", Default: "(off)", Usage: "replies end after N tokens with finish reason stop"},
	{Var: "SIM_REASONING_TOKENS", Default: "0", Usage: "the first N tokens of every reply are reasoning text"},
	{Var: "SIM_REASONING_FIELD", Default: "reasoning_content", Usage: "the OpenAI delta field of reasoning text: reasoning_content or reasoning"},
	{Var: "SIM_TOOL_CALLS", Default: "1", Usage: "tool calls in a reply to a request with tools (0: text)"},
	{Var: "SIM_MODEL_TOOLS", Default: "on", Usage: "off: the model takes no tools (Ollama's 400)"},
	{Var: "SIM_MODEL_VISION", Default: "off", Usage: "on: the model takes images (a chat request's image parts); off, they are refused as Ollama, llama-server and vLLM refuse them"},
	{Var: "SIM_TOOLS_HELD", Default: "0 (false)", Usage: "hold back a streamed reply to a request with tools until its end, as Ollama before 0.8", Bool: true},
	{Var: "SIM_TOOL_ARGS_INVALID", Default: "0", Usage: "fraction, 0 to 1, of tool calls whose arguments are broken JSON"},
	{Var: "SIM_TOKENS_PER_CHUNK", Default: "1", Usage: "tokens' text per chunk"},
	{Var: "SIM_CLOSE_AFTER_STREAM", Default: "0 (false)", Usage: "close the connection after every streamed reply, as llama-server", Bool: true},
	{Var: "SIM_HTTP_THREADS", Default: "0 (no limit)", Usage: "serve at most N connections at once, as llama-server's --threads-http: one held open (idle up to 5s) keeps its thread, one beyond waits"},
	{Var: "SIM_SLOTS", Default: "0 (unlimited)", Usage: "at most N requests decode at once; the others queue"},
	{Var: "SIM_BATCH_SLOWDOWN", Default: "0", Usage: "with m streams decoding, each at rate/(1 + f·(m−1))"},
	{Var: "SIM_DEGRADE", Default: "0 (off)", Usage: "F in (0,1]: once two requests decoded at once, later ones decode at F × rate until a reset"},
	{Var: "SIM_JITTER", Default: "0 (off)", Usage: "σ of each reply's TTFT and decode rate, a log-normal factor drawn apart (0.03: about 3%)"},
	{Var: "SIM_PREFILL_TPS", Default: "0 (off)", Usage: "prompt rate: the first token also waits uncached prompt tokens / rate"},
	{Var: "SIM_PREFIX_CACHE", Default: "on", Usage: "the prompt cache: on or off"},
	{Var: "SIM_LOAD_TIME", Default: "0", Usage: "how long a model load takes (the first request after an unload waits it)"},
	{Var: "SIM_CONTEXT", Default: "40960", Usage: "the model's context length, in tokens"},
	{Var: "SIM_FLAVOR", Default: "vllm", Usage: "the server played: vllm, llamacpp, ollama, mlx, … (a name it does not know lists them all)"},
	{Var: "SIM_VERSION", Default: "sim-1 (mlx: 0.32.2)", Usage: "the version the server states, where its flavor's server states one (e.g. 0.7.0)"},
	{Var: "SIM_QUANTIZATION", Default: "Q4_K_M", Usage: "the weights' quantization the metadata states"},
	{Var: "SIM_MODELS", Default: "listed", Usage: "empty: GET /v1/models answers 200 with no body, as mlx_lm.server without its cache folder"},
	{Var: "SIM_RESET", Default: "ok", Usage: "refuse: every reset endpoint answers an error"},
	{Var: "SIM_METRICS", Default: "1 (served)", Usage: "0: no GET /metrics", Bool: true},

	// Read apart from Config, as SIM_METRICS.
	{Var: "SIM_PROMPT_TOKENS_DETAILS", Default: "1 (stated)", Usage: "0: the usage chunk's prompt_tokens_details is null, as vLLM without --enable-prompt-tokens-details", Bool: true},
}
