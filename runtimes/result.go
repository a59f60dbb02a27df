// Package runtimes talks to inference servers and measures each request.
//
// Two protocol kinds cover every runtime we benchmark: KindOllama, Ollama's
// native NDJSON chat API, and KindOpenAI, the OpenAI-compatible SSE chat
// completions that vLLM, llama.cpp's llama-server, LM Studio, mlx_lm.server,
// SGLang and Ollama's /v1 endpoint speak. Every wire quirk of those servers
// (role-only first chunks, reasoning fields, tool calls in parts or whole,
// usage chunks, keep-alive comments, llama.cpp timings) is handled here and nowhere else: what leaves
// this package is a Result, one per request, in plain units. A failed
// request keeps what was measured before the failure, and its error has a
// Class ([ErrorClass]) that says what went wrong: a refused connection, an
// HTTP status, a reset or truncated stream, a malformed line, an error sent
// in the stream, no text at all, a timeout (Config.Timeout) or an idle
// timeout (Config.IdleTimeout).
package runtimes

import (
	"encoding/json"
	"strings"
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
	Prompt    string
	MaxTokens int
	// Seed is sent only when set: mlx_lm.server does not batch a request
	// that has one.
	Seed        *int
	Temperature float64 // sent also when 0
	// IgnoreEOS asks an OpenAI-kind server to generate MaxTokens tokens
	// whatever the model would say (ignore_eos: vLLM, SGLang, llama.cpp).
	// Ollama's API has no such option.
	IgnoreEOS bool
	// KeepAlive is Ollama's keep_alive ("30m"): how long the server keeps
	// the model loaded after the request. Empty: the server's default.
	KeepAlive string
	// NumCtx, if above 0, is Ollama's options.num_ctx: the context the
	// model is loaded with (a change reloads it). Ollama cuts a prompt
	// longer than that silently, keeping its end.
	NumCtx int

	// System, if set, is sent as a system message before everything else
	// (a shared prefix). History are the conversation's earlier messages,
	// sent in order after it and before Prompt, the last user message.
	System  string
	History []Message
	// KeepText asks for the reply's answer text in Result.Text (Converse
	// sets it for every turn but the last).
	KeepText bool
	// Conversation is an id the caller chose, copied to the Result.
	Conversation int
	// HTTPTrace asks for Result.HTTP: where the request's time went
	// before its reply's first byte (net/http/httptrace).
	HTTPTrace bool

	// Tools is the OpenAI tools JSON array sent with the request as
	// "tools" ([{"type":"function","function":{"name","description",
	// "parameters"}}, …]); Ollama's /api/chat takes the same array. Nil
	// sends none. The reply's tool calls are counted in the Result
	// (ToolCalls, TTFToolCall, ToolArgsValid, ToolNames).
	Tools json.RawMessage

	// EmbedBatch is how many inputs an embeddings request sends
	// (BENCH_API=embeddings); below 1, one.
	EmbedBatch int
	// Images are sent with Prompt, after its text (BENCH_IMAGES): as
	// image_url parts of the last user message to an OpenAI-kind server,
	// in that message's "images" to Ollama. Nil sends none.
	Images []Image
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
	// generated text: answer, reasoning or part of a tool call (see
	// ToolCalls). Zero if none arrived.
	TTFT time.Duration
	// TTFC is the time until the first chunk that carried answer text
	// (OpenAI delta.content, Ollama message.content) or part of a tool
	// call, not reasoning. Zero if none arrived. TTFT where the model
	// does not reason.
	TTFC time.Duration
	// Total is the time until the stream completed, or failed.
	Total time.Duration
	// Gaps are the times in seconds between successive chunks that
	// carried text (len Chunks-1), kept compactly.
	Gaps []float32

	// OutputTokens is the server's count of generated tokens (Ollama
	// eval_count, OpenAI usage.completion_tokens). Where the server gave
	// none it is the number of chunks that carried text, and TokensApprox
	// is set.
	OutputTokens int
	TokensApprox bool
	// Chunks is the number of chunks that carried generated text, a
	// part of a tool call counting as text.
	Chunks int
	// Embeddings is how many embeddings an embeddings reply carried
	// (BENCH_API=embeddings); 0 for the other APIs.
	Embeddings int
	// Embedding is the first input's embedding of an embeddings reply,
	// kept only when Request.KeepText was set (the canary): an
	// embeddings reply has no text, its vector is its answer.
	Embedding []float64

	// ToolCalls is how many tool calls the reply made: OpenAI's
	// delta.tool_calls, whose parts (the name, then the arguments in
	// fragments) stream under one index per call; Ollama's
	// message.tool_calls, each call whole in one chunk. A chunk carries a
	// tool call when some entry of it has a name or a non-empty
	// arguments fragment: it counts as a text chunk and an answer chunk
	// (Chunks, TTFT, TTFC, Gaps), as tool-call tokens are generated
	// output the model produced instead of text.
	ToolCalls int
	// TTFToolCall is the time until the first chunk that carried part of
	// a tool call. Zero if none arrived.
	TTFToolCall time.Duration
	// ToolArgsValid is how many of the ToolCalls have arguments that are
	// a JSON object once whole (OpenAI's fragments joined in order per
	// index, Ollama's object as sent): what a tool's parameters, a JSON
	// Schema of type object, ask for. Arguments that are cut, not JSON,
	// or JSON but no object (a string, null, nothing) are not valid.
	ToolArgsValid int
	// ToolNames are the called functions' names, one per tool call in
	// the order the calls began; nil when there were none.
	ToolNames []string
	// Calls are the tool calls whole (id, name, arguments as streamed),
	// in the order they began, kept only when Request.KeepText was set,
	// as Text is: a conversation sends them back in its next turn (see
	// Converse). Nil otherwise, or when there were none.
	Calls []ToolCall
	// ReasoningTokens is the server's count of reasoning tokens among
	// OutputTokens (usage.completion_tokens_details.reasoning_tokens),
	// valid when ReasoningReported.
	ReasoningTokens   int
	ReasoningReported bool

	// PromptTokens is the server's count of the prompt's tokens, cached
	// ones included (usage.prompt_tokens, Ollama prompt_eval_count,
	// llama.cpp prompt_n + cache_n). Zero when not reported.
	PromptTokens int
	// CachedTokens is how many of them the server took from its prompt
	// cache (usage.prompt_tokens_details.cached_tokens, llama.cpp
	// cache_n), valid when CachedReported.
	CachedTokens   int
	CachedReported bool
	// CachedSource is where CachedTokens was read (a reply may state
	// them in several places: the first its server's order gives,
	// Runtime.CachedOrder), "" when not reported.
	CachedSource CachedSource
	stated       statedCached // every source the reply stated
	// PromptEval is the server's prompt evaluation time (Ollama
	// prompt_eval_duration, llama.cpp prompt_ms), and PromptEvalTokens
	// the tokens it evaluated in that time where the server says
	// (llama.cpp prompt_n; Ollama does not: its prompt_eval_count counts
	// cached tokens too). Zero when not reported.
	PromptEval       time.Duration
	PromptEvalTokens int
	// Eval is the server's own decode time for OutputTokens (Ollama
	// eval_duration). Zero when not reported.
	Eval time.Duration
	// LoadDuration is the time the server spent loading the model for
	// this request (Ollama load_duration). Zero when not reported.
	LoadDuration time.Duration

	// FinishReason is the server's reason for ending (stop, length, …).
	FinishReason string
	// ServedModel is the model the reply names, which may not be the one
	// asked for (llama-server serves its one model whatever is asked).
	ServedModel string
	// Fingerprint is the last system_fingerprint the reply's chunks
	// carried, "" if none: mlx_lm.server's names its own and MLX's
	// versions ("0.32.2-0.32.4-Linux-…", see FingerprintVersion), vLLM's
	// "vllm-0.32.0-…", llama-server's its build.
	Fingerprint string

	// Text is the answer text as streamed (reasoning left out), kept only
	// when Request.KeepText was set.
	Text string
	// Conversation and Turn say which conversation (Request.Conversation)
	// and which of its turns (from 1) the request was; a request sent
	// alone is turn 1 of its own.
	Conversation, Turn int

	// HTTP is where the request's time went before the reply's first
	// byte, set only when Request.HTTPTrace asked for it.
	HTTP *HTTPTrace

	// Err is nil for a request that completed. A failed request keeps
	// whatever was measured before the failure.
	Err error

	last     time.Duration   // when the last text chunk arrived, from Start
	calling  bool            // a tool-call chunk has arrived (TTFToolCall is set)
	answered bool            // an answer chunk has arrived (TTFC is set)
	keep     bool            // keep the answer text (Request.KeepText)
	text     strings.Builder // the answer text so far, when keep
}

// OK reports whether the request completed.
func (r Result) OK() bool { return r.Err == nil }
