// Package runtimes talks to inference servers and measures each request.
//
// Two protocol kinds cover every runtime we benchmark: KindOllama, Ollama's
// native NDJSON chat API, and KindOpenAI, the OpenAI-compatible SSE chat
// completions that vLLM, llama.cpp's llama-server, LM Studio, mlx_lm.server,
// SGLang and Ollama's /v1 endpoint speak. Every wire quirk of those servers
// (role-only first chunks, reasoning fields, usage chunks, keep-alive
// comments, llama.cpp timings) is handled here and nowhere else: what leaves
// this package is a Result, one per request, in plain units. A failed
// request keeps what was measured before the failure, and its error has a
// Class ([ErrorClass]) that says what went wrong: a refused connection, an
// HTTP status, a reset or truncated stream, a malformed line, an error sent
// in the stream, no text at all, a timeout (Config.Timeout) or an idle
// timeout (Config.IdleTimeout).
package runtimes

import (
	"time"
)

// Kind names a wire protocol.
type Kind string

const (
	KindOllama Kind = "ollama" // POST /api/chat, NDJSON
	KindOpenAI Kind = "openai" // POST /v1/chat/completions, SSE
)

// Request is what one benchmark request asks the server for.
type Request struct {
	Prompt      string
	MaxTokens   int
	Seed        int
	Temperature float64
}

// Result is the record of one request as the client measured it. All
// durations are client wall time measured from Start unless the field says
// it is the server's.
type Result struct {
	// Start is taken just before the request is sent; for a request sent
	// again because its pooled connection turned out to be closed, when
	// the last attempt got its connection.
	Start time.Time
	// Resent counts those extra attempts (see Runtime.Do).
	Resent int
	// TTFT is the time until the first chunk that carried non-empty
	// generated text (content or reasoning). Zero if none arrived.
	TTFT time.Duration
	// Total is the time until the stream completed, or failed.
	Total time.Duration

	// OutputTokens is the server's count of generated tokens (Ollama
	// eval_count, OpenAI usage.completion_tokens). Where the server gave
	// none it is the number of chunks that carried text, and TokensApprox
	// is set.
	OutputTokens int
	TokensApprox bool
	// Chunks is the number of chunks that carried generated text.
	Chunks int

	// PromptTokens and PromptEval are the server's prompt count and prompt
	// evaluation time (Ollama prompt_eval_count/prompt_eval_duration,
	// llama.cpp timings.prompt_n/prompt_ms). Zero when not reported.
	PromptTokens int
	PromptEval   time.Duration
	// Eval is the server's own decode time for OutputTokens (Ollama
	// eval_duration). Zero when not reported.
	Eval time.Duration

	// FinishReason is the server's reason for ending (stop, length, …).
	FinishReason string

	// Err is nil for a request that completed. A failed request keeps
	// whatever was measured before the failure.
	Err error
}

// OK reports whether the request completed.
func (r Result) OK() bool { return r.Err == nil }
