package runtimes

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
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
)

// Server is a server the suite knows by name: the runtime name it goes by
// (BENCH_RUNTIMES=ollama), the product, the protocol it speaks and the
// local port it listens on by default, and the endpoint whose answer
// proves it is that server.
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
}

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
	{Name: ServerOllama, Product: "Ollama", Kind: KindOllama, Port: 11434, Endpoint: pathOllamaVersion, is: func(m map[string]json.RawMessage) bool {
		var v string
		return json.Unmarshal(m["version"], &v) == nil && v != ""
	}},
	{Name: ServerVLLM, Product: "vLLM", Kind: KindOpenAI, Port: 8000},
	{Name: ServerLlamaCpp, Product: "llama-server", Kind: KindOpenAI, Port: 8080, Endpoint: pathProps, is: func(m map[string]json.RawMessage) bool {
		return has(m, "build_info") || has(m, "total_slots") || has(m, "default_generation_settings")
	}},
	// LM Studio answers an unknown endpoint with 200 and {"error":…}:
	// the shape, not the status, names the server.
	{Name: ServerLMStudio, Product: "LM Studio", Kind: KindOpenAI, Port: 1234, Endpoint: pathLMStudioModels, is: func(m map[string]json.RawMessage) bool {
		var data []json.RawMessage
		return json.Unmarshal(m["data"], &data) == nil && m["data"] != nil && !has(m, "error")
	}},
	{Name: ServerSGLang, Product: "SGLang", Kind: KindOpenAI, Port: 30000},
	{Name: ServerMLX, Product: "mlx_lm.server", Kind: KindOpenAI, Port: 8080},
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

// Probe is what a server's answers to Runtime.Probe say of it.
type Probe struct {
	// Answered: one of the endpoints asked answered with a success.
	Answered bool
	// Says are the servers (IdentifiedServers, in their order) whose own
	// endpoint answered in its shape; none for a server that answers only
	// the OpenAI endpoints (vLLM, SGLang, mlx_lm.server). The simulator,
	// which serves Ollama's endpoints whatever its flavor, says two.
	Says []string
}

// Is reports whether the answers name server.
func (p Probe) Is(server string) bool {
	for _, s := range p.Says {
		if s == server {
			return true
		}
	}
	return false
}

// probeEndpoints are the GETs of a probe, each with the test its reply
// must pass to name its server ("": it only shows that a server answers):
// /v1/models, then each identified server's own endpoint.
var probeEndpoints = probes()

type probeEndpoint struct {
	path, server string
	is           func(map[string]json.RawMessage) bool
}

func probes() []probeEndpoint {
	list := []probeEndpoint{{"/v1/models", "", func(m map[string]json.RawMessage) bool { return true }}}
	for _, name := range IdentifiedServers {
		s, _ := KnownServer(name)
		list = append(list, probeEndpoint{s.Endpoint, s.Name, s.is})
	}
	return list
}

func has(m map[string]json.RawMessage, key string) bool {
	v, ok := m[key]
	return ok && string(v) != "null"
}

// Probe asks the server, all at once and within ctx's deadline, the
// endpoints that tell servers apart, and says which answered how. A
// server that does not answer in time is not Answered.
func (rt *Runtime) Probe(ctx context.Context) Probe {
	said := make([]bool, len(probeEndpoints))
	answered := make([]bool, len(probeEndpoints))
	var wg sync.WaitGroup
	for i, e := range probeEndpoints {
		wg.Go(func() {
			body, err := rt.get(ctx, http.MethodGet, e.path, nil)
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) != nil {
				return
			}
			answered[i] = !has(m, "error")
			said[i] = e.is(m)
		})
	}
	wg.Wait()
	var p Probe
	for _, server := range IdentifiedServers {
		for i, e := range probeEndpoints {
			if e.server == server && said[i] {
				p.Says = append(p.Says, server)
			}
		}
	}
	for i := range probeEndpoints {
		p.Answered = p.Answered || answered[i]
	}
	return p
}
