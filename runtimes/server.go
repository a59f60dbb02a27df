package runtimes

// The servers the suite knows, each one descriptor (Server) in
// KnownServers: what names it, where it states its version, models and
// context limit, how it is returned to a known state, and where its own
// counts and timings come from. Adding a server is adding an entry here.

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// The servers whose answers name them: each has an endpoint no other
// server of the suite answers in its shape (Server.Endpoint).
const (
	// ServerLlamaCpp is llama.cpp's llama-server: GET /props with its
	// build_info, total_slots or default_generation_settings.
	ServerLlamaCpp = "llamacpp"
	// ServerLMStudio is LM Studio: GET /api/v0/models, a list.
	ServerLMStudio = "lmstudio"
	// ServerOllama is Ollama: GET /api/version with a version.
	ServerOllama = "ollama"
	// ServerTGI is Hugging Face's text-generation-inference, through its
	// OpenAI-compatible chat: GET /info with model_id and
	// max_total_tokens.
	ServerTGI = "tgi"
)

// The servers that answer the OpenAI endpoints only: their answers do
// not name them.
const (
	// ServerVLLM is vLLM (and vllm-metal, run under another name).
	ServerVLLM = "vllm"
	// ServerSGLang is SGLang.
	ServerSGLang = "sglang"
	// ServerMLX is mlx_lm.server, on llama-server's port.
	ServerMLX = "mlx"
)

// The endpoints that name a server, each answered in its shape by one
// server only; Describe asks them too, for what they say of the server.
const (
	pathProps          = "/props"
	pathLMStudioModels = "/api/v0/models"
	pathOllamaVersion  = "/api/version"
	pathVersion        = "/version"
	pathTGIInfo        = "/info"
)

// Server is a server the suite knows by name, in one entry: the runtime
// name it goes by (BENCH_RUNTIMES=ollama), the product, the protocol it
// speaks and the local port it listens on by default, the endpoint whose
// answer proves it is that server, where it states its version, its
// models and its context limit, how it is returned to a known state and
// what that needs, its Prometheus metrics' prefix, and where its cached
// prompt tokens and its own decode timing come from.
type Server struct {
	Name    string // the runtime name, e.g. "ollama"
	Product string // how messages name the server, e.g. "Ollama"
	Kind    Kind
	Port    int // the local port it listens on by default
	// Endpoint is the GET only this server answers in its shape (is
	// tests the shape); "" for a server that answers the OpenAI
	// endpoints only.
	Endpoint string
	is       func(map[string]json.RawMessage) bool

	// Version is where the server states its version: a GET and the
	// string field of its JSON answer; zero where its API has none (LM
	// Studio; mlx_lm.server states it in its system_fingerprint).
	Version Field
	// Models is where it lists the models it serves; AnyModel: it serves
	// its one model whatever a request names (so a name it does not list
	// is no error).
	Models   string
	AnyModel bool
	// Meta is a GET whose answer Describe keeps in Info.Models under
	// Meta.Field ("props", "lmstudio", "info"); meta picks what of it to
	// keep for the model. Zero for none.
	Meta Field
	meta func(body json.RawMessage, model string) json.RawMessage
	// Context says where its context limit is read; context reads it
	// from Info.Models (see Info.ContextLimit).
	Context string
	context func(models map[string]json.RawMessage, model string) (int, string)

	// Fresh is how it is returned to a known state between leaves, and
	// FreshNeeds what that needs of the way it was started ("" for
	// nothing). freshCheck tells, asking only endpoints that change
	// nothing, whether the server answering is one that has the way.
	Fresh      FreshWay
	FreshNeeds string
	freshCheck func(ctx context.Context, rt *Runtime) bool

	// MetricsPrefix is the prefix of its Prometheus /metrics names ("" for
	// a server without /metrics).
	MetricsPrefix string
	// Cached are where its replies state their cached prompt tokens, in
	// the order they are read (the first stated wins; each version states
	// some of them), and CachedNeeds what that needs of the way it was
	// started; none: DefaultCachedOrder, for a server whose replies state
	// none (Ollama counts them within prompt_eval_count, LM Studio and
	// TGI state none).
	Cached      []CachedSource
	CachedNeeds string
	// DecodeTiming is its own timing of the decode ("" for none).
	DecodeTiming string
}

