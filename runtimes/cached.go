package runtimes

import (
	"encoding/json"
	"strings"
)

// CachedSource is where a reply states how many of its prompt tokens
// came from the server's prompt cache. Servers, and a server's versions,
// state it in different places: llama-server (recent builds) in usage and
// in its last chunk's timings.cache_n, an older build (b1-4227c9b, August
// 2025) in neither, only as usage.prompt_tokens less timings.prompt_n
// (the tokens it evaluated). The values are the summary's words
// (cached_prompt_tokens_source) and are never renamed.
type CachedSource string

const (
	// CachedUsage is the API's usage: the chat's and the completions'
	// usage.prompt_tokens_details.cached_tokens (vLLM with
	// --enable-prompt-tokens-details, SGLang with --enable-cache-report,
	// mlx_lm.server, llama-server).
	CachedUsage CachedSource = "usage.prompt_tokens_details.cached_tokens"
	// CachedInputDetails is the Responses API's usage
	// (input_tokens_details.cached_tokens), and CachedReadInput the
	// Messages API's (cache_read_input_tokens): each in CachedUsage's
	// place in an order.
	CachedInputDetails CachedSource = "usage.input_tokens_details.cached_tokens"
	CachedReadInput    CachedSource = "usage.cache_read_input_tokens"
	// CachedTimings is llama-server's last chunk's timings.cache_n.
	CachedTimings CachedSource = "timings.cache_n"
	// CachedPromptLessEvaluated is usage.prompt_tokens (every prompt
	// token) less timings.prompt_n (those llama-server evaluated): what
	// an older llama-server's replies state of its cache, and nothing
	// more.
	CachedPromptLessEvaluated CachedSource = "usage.prompt_tokens-timings.prompt_n"
)

// CachedSources are the sources a reply may state, in DefaultCachedOrder.
var CachedSources = []CachedSource{CachedUsage, CachedInputDetails, CachedReadInput, CachedTimings, CachedPromptLessEvaluated}

// DefaultCachedOrder is the order in which the sources are read for a
// server whose descriptor lists none (Server.Cached), or that is not
// known: the API's usage, then llama-server's timings, then its counts'
// difference. (CachedInputDetails and CachedReadInput, each its API's
// usage, are read in CachedUsage's place.)
var DefaultCachedOrder = []CachedSource{CachedUsage, CachedTimings, CachedPromptLessEvaluated}

// slot is the place of s in an order: the Responses and Messages APIs'
// usage take that of the chat's.
func (s CachedSource) slot() CachedSource {
	if s == CachedInputDetails || s == CachedReadInput {
		return CachedUsage
	}
	return s
}

// statedCached is what a reply stated of its cached tokens, by source
// (one entry a slot of an order).
type statedCached struct {
	usage, timings, less cachedCount
}

type cachedCount struct {
	src CachedSource // "": not stated
	n   int
}

// state records that the reply stated n cached tokens at src; a negative
// count is a broken one, not stated.
func (st *statedCached) state(src CachedSource, n int) {
	if n < 0 {
		return
	}
	c := cachedCount{src, n}
	switch src.slot() {
	case CachedUsage:
		st.usage = c
	case CachedTimings:
		st.timings = c
	case CachedPromptLessEvaluated:
		st.less = c
	}
}

func (st *statedCached) of(src CachedSource) cachedCount {
	switch src.slot() {
	case CachedUsage:
		return st.usage
	case CachedTimings:
		return st.timings
	case CachedPromptLessEvaluated:
		return st.less
	}
	return cachedCount{}
}

// pickCached sets r's cached tokens and their source from the first
// source of order that the reply stated; none: not reported.
func (r *Result) pickCached(order []CachedSource) {
	r.CachedTokens, r.CachedReported, r.CachedSource = 0, false, ""
	for _, src := range order {
		if c := r.stated.of(src); c.src != "" {
			r.CachedTokens, r.CachedReported, r.CachedSource = c.n, true, c.src
			return
		}
	}
}

// cachedOrder is the order of the server's descriptor, or
// DefaultCachedOrder where it lists none.
func (s Server) cachedOrder() []CachedSource {
	if len(s.Cached) == 0 {
		return DefaultCachedOrder
	}
	return s.Cached
}

// CachedOrder is the order in which this runtime's replies' cached
// tokens are read: its server's (Server.Cached), once known, by the
// runtime's name ("llamacpp", or "llamacpp@…"), its protocol (Ollama's),
// or its answers to Describe (llama-server's /props); else
// DefaultCachedOrder.
func (rt *Runtime) CachedOrder() []CachedSource {
	if s := rt.server.Load(); s != nil {
		return s.cachedOrder()
	}
	return DefaultCachedOrder
}

// knownFrom sets the runtime's server from its name or protocol, as New
// finds them.
func (rt *Runtime) knownFrom(name string) {
	base, _, _ := strings.Cut(name, "@")
	for _, n := range []string{base, rt.Protocol().Server} {
		if s, ok := KnownServer(n); ok {
			rt.server.Store(&s)
			return
		}
	}
}

// serverAnswered sets the runtime's server to the one whose own endpoint
// answered in its shape among bodies (Describe's), Ollama's last: an
// OpenAI-kind server that answers Ollama's endpoint too is Ollama only
// when it is no other (the simulator answers it in every flavor). A
// server known by the runtime's name is kept.
func (rt *Runtime) serverAnswered(bodies map[string]json.RawMessage) {
	if rt.server.Load() != nil {
		return
	}
	for _, s := range byOllamaLast() {
		var m map[string]json.RawMessage
		if s.Endpoint == "" || s.is == nil || json.Unmarshal(bodies[s.Endpoint], &m) != nil || !s.is(m) {
			continue
		}
		rt.server.Store(&s)
		return
	}
}
