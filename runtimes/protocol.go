package runtimes

import (
	"context"
	"net/http"
	"slices"
)

// Protocol is one wire protocol, a value: how it builds a request and
// reads its stream, and what it can ask of a server that the other
// cannot (Ollama's num_ctx, the OpenAI servers' ignore_eos). Every
// difference between the two kinds is a field here, not a branch on Kind
// in the packages that use them.
type Protocol struct {
	Kind Kind
	// Chat is the streaming chat endpoint.
	Chat string
	// NumCtx: a request can set the context the model is loaded with
	// (Ollama's options.num_ctx).
	NumCtx bool
	// IgnoreEOS: a request can ask for exactly its max tokens
	// (ignore_eos: vLLM, SGLang, llama.cpp; the Ollama API has none).
	IgnoreEOS bool
	// Server is the one server whose own API this is ("" for an API many
	// servers speak): Describe asks only that server's endpoints, and the
	// fresh state, tags and loaded model are that server's.
	Server string
	// Tokenize: the protocol's servers may have a tokenize endpoint
	// (Ollama's native API has none).
	Tokenize bool
	// Embed is the embeddings endpoint (BENCH_API=embeddings).
	Embed string
	// KeepAlive: a request can say how long the model stays loaded
	// (Ollama's keep_alive); the others are sent encoding_format instead.
	KeepAlive bool

	build func(rt *Runtime, ctx context.Context, path string, req Request) (*http.Request, error)
	read  streamReader
}

// Ollama is Ollama's native chat API: POST /api/chat, NDJSON.
var Ollama = Protocol{
	Kind: KindOllama, Chat: "/api/chat", NumCtx: true, Server: ServerOllama,
	Embed: "/api/embed", KeepAlive: true,
	build: (*Runtime).ollamaRequest, read: readOllama,
}

// OpenAI is the OpenAI-compatible chat completions API: POST
// /v1/chat/completions, server-sent events.
var OpenAI = Protocol{
	Kind: KindOpenAI, Chat: "/v1/chat/completions", IgnoreEOS: true, Tokenize: true,
	Embed: "/v1/embeddings",
	build: (*Runtime).openAIRequest, read: readOpenAI,
}

// Protocols are the protocols the suite speaks, the default (OpenAI)
// first.
var Protocols = []*Protocol{&OpenAI, &Ollama}

// ProtocolOf returns the protocol of kind; false for a kind no protocol
// has.
func ProtocolOf(kind Kind) (*Protocol, bool) {
	i := slices.IndexFunc(Protocols, func(p *Protocol) bool { return p.Kind == kind })
	if i < 0 {
		return nil, false
	}
	return Protocols[i], true
}

// Kinds are the protocols' kinds, in the order of Protocols.
func Kinds() []Kind {
	kinds := make([]Kind, len(Protocols))
	for i, p := range Protocols {
		kinds[i] = p.Kind
	}
	return kinds
}

// Protocol is the runtime's protocol (OpenAI for a kind it does not
// know, as New's callers check kinds).
func (rt *Runtime) Protocol() *Protocol {
	if p, ok := ProtocolOf(rt.Kind); ok {
		return p
	}
	return &OpenAI
}