// Field is a field of an endpoint's JSON answer: a GET's path and the
// key.
type Field struct{ Path, Key string }

// URL is where the server listens by default: on the loopback address,
// at its port.
func (s Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.Port) }

// Proof is the endpoint that names the server, for a message: "Ollama's
// GET /api/version"; "" for a server without one.
func (s Server) Proof() string {
	if s.Endpoint == "" {
		return ""
	}
	return s.Product + "'s GET " + s.Endpoint
}

// KnownServers are the servers the suite knows, in the order it probes
// their ports when BENCH_RUNTIMES is unset. Two share a port (llama-server
// and mlx_lm.server, 8080): Probe's answers tell them apart.
var KnownServers = []Server{
	{
		Name: ServerOllama, Product: "Ollama", Kind: KindOllama, Port: 11434,
		Endpoint: pathOllamaVersion, is: func(m map[string]json.RawMessage) bool {
			var v string
			return json.Unmarshal(m["version"], &v) == nil && v != ""
		},
		Version: Field{pathOllamaVersion, "version"}, Models: "/api/tags",
		Context: "/api/show model_info <architecture>.context_length", context: showContext,
		Fresh: FreshUnload, freshCheck: answers(pathOllamaVersion),
		DecodeTiming: "the final line's eval_count and eval_duration",
	},
	{
		Name: ServerVLLM, Product: "vLLM", Kind: KindOpenAI, Port: 8000,
		Version: Field{pathVersion, "version"}, Models: "/v1/models",
		Context: "/v1/models max_model_len", context: listContext,
		Fresh: FreshResetPrefixCache, FreshNeeds: "VLLM_SERVER_DEV_MODE=1 (POST /reset_prefix_cache is served in development mode only)",
		freshCheck:    answers(pathVersion),
		MetricsPrefix: "vllm:",
		Cached:        []CachedSource{CachedUsage}, CachedNeeds: "--enable-prompt-tokens-details",
		DecodeTiming: "/metrics vllm:request_decode_time_seconds",
	},
	{
		Name: ServerLlamaCpp, Product: "llama-server", Kind: KindOpenAI, Port: 8080,
		Endpoint: pathProps, is: func(m map[string]json.RawMessage) bool {
			return has(m, "build_info") || has(m, "total_slots") || has(m, "default_generation_settings")
		},
		Version: Field{pathProps, "build_info"}, Models: "/v1/models", AnyModel: true,
		Meta: Field{pathProps, "props"}, meta: func(b json.RawMessage, _ string) json.RawMessage { return props(b) },
		Context: "/props default_generation_settings.n_ctx (a slot's), else n_ctx", context: propsContext,
		Fresh: FreshEraseSlots, FreshNeeds: "--slot-save-path DIR (slot actions are served only with it)",
		freshCheck:    func(ctx context.Context, rt *Runtime) bool { return rt.slotCount(ctx) > 0 },
		MetricsPrefix: "llamacpp:",
		// Recent builds state both of the first two; b1-4227c9b (August
		// 2025) neither, only usage.prompt_tokens and timings.prompt_n.
		Cached:       []CachedSource{CachedUsage, CachedTimings, CachedPromptLessEvaluated},
		DecodeTiming: "the last chunk's timings.predicted_n and predicted_ms",
	},
	// LM Studio answers an unknown endpoint with 200 and {"error":…}:
	// the shape, not the status, names the server.
	{
		Name: ServerLMStudio, Product: "LM Studio", Kind: KindOpenAI, Port: 1234,
		Endpoint: pathLMStudioModels, is: func(m map[string]json.RawMessage) bool {
			var data []json.RawMessage
			return json.Unmarshal(m["data"], &data) == nil && m["data"] != nil && !has(m, "error")
		},
		Models: "/v1/models",
		Meta:   Field{pathLMStudioModels, "lmstudio"}, meta: lmstudioEntry,
		Context: "/api/v0/models loaded_context_length, else max_context_length (the served model's)",
		Fresh:   FreshNone,
	},
	{
		Name: ServerSGLang, Product: "SGLang", Kind: KindOpenAI, Port: 30000,
		Version: Field{pathVersion, "version"}, Models: "/v1/models",
		Fresh: FreshFlushCache, freshCheck: answers(pathVersion),
		MetricsPrefix: "sglang:",
		Cached:        []CachedSource{CachedUsage}, CachedNeeds: "--enable-cache-report",
	},
	{
		Name: ServerMLX, Product: "mlx_lm.server", Kind: KindOpenAI, Port: 8080,
		Models: "/v1/models", Fresh: FreshNone,
		Cached: []CachedSource{CachedUsage},
	},
	// text-generation-inference's launcher listens on 3000 (its Docker
	// image on 80, usually published as 8080: the probe names it there by
	// its /info too).
	{
		Name: ServerTGI, Product: "text-generation-inference", Kind: KindOpenAI, Port: 3000,
		Endpoint: pathTGIInfo, is: func(m map[string]json.RawMessage) bool {
			return has(m, "model_id") && has(m, "max_total_tokens")
		},
		Version: Field{pathTGIInfo, "version"}, Models: "/v1/models", AnyModel: true,
		Meta: Field{pathTGIInfo, "info"}, meta: func(b json.RawMessage, _ string) json.RawMessage { return b },
		Context: "/info max_total_tokens", context: func(m map[string]json.RawMessage, _ string) (int, string) {
			var info struct {
				MaxTotalTokens int `json:"max_total_tokens"`
			}
			_ = json.Unmarshal(m["info"], &info)
			return info.MaxTotalTokens, "/info max_total_tokens"
		},
		Fresh:         FreshNone,
		MetricsPrefix: "tgi_",
		DecodeTiming:  "/metrics tgi_request_mean_time_per_token_duration",
	},
}

// KnownServer returns the known server of that runtime name.
func KnownServer(name string) (Server, bool) {
	for _, s := range KnownServers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// IdentifiedServers are the servers Probe can name by their answers (the
// known servers with an Endpoint), in the order of their names, as
// Probe.Says lists them.
var IdentifiedServers = identified()

func identified() []string {
	var names []string
	for _, s := range KnownServers {
		if s.Endpoint != "" {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return names
}

// MetricsPrefixes are the known servers' metrics prefixes, in their
// order.
func MetricsPrefixes() []string {
	var list []string
	for _, s := range KnownServers {
		if s.MetricsPrefix != "" && !slices.Contains(list, s.MetricsPrefix) {
			list = append(list, s.MetricsPrefix)
		}
	}
	return list
}

// byOwnFirst are the known servers in the order their facts (version,
// context limit) are read where more than one server's endpoints answer
// (the simulator serves Ollama's beside another's): a server's own
// endpoint first, then Ollama's, then what the OpenAI model list says.
func byOwnFirst() []Server {
	return ranked(func(s Server) int {
		switch {
		case s.Kind == KindOllama:
			return 1
		case s.Endpoint == "":
			return 2
		}
		return 0
	})
}

// byOllamaLast are the known servers in the order their ways to a fresh
// state are tried: Ollama's last, as an OpenAI-kind server that answers
// its endpoints is Ollama's /v1 only when it is no other.
func byOllamaLast() []Server {
	return ranked(func(s Server) int {
		if s.Kind == KindOllama {
			return 1
		}
		return 0
	})
}

func ranked(rank func(Server) int) []Server {
	list := slices.Clone(KnownServers)
	slices.SortStableFunc(list, func(a, b Server) int { return cmp.Compare(rank(a), rank(b)) })
	return list
}

// answers is a freshCheck: the server answers GET path.
func answers(path string) func(ctx context.Context, rt *Runtime) bool {
	return func(ctx context.Context, rt *Runtime) bool {
		_, err := rt.get(ctx, http.MethodGet, path, nil)
		return err == nil
	}
}
