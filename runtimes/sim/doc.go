// Package sim is an in-process inference server that streams on a known
// schedule. It lets the suite run on a machine with no real server and
// lets tests check the client's measurements against numbers fixed in
// advance. On request it also plays real servers' habits (early stops,
// reasoning text, multi-token chunks, limited capacity, a slowdown that
// lasts, prefill time, model loads, context limits, dropped connections,
// faults) and offers their ways of being reset, so that the client can be
// tested against them.
//
// # Settings
//
// A Config holds them; internal/config's LoadSim reads them from SIM_
// variables, the package reading none itself (an empty variable counts as
// unset; an error names the variable and the value as written, e.g.
// `SIM_SLOTS="x": not a number`). Each variable is the env tag of the
// Config field it sets (SIM_METRICS and SIM_PROMPT_TOKENS_DETAILS, read
// apart, set NoMetrics and NoPromptTokensDetails to their opposite). The
// variables, each one's default and what it does are listed once, in
// docs/simulator.md's settings table (TestSettingsDocumented holds it to
// Config's defaults); `go run ./cmd/sim -h` prints them with their flags.
// The sections below say what each does in full.
//
// Booleans are 1 or 0, true or false; durations Go's (50ms, 1.5s).
// Whole-number settings whose off or default value is the zero value
// (SIM_TOKENS_PER_CHUNK, SIM_STOP_AFTER, SIM_FAULT_EVERY, SIM_CONTEXT)
// must be 1 or more when written out; SIM_TOOL_CALLS=0 written out sets
// Config.NoToolCalls (see Tool calls). The zero Config's fields mean the
// defaults too, but for TTFT and TokensPerSec, which a Config must set. At
// the defaults every habit is off but those real servers always have: a
// tokenizer that is not a word count (see Tokens), the prompt cache's
// report (see Prompt cache), a context limit (see Context), vLLM's
// endpoints beside the chat (see Flavors), the ways to reset (see Resets)
// and GET /metrics.
//
// # Schedule
//
// This is the contract the accuracy tests rely on. For a streaming chat
// request let
//
//   - n be the requested number of tokens: Ollama options.num_predict;
//     OpenAI max_completion_tokens, else max_tokens; DefaultMaxTokens (128)
//     when absent or <= 0. Fractions are dropped.
//   - t0 be the moment the handler starts (after net/http has read the
//     request headers, before the body is read and parsed), its arrival,
//     or, with SIM_SLOTS, the moment the request gets a slot (see
//     Capacity).
//   - m be the number of tokens the reply has: n, unless it stops early
//     (SIM_STOP_AFTER, below).
//
// Then token i (0-based, i < m) is written and flushed at
//
//	t0 + TTFT + i/TokensPerSec
//
// and the final chunk(s) at t0 + TTFT + m/TokensPerSec (Config.Offset gives
// these offsets). The client's decode rate m/(total - ttft) is therefore
// exactly TokensPerSec, and its TTFT is TTFT plus transport latency (with
// SIM_BATCH_SLOWDOWN the decode steps vary, and with SIM_DEGRADE the rate
// is lower, see Capacity). TTFT here is the reply's own: SIM_TTFT, plus its
// prefill with SIM_PREFILL_TPS (below), plus its wait for the model to
// load with SIM_LOAD_TIME (see Resets); at the defaults, SIM_TTFT. Every
// deadline is absolute (relative to t0), so lateness never accumulates; a
// chunk is never written before its deadline. Chunks that fall due while an
// earlier write was late go out together in one write, each still its own
// line. Every token chunk carries exactly one non-empty token, a word from a
// small fixed vocabulary (" lorem", " ipsum", ...), unless
// SIM_TOKENS_PER_CHUNK says otherwise. Which words depends on the prompt,
// as a model's reply does: token i of the reply to a chat whose last
// message's text is L (its content, or its text parts one after the
// other) is Token(L, i), a word picked by a hash of L and i (at
// SIM_PERTURB 0: see Log-probabilities and a perturbed model); ReplyText(L,
// a, b) is tokens a..b-1. The same last message gets the same reply, two
// different ones (almost surely) different replies; the rest of the prompt
// changes nothing.
//
// SIM_TOKENS_PER_CHUNK=k (Config.TokensPerChunk, default 1) makes each
// chunk carry the text of k consecutive tokens, as servers that detokenize
// in steps or batch their writes do. Chunks are cut every k tokens from
// the start of each run of tokens: the reasoning (SIM_REASONING_TOKENS),
// the answer, and the tokens from a fault's token k on (malformed); the
// last chunk of a run may carry fewer. A chunk is written when its last
// token is due: the chunk of tokens a..b-1 at t0 + TTFT + (b-1)/rate. A
// client therefore sees its first text at TTFT + (c-1)/rate, c being the
// first chunk's size (min(k, m), or min(k, reasoning tokens)), and text
// arriving in steps of k/rate; the end is still at t0 + TTFT + m/rate, and
// every count (eval_count, completion_tokens) is in tokens, not chunks.
//
// SIM_PREFILL_TPS=R (Config.PrefillTPS, default 0: off) gives the prompt
// a cost, as a real server's prefill: a reply's TTFT is SIM_TTFT +
// (P−C)/R, P being its prompt tokens and C the cached ones (see Tokens and
// Prompt cache), rounded to the nanosecond, and every later deadline moves
// with its first token. A longer prompt therefore has a proportionally
// later first token, and a cached one an earlier one. Off, the first token
// comes at SIM_TTFT whatever the prompt, cached or not.
//
// Lateness is what the machine adds: waking a goroutine and writing to the
// socket. On Linux the deadlines are kept by one clock goroutine reading a
// timerfd(2) through the runtime's netpoller, which wakes it to the
// microsecond; the runtime's own timers there wake up to a millisecond late
// (the netpoller's epoll timeout is in whole milliseconds). Elsewhere the
// runtime's timers are used. Expect chunks to leave well under 0.5 ms after
// their deadline on an idle machine, more under load or on a VM whose vCPUs
// get descheduled.
//
// Close ends streams in flight, and requests waiting for a slot, by
// dropping their connections, so a client sees an unexpected EOF, never a
// clean end.
//
// # Ollama (NDJSON, Content-Type application/x-ndjson)
//
// POST /api/chat: the response headers at once (t0 plus the time to parse
// the request), then m lines
//
//	{"model":M,"created_at":T,"message":{"role":"assistant","content":" lorem"},"done":false}
//
// then, at the end,
//
//	{"model":M,"created_at":T,"message":{"role":"assistant","content":""},"done":true,
//	 "done_reason":R,"total_duration":ns,"load_duration":L,"prompt_eval_count":P,
//	 "prompt_eval_duration":E,"eval_count":m,"eval_duration":m/TokensPerSec}
//
// where R is "length", or "stop" when the reply stopped early,
// total_duration is measured (from the arrival to the final line: with
// SIM_SLOTS it includes the wait for a slot, with SIM_LOAD_TIME the load),
// L is the request's wait for the model to load (0 but for the request
// that loads it, see Resets), eval_duration is the scheduled decode time
// (m/TokensPerSec, longer with SIM_BATCH_SLOWDOWN or SIM_DEGRADE: the final
// chunk's deadline − t0 − the reply's TTFT), P is the prompt's tokens (see
// Tokens; after the cut to num_ctx, see Context) and E is TTFT·(P−C)/P in
// nanoseconds, rounded down, C being the cached tokens (see Prompt cache):
// TTFT when nothing was cached; with SIM_PREFILL_TPS=R, E is (P−C)/R, the
// time of the evaluated tokens only. With "stream": false one JSON object
// carrying all the text and the final fields is written at the end time.
// A request without messages is no chat: it loads or unloads the model
// (see Resets). keep_alive is read as Ollama reads it (a number of
// seconds, or a Go duration string); options.num_ctx sets the context (see
// Context). A body that does not parse, whose keep_alive is neither, or
// whose messages are not a list of messages gets 400 {"error":"..."}. Also
// GET /api/version, POST /api/show, GET /api/tags and GET /api/ps (which
// lists no model while it is unloaded).
//
// # OpenAI-compatible, vLLM style (SSE, Content-Type text/event-stream)
//
// POST /v1/chat/completions with "stream": true: lines "data: {json}\n\n".
// First, at once (t0 plus the time to parse the request), a role-only
// chunk (delta {"role":"assistant","content":""}); it is not a token. Then
// one chunk per token (delta {"content":" lorem"}); then, at the end time, a
// chunk with delta {"content":""} and finish_reason R ("length", or "stop"
// when the reply stopped early), then, only if stream_options.include_usage
// is true, a usage chunk with "choices":[] and
//
//	"usage":{"prompt_tokens":P,"total_tokens":P+m,"completion_tokens":m,"prompt_tokens_details":{"cached_tokens":C}}
//
// (vLLM's shape; P the prompt's tokens, see Tokens; C as in Prompt cache,
// 0 when nothing was cached), then "data: [DONE]". Each chunk starts
// {"id":"chatcmpl-…","object":"chat.completion.chunk","created":T,"model":M,
// "choices":…; the flavor adds a few keys of its server's (see Flavors).
// Errors (body does not parse, no messages, stream not true) get 400
//
//	{"object":"error","message":"...","type":"BadRequestError","param":null,"code":400}
//
// and so does a request whose prompt and length do not fit in the context
// (see Context). Also GET /v1/models (served for Ollama clients too),
// GET /health, GET /metrics (see Metrics), and the endpoints of the
// server SIM_FLAVOR imitates: GET /version with the default, vLLM (see
// Flavors).
//
// The model field is echoed back as sent, or Model when empty. With
// SIM_SERVED_MODEL=name (Config.ServedModel) the server serves that one
// model, as llama-server does: every reply's model field says name
// whatever the request asked for, and GET /v1/models, /api/tags and
// /api/ps list name instead of Model.
//
// # Prompt cache
//
// Real servers keep the prompts they have evaluated and evaluate only what
// a new prompt does not share with an earlier one; the simulator does the
// same, by default (SIM_PREFIX_CACHE=on), until a client resets it (see
// Resets). It compares prompts as a token-prefix cache does, in order
// across all their messages, a word at a time. A prompt is, for the cache,
// a sequence of pieces, as the chat template lays it out (see Tokens): for
// every message, in order, its header (2 tokens; the header of its role,
// roles told apart, a missing role being one too), each word of its
// content (the word's tokens), its end (1 token); then the header of the
// assistant's reply (ReplyTokens, 2: the header an assistant message
// starts with). Let k be the length, in pieces, of the longest prefix of
// this prompt that some earlier chat request's prompt also began with
// (either endpoint; a request's prompt is remembered once its body has
// been parsed and accepted, before it waits for a slot, whether or not its
// reply then completes; requests turned away, by a 400 or an http-NNN
// fault, are not). C, the cached tokens, is the tokens of those k pieces,
// at most P−1 (when every piece was shared, the server still evaluates the
// last token), and 0 when they hold no word: the template's tokens alone
// are no hit. So:
//
//   - a prompt sent again is cached but for its last token: C = P−1;
//   - a conversation's next turn, which repeats the last turn's messages,
//     then its reply as an assistant message, then a new user message,
//     shares all of the last turn's prompt (whose reply header is where
//     that assistant message begins): C is at least the last turn's P;
//   - a conversation that starts with the same system message as an
//     earlier one shares that message, and the next one's header if it
//     is of the same role;
//   - the same text in another role, or cut into messages otherwise,
//     shares nothing from where it differs; a word that differs is not
//     shared at all, even if its first bytes are the same;
//   - a prompt whose first word no earlier prompt began with shares
//     nothing: C = 0.
//
// OpenAI replies report C in usage.prompt_tokens_details.cached_tokens
// (prompt_tokens stays P); with SIM_PROMPT_TOKENS_DETAILS=0
// (Config.NoPromptTokensDetails) their usage has
// "prompt_tokens_details":null instead, as vLLM started without
// --enable-prompt-tokens-details, and only /metrics counts C (see
// Metrics). Ollama counts cached tokens in
// prompt_eval_count (P) but times only the evaluated ones:
// prompt_eval_duration is TTFT·(P−C)/P (with SIM_PREFILL_TPS=R, (P−C)/R),
// so P over prompt_eval_duration reads fast on a hit, as it does on Ollama.
// The schedule does not change with the cache, unless SIM_PREFILL_TPS
// gives the prompt a cost (see Schedule): then a cached prompt's first
// token comes earlier.
//
// The server remembers the hashes of the prompts' piece prefixes, in two
// generations of at most 2^17 each, in two tables of 2 MiB made at the
// first prompt (4 MiB in all, however many requests it serves): a
// prompt's go into the current one (all of them, those already in the old
// one too; of a longer prompt, its first 2^17); when they would take it
// past 2^17, the current generation becomes the old one, and the old one
// is forgotten, first. A look-up searches both. So a prompt is remembered
// at least until the prompts sent after it have more than 2^17 pieces
// between them (a piece is a word or a message's mark: 2^17 are about
// 600 KiB of English text): the recent ones are, as a real cache evicts
// the least recently used.
//
// SIM_PREFIX_CACHE=off (Config.PrefixCache = PrefixCacheOff) plays a
// server without a prefix cache: nothing is ever cached, C is 0 for every
// prompt (cached_tokens 0; prompt_eval_duration TTFT, or P/R with
// SIM_PREFILL_TPS), so every turn of a conversation evaluates its whole
// history again. A value other than on or off is an error
// (`SIM_PREFIX_CACHE="no": want on or off`).
//
// # Tokens
//
// The simulator's tokenizer, Tokens, is not a word count, so that a client
// that sizes prompts must calibrate against the server as it must against
// a real one: every whitespace-separated word is ceil(len(word)/4) tokens
// (BytesPerToken, len in bytes): "a cat" is 2 tokens, "extraordinary" 4.
// A chat's prompt tokens P are what a chat template makes of its messages:
// MessageTokens (3: a header of 2 before the content and an end of 1 after
// it) plus Tokens(content) for every message (a list of parts: its text
// parts' tokens; null: none), plus ReplyTokens (2) for the header of the
// assistant's turn: PromptTokens(contents...). That is
// usage.prompt_tokens, prompt_eval_count (before any cut to num_ctx),
// vllm:prompt_tokens_total and vLLM-flavor /tokenize's count for the same
// messages. A one-message prompt "Say something." is 3 + 1 + 3 + 2 = 9.
//
// # Context
//
// SIM_CONTEXT=N (Config.Context, default ContextLength, 40960) is the
// model's context length, in tokens. The metadata endpoints report it:
// /v1/models max_model_len, /api/show model_info sim.context_length,
// /api/ps context_length, /props n_ctx and
// default_generation_settings.n_ctx (llama.cpp flavor), vLLM /tokenize's
// max_model_len.
//
// OpenAI kind: a request whose prompt tokens P and length n (the length
// asked for, or DefaultMaxTokens) make more than N, P + n > N, is refused
// before any byte of a stream, with 400 and vLLM's body
//
//	{"object":"error","message":"This model's maximum context length is N tokens. However, you requested P+n tokens (P in the messages, n in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}
//
// (the numbers written out), or with SIM_FLAVOR=llamacpp llama-server's
//
//	{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}
//
// Its prompt is not remembered (see Prompt cache).
//
// Ollama kind: the request's context is options.num_ctx (fractions
// dropped), DefaultNumCtx (2048, Ollama 0.6's default) when absent or < 1,
// and at most N. A prompt longer than that is cut silently, as Ollama's
// runner cuts it: it keeps its first NumKeep (4) tokens (at most num_ctx−1)
// and its last ones, num_ctx tokens in all; prompt_eval_count reports
// num_ctx, C becomes the kept tokens that lay in the cached prefix (at
// most num_ctx−1; a prompt sent again is still cached but for its last
// token), and the reply goes on as usual, status 200. The model is loaded
// with the num_ctx of the request that loaded it (at the start,
// DefaultNumCtx, at most N): a request whose num_ctx differs reloads it,
// as Ollama does, and reports the load (see Resets).
//
// # Capacity
//
// By default every chat request is served at once, at the full rate,
// however many there are. A real server has a fixed number of sequences
// it decodes together, and each goes slower the more there are.
//
// SIM_SLOTS=S (Config.Slots, default 0: unlimited) lets at most S chat
// requests (of both endpoints together, Ollama "stream": false ones too)
// hold a slot; the others wait, first come first served (in the order they
// ask for one: once their body is parsed and, when streamed, their headers
// are sent). A waiting request's response headers (and
// OpenAI's role-only chunk) still go out at once; its schedule starts, t0,
// when it gets a slot, so queueing shows in its TTFT. A slot is freed when
// the reply holding it ends: at the deadline of its final chunk (or of
// the fault that ended it) when it went to its planned end, however late
// that was written, so that lateness does not pass down the queue; at the
// moment it ended otherwise (a client that went away, a stall). The next
// waiter's t0 is the later of that moment and its own arrival (its
// handler's start); a request that finds a slot free gets t0 = max(its
// arrival, when that slot was freed), which is its arrival in all but a
// close race. Ollama's total_duration stays measured from the arrival,
// so it includes the wait, as on Ollama.
//
// SIM_BATCH_SLOWDOWN=f (Config.BatchSlowdown, >= 0, default 0) slows the
// decode of every stream while others decode with it: with m chat
// requests holding a slot (all requests in their schedule when SIM_SLOTS
// is unlimited; the stream itself included, so m >= 1; queued ones not
// counted), a stream decodes at TokensPerSec/(1 + f·(m−1)), that is one
// token every step_m = (1 + f·(m−1))/TokensPerSec. The first token is due
// at t0 + TTFT as always (the slowdown is in the decode, not the prefill).
// Each later token's deadline is fixed once, from the deadline of the
// token before it plus step_m, m being read when the stream comes to need
// that deadline: right after it has put the chunk before into a write (at
// the start for the first chunk); a chunk of k tokens (SIM_TOKENS_PER_CHUNK)
// fixes its k deadlines at one m. The final chunk is due one step after the
// last token. Deadlines so fixed never move and are absolute (from t0, not
// from when a write happened), so lateness does not accumulate; with m
// constant the stream decodes at exactly TokensPerSec/(1 + f·(m−1)), and
// Ollama's eval_duration is the scheduled decode time (final deadline −
// t0 − TTFT). With f = 0 the deadlines are exactly t0 + Config.Offset(i).
//
// SIM_DEGRADE=F (Config.Degrade, 0 < F <= 1; default 0: off) plays what a
// real Ollama 0.6.5 does: once two chat requests have held a slot at the
// same time (the running count reached 2 when one got its slot; queued
// ones do not count), every request whose schedule starts later decodes
// at F × TokensPerSec, alone or not, until the server is reset (see
// Resets; a refused reset leaves it so). The two that made it are not
// slowed themselves; requests that start after, even a microsecond after,
// are. The first token still comes at the reply's TTFT; every later step
// is 1/F times as long (with SIM_BATCH_SLOWDOWN, (1 + f·(m−1))/(F ×
// TokensPerSec)), fixed when the reply gets its slot. Ollama's
// eval_duration, the scheduled decode time, says so; OpenAI's usage counts
// the same tokens, later. Server.Degraded reports whether the server is
// degraded now. With one slot (SIM_SLOTS=1) two never decode at once.
//
// # Connections
//
// SIM_HTTP_THREADS=N (Config.HTTPThreads) plays llama-server's HTTP
// thread pool (--threads-http N): at most N connections are served at
// once, each holding its thread while it is open, an idle one until it
// has been idle 5 s (its keep-alive; the server then closes it), and a
// connection beyond N waits, accepted by the system but unread, every
// request on it unanswered, until one of the N closes (threads.go). A
// client whose pool keeps N idle connections and opens another waits 5 s
// for that one's answer.
//
// Connections are kept alive as net/http keeps them, unless
// SIM_CLOSE_AFTER_STREAM=1 (Config.CloseAfterStream), which plays
// llama-server: its stream writer ends the connection after the last chunk
// of every streamed reply, while its responses say
// "Keep-Alive: timeout=5, max=100" and never "Connection: close". Then
// every response carries that Keep-Alive header, and after each streamed
// chat reply (either protocol, any fault that lets the handler end; the
// reply itself is complete: final chunk, [DONE], the proper end of its
// chunked body) the server closes the TCP connection 1 ms after net/http
// has written the whole response (it reports http.StateIdle). A request
// that arrives on the connection within that 1 ms is not served: the
// connection is closed at once and the client reads EOF before any byte
// of a reply. That is what a client that took the connection back into
// its pool and sent its next POST on it meets on llama-server; Go's
// http.Transport does not retry a POST, so a plain client doing
// back-to-back streamed requests fails every second one with
// `Post "…": EOF` (or, had it written later, "connection reset by peer").
// Non-streamed replies (Ollama "stream": false, errors) and GETs keep the
// connection. Server.OpenConns counts a closed connection as closed as
// soon as net/http has let it go.
//
// # Stopping early
//
// SIM_STOP_AFTER=N (Config.StopAfter, N >= 1; unset is off) plays a model
// that reaches its end of sequence after N tokens: every reply has
// m = min(N, n) tokens. When N <= n it ends with finish reason "stop"
// (Ollama done_reason "stop"), when N > n the length asked for comes
// first and it ends with "length" as usual. eval_count and
// usage.completion_tokens are m, eval_duration m/TokensPerSec, and the
// final chunk goes out on schedule at t0 + TTFT + m/TokensPerSec. An OpenAI
// request with "ignore_eos": true (vLLM, SGLang and llama.cpp honour it)
// runs to n as without the setting; Ollama's API has no such option, so
// its replies always stop early.
//
// # Reasoning
//
// SIM_REASONING_TOKENS=N (Config.ReasoningTokens, default 0: none) makes
// the first min(N, m) tokens of every reply reasoning text and the rest the
// answer, as a thinking model writes. The text is the same token sequence
// (token i is Token(L, i) wherever it goes); only the field changes. A chunk
// never carries both. Ollama: a reasoning chunk is
//
//	{"model":M,"created_at":T,"message":{"role":"assistant","content":"","thinking":" lorem"},"done":false}
//
// and a "stream": false reply carries the answer in content and the
// reasoning in "thinking" after it. OpenAI: a reasoning chunk's delta is
// {"reasoning_content":" lorem"} or, with SIM_REASONING_FIELD=reasoning
// (vLLM 0.16+, Ollama's /v1, mlx_lm), {"reasoning":" lorem"}; answer chunks
// are as usual, and the usage chunk gets
// "completion_tokens_details":{"reasoning_tokens":min(N, m)} after
// completion_tokens (0 for the empty fault). Reasoning tokens are tokens:
// n (max_tokens) and m count them, eval_count and completion_tokens
// include them, and the schedule is unchanged: token i is due at
// t0 + TTFT + i/TokensPerSec, so the first answer token comes at
// TTFT + N/TokensPerSec. SIM_REASONING_FIELD alone changes nothing.
//
// # Log-probabilities and a perturbed model
//
// A request that asks for log-probabilities gets them with every token
// chunk's tokens (not tool calls'), reasoning included: OpenAI's chat
// ("logprobs": true, "top_logprobs": k) in choices[0].logprobs.content,
// Ollama's /api/chat (the same two fields, as Ollama 0.12.11 on) in a
// top-level "logprobs" array of each line (a "stream": false reply: all
// of them in its one line), each entry
//
//	{"token":" lorem","logprob":-0.31,"top_logprobs":[{"token":" lorem","logprob":-0.31},…]}
//
// with k alternatives, most likely first, the token itself the first; the
// completions' "logprobs": k in choices[0].logprobs, in vLLM's legacy
// shape (text_offset, token_logprobs, tokens, top_logprobs as objects of
// word to log-probability), except for SIM_FLAVOR=ollama, whose
// completions have none, as Ollama 0.17.4's /v1/completions. k above 20
// (11 for mlx) is refused with a 400, as those servers refuse it. The numbers are
// a distribution over the vocabulary at each token, whose first word is
// the one the reply says (logprobs.go has the formula; Candidates gives
// it). SIM_LOGPROBS=off ignores the fields, as LM Studio and Ollama before
// 0.12.11 do: the reply is the same, without log-probabilities. Unset,
// the lmstudio flavor and the ollama flavor at a SIM_VERSION before
// 0.12.11 (e.g. 0.6.5) ignore them too.
//
// The OpenAI chat also answers "stream": false (without tools): one
// chat.completion object when the reply's last token is due, its text in
// choices[0].message, its log-probabilities in choices[0].logprobs, and
// the usage (of the faults, only HTTP statuses apply). The mlx flavor
// plays mlx_lm.server 0.32.2's habits there: its streams carry no
// log-probabilities, only such a reply does, its token texts are pieces
// ("▁lorem"), and each entry's alternatives are unsorted (the least
// likely first), the entry's own token and logprob being the first
// alternative's, not the token's.
//
// SIM_PERTURB=p (Config.Perturb, default 0) plays a model whose answers
// differ by a known share, as a lower-bit quantization's: at every token
// the first two words' margin shrinks, and at the share p of tokens,
// drawn from the reply's seed and the token's place (the same places for
// the same chat, every time; not drawn from p, so a larger p swaps a
// superset), it turns over: the reply says its second word there.
// Replies of simulators at p1 ≤ p2 say different words at the share
// p2 − p1 of tokens, each independently (PerturbedAt says which), and
// their distributions differ at every token by PerturbKL: the truth an
// agreement measure is tested against.
//
// # Tool calls
//
// A chat request with "tools" (the OpenAI array, which Ollama's /api/chat
// takes too) that has a function tool, and whose tool_choice is not
// "none", gets a reply of tool calls, as a model that decides to call a
// tool: SIM_TOOL_CALLS=N (Config.ToolCalls, default 1) of them, call i
// to the tool a hash of the reply's seed and i picks (the same chat, the
// same tools), after any reasoning (SIM_REASONING_TOKENS). A call's
// arguments satisfy its tool's parameters for simple types: a JSON object
// with every required property and every optional one of type string,
// integer, number or boolean (or none), in name order; a value is the
// first of its enum, else a word of the vocabulary for a string, 1 (1.5
// for a number) moved inside minimum and maximum, true, and [] or {} for
// a required array or object. The tools count in the prompt as a message
// before the others whose text is the array as sent (see Tokens), so a
// tools array that several requests share is a cached prefix.
//
// A call is tokens: its name, one token, then its arguments' text in
// pieces of 4 bytes, a token each (a character is never cut), on the
// usual schedule. The reply has m = (reasoning) + (the calls' tokens)
// tokens and ends with finish reason "tool_calls" when that fits in n;
// else m = n, the last call is cut and the reason is "length".
// SIM_STOP_AFTER and ignore_eos do not apply: the model ends with its
// calls. usage.completion_tokens and eval_count are m. OpenAI (vLLM's
// shape, in every flavor): the chunk of a call's first token is
//
//	"delta":{"tool_calls":[{"id":"chatcmpl-tool-…","type":"function","index":i,"function":{"name":"get_weather"}}]}
//
// and each later one {"tool_calls":[{"index":i,"function":{"arguments":"{\"ci"}}]},
// the fragments joining into the arguments; a chunk of several tokens
// (SIM_TOKENS_PER_CHUNK) has an entry per call it touches. Then the
// finish chunk with finish_reason "tool_calls", usage and [DONE]. Ollama
// holds a call's tokens back, as Ollama does while it parses them, and
// sends the call whole in the line of its last token, arguments a JSON
// object:
//
//	{"model":M,"created_at":T,"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_…",
//	 "function":{"index":i,"name":"get_weather","arguments":{"city":"lorem"}}}]},"done":false}
//
// then the final line with done_reason "stop" (Ollama's after tool calls)
// or "length", whose content is the text of a call the length cut, as
// Ollama sends what it could not parse. "stream": false gets the final
// line with the whole calls in message.tool_calls.
//
// SIM_TOOL_ARGS_INVALID=f (Config.ToolArgsInvalid, from 0, the default, to
// 1) breaks the arguments of a fraction f of the calls, to test a client's
// count of arguments that parse: the k-th call the server makes (from 1,
// every request counted) has its closing brace cut off when
// ⌊k·f⌋ > ⌊(k−1)·f⌋ (0.5 breaks every second call, 1 all). OpenAI streams
// them as any others; Ollama, which parses calls itself, sends the broken
// call as text in content ({"name":"…","arguments":{…) in the line where
// the call would have been, and no tool call. A request with "tools"
// that is not a list of tools gets 400.
//
// A chat may send calls back, as an agent loop does: an assistant message
// with "tool_calls" (OpenAI: {"id","type":"function","function":{"name",
// "arguments":"…"}}, the arguments a JSON string; Ollama: {"function":
// {"name","arguments":{…}}}, an object), then "tool" messages whose
// content is each call's result. Both count in the prompt as any message
// does (see Tokens): a tool message by its content, an assistant message
// by its content then each call's name and arguments (the string's text,
// or the object as sent). OpenAI kind: a "tool" message whose
// tool_call_id is missing or is the id of no tool call of an earlier
// assistant message gets 400, as OpenAI's API refuses it, before its
// prompt is counted:
//
//	{"object":"error","message":"messages[3]: tool_call_id \"x\" names no tool call of an earlier assistant message","type":"BadRequestError","param":null,"code":400}
//
// Ollama's API (0.6.5) has no tool_call_id: its tool messages are not
// checked.
//
// SIM_TOOL_CALLS=0 (Config.NoToolCalls) plays a model that calls no tool:
// a request with tools gets a text reply, as any other (the tools still
// count in its prompt), as a small or random-weight model answers.
//
// Two settings play Ollama's habits with tools, in the flavors that serve
// Ollama's endpoints (refused with lmstudio and mlx):
//
//   - SIM_MODEL_TOOLS=off (Config.ModelTools): the model takes no tools,
//     as an Ollama model whose chat template never uses .Tools. POST
//     /api/show says "capabilities":["completion"] (["completion","tools"]
//     at the default, on) and its "template" has no .Tools; a chat request
//     with tools gets, before anything else, Ollama's 400: on /api/chat
//     {"error":"registry.ollama.ai/library/e2e:latest does not support
//     tools"} (the model's name in full: registry, namespace and tag), on
//     /v1/chat/completions the same message in OpenAI's shape,
//     {"error":{"message":…,"type":"invalid_request_error","param":null,"code":null}}.
//     Requests without tools are answered.
//   - SIM_TOOLS_HELD=1 (Config.ToolsHeld): a streamed reply to a request
//     with tools is held back whole until its end, as Ollama before 0.8
//     holds it (its ChatHandler gathers the text until it parses a tool
//     call or the reply is done). /api/chat sends one line, the done line,
//     when the schedule ends, carrying all of the reply (its text, or its
//     calls in message.tool_calls), as "stream": false does;
//     /v1/chat/completions sends no role chunk and, at the end, one chunk
//     with all of the reply (the text in content, or every call's entries
//     in tool_calls; any reasoning in a chunk before it), then the finish
//     chunk, usage if asked for and [DONE]. (A real one sends a tool call
//     as soon as it parses it; the simulator holds calls to the end as
//     well.) The schedule is unchanged: a
//     client's first token comes at the end. Requests without tools
//     stream as ever.
//
// # Images
//
// A chat request's images are read as vision models' servers take them:
// an OpenAI-kind request's image_url parts whose URL is a data URL
// ("data:image/png;base64,…"; another URL is refused, 400, as the
// simulator fetches nothing) and an Ollama message's "images" (base64
// texts). Each image's header says its size, and a w×h image counts
// ImageTokens(w, h) = ⌈w/28⌉·⌈h/28⌉ prompt tokens (ImagePatch = 28
// pixels a side, as Qwen2-VL's processor counts: 14-pixel patches merged
// 2×2), placed after its message's text: they are in the usage's
// prompt_tokens and Ollama's prompt_eval_count, SIM_PREFILL_TPS spends
// their time, and the prompt cache knows an image by its bytes, so the
// same images after the same text are a hit. An image that is no PNG or
// JPEG gets a 400.
//
// SIM_MODEL_VISION (Config.ModelVision) is off by default: the model is
// a text model, as the e2e's generated one, and a chat request with
// images is refused before anything else, as the servers refuse it: the
// ollama flavor with Ollama's {"error":"this model is missing data
// required for image input"} (on /v1/chat/completions in OpenAI's shape),
// the llamacpp flavor with llama-server's 500 {"error":{"code":500,
// "message":"image input is not supported - hint: if this is unexpected,
// you may need to provide the mmproj","type":"server_error"}} (started
// without --mmproj), the others with vLLM's 400 {"object":"error",
// "message":"<model> is not a multimodal model",…}. On, /api/show's
// capabilities list "vision" (["completion","tools","vision"]), /props
// modalities say "vision": true, and images are answered.
//
// # Flavors
//
// Beside the OpenAI chat endpoint, which it always serves, and Ollama's
// endpoints, which it serves in every flavor but lmstudio, mlx and tgi (the
// servers they play have none), the server imitates one OpenAI-kind
// server, SIM_FLAVOR (Config.Flavor), in the endpoints real ones have for
// their settings, models, tokens and resets; another flavor's endpoints
// answer 404. The flavor leaves the Ollama endpoints as they are, and the
// chat streams vLLM's shapes but for a few keys of its server's (below).
//
//	flavor             serves
//	vllm (default)     GET /version, POST /tokenize (vLLM's), POST /reset_prefix_cache
//	llamacpp           GET /props, GET /slots, POST /slots/{id}?action=erase, POST /tokenize (llama's)
//	plain              none of those
//	lmstudio           GET /api/v0/models (LM Studio's); no Ollama endpoints
//	mlx                nothing more (mlx_lm.server); no Ollama endpoints
//	ollama             nothing more: Ollama's endpoints and its /v1 (Ollama)
//	tgi                GET /info (text-generation-inference's); no Ollama endpoints
//
// In the chat stream, vllm adds what vLLM 0.32 adds: "prompt_token_ids":null,
// "prompt_text":null after the role-only chunk's choices, and
// "system_fingerprint":"vllm-sim-1-sim" (VLLMFingerprint: vLLM's is
// "vllm-0.32.0-a1f68b72") after the usage chunk's usage. mlx puts
// mlx_lm.server's fingerprint, "system_fingerprint":
// "0.32.2-0.32.4-Linux-sim-x86_64" (MLXFingerprint: mlx_lm's version,
// MLX's, the platform), after the id of every chunk, as mlx_lm.server
// does; that is where mlx_lm states its version, having no endpoint for
// it. ollama puts Ollama's, "system_fingerprint":"fp_ollama"
// (OllamaFingerprint), in every chunk, as Ollama's /v1 does. The others
// add nothing. These are fixed per reply, so a chunk costs no more to
// write.
//
// SIM_VERSION=V (Config.Version; default Version, "sim-1", and
// MLXVersion, "0.32.2", for mlx) is the version the server states, where
// and as the server its flavor plays does: GET /api/version
// {"version":V} in every flavor that serves Ollama's endpoints, vllm's
// GET /version {"version":V} and usage fingerprint "vllm-V-sim",
// llamacpp's /props build_info, mlx's fingerprint
// "V-0.32.4-Linux-sim-x86_64"; lmstudio states none, as LM Studio's API.
// With llamacpp, V = LlamaCachedByPromptN ("b1-4227c9b") plays that older
// build: its usage chunk has no prompt_tokens_details and carries
// llama's "timings" without cache_n, so that its cached tokens show only
// as usage.prompt_tokens less timings.prompt_n, and its /metrics has no
// llamacpp:prompt_tokens_cached_total (llamacpp_old.go).
// A value of more than 100 characters, or with a quote, a backslash or a
// control character, is an error. cmd/sim serves the simulator as a
// process of its own, every setting a flag (-flavor ollama -version
// 0.7.0).
//
// GET /v1/models lists the model in the flavor's shape: vLLM's
// {"id":M,"object":"model","created":T,"owned_by":"sim","root":M,
// "parent":null,"max_model_len":N,"permission":[]} (vllm, plain);
// llama-server's {"id":M,"object":"model","created":T,"owned_by":"llamacpp",
// "meta":{"vocab_type":2,"n_vocab":32000,"n_ctx_train":N,"n_embd":1024,
// "n_params":P,"size":P/2}} (P is Parameters); LM Studio's {"id":M,
// "object":"model","owned_by":"organization_owner"}; mlx_lm's {"id":M,
// "object":"model","created":T}, no owner; Ollama's {"id":M,
// "object":"model","created":T,"owned_by":"library"}. LM Studio's GET /api/v0/models:
//
//	{"object":"list","data":[{"id":M,"object":"model","type":"llm","publisher":"sim","arch":"sim","compatibility_type":C,"quantization":Q,"state":"loaded","max_context_length":N}]}
//
// Q being SIM_QUANTIZATION (Config.Quantization, default Q4_K_M) and C
// "mlx" when Q is MLX bits ("4bit"), else "gguf". Ollama's /api/show and
// /api/tags details say family "sim", parameter_size "500.00M",
// quantization_level Q, format "gguf". llama.cpp and mlx_lm state the
// quantization only in the model's file or name: SIM_SERVED_MODEL
// (/models/sim-Q8_0.gguf, mlx-community/sim-4bit).
//
// SIM_MODELS=empty (Config.Models = ModelsEmpty; default listed) plays
// mlx_lm.server 0.32 where its Hugging Face cache folder,
// ~/.cache/huggingface/hub, does not exist, in every flavor: GET
// /v1/models answers the status line and headers of Python's http.server,
//
//	HTTP/1.0 200 OK
//	Server: BaseHTTP/0.6 Python/3.12 (sim)
//	Date: …
//	Content-type: application/json
//	Access-Control-Allow-Origin: *
//
// and no Content-Length, then closes the connection: a 200 whose body is
// empty (mlx_lm's scan of that cache raises once the headers are out). A
// client that takes the first listed model finds none. A value other than
// listed or empty is an error (`SIM_MODELS="none": want listed or empty`).
//
// The context error is llama-server's with llamacpp (see Context).
// The slots llama.cpp's endpoints speak of are SIM_SLOTS of them, 1 when
// SIM_SLOTS is 0 (unlimited).
//
// vLLM's POST /tokenize, {"model":M,"prompt":S} or {"model":M,
// "messages":[…]} (a chat's messages, the template applied: the count a
// chat request reports as prompt_tokens):
//
//	{"count":K,"max_model_len":N,"tokens":[…K ids…]}
//
// K being Tokens(S) or PromptTokens of the messages; a body with neither
// gets vLLM's 400. llama's POST /tokenize, {"content":S,"add_special":b}:
//
//	{"tokens":[…]}
//
// Tokens(S) ids, after one BOS id when add_special is true. The ids are
// stable (a hash of each 4-byte piece of a word, below 32000; the
// template's and the BOS token's above).
//
// GET /props:
//
//	{"build_info":"sim-1","default_generation_settings":{"n_ctx":N},"modalities":{"audio":false,"vision":V},"model_path":M,"n_ctx":N,"total_slots":T}
//
// M the listed model (SIM_SERVED_MODEL, or Model), N the context, T the
// slots, V whether SIM_MODEL_VISION is on (llama-server says vision when
// started with --mmproj). GET /slots: one object a slot, [{"id":0,"id_task":-1,
// "is_processing":false,"n_ctx":N},…], the first as many as hold a slot
// processing.
//
// # Resets
//
// A client returns a server to a known state between benchmarks the ways
// real servers offer; each forgets the prompt cache (every prompt is new
// again) and the degradation (SIM_DEGRADE), and Server.Resets counts them.
//
// Ollama's way, served in every flavor but lmstudio, mlx and tgi (with the
// other Ollama endpoints): POST /api/chat with no messages ("messages": [], null or absent)
// and keep_alive under a second (0, "0", "0s", as Ollama reads it) unloads
// the model. The reply, 200, is one JSON object (application/json,
// whatever "stream" says, as Ollama writes it):
//
//	{"model":M,"created_at":T,"message":{"role":"assistant","content":""},"done_reason":"unload","done":true}
//
// GET /api/ps then lists no model, and the model is loaded again by the
// next chat request (of either protocol): it waits SIM_LOAD_TIME
// (Config.LoadTime, a duration, default 0) before its schedule, so its
// TTFT is that much later, and Ollama's load_duration says so. A request
// that starts while the load is under way waits for its end, and reports
// that wait. Without keep_alive under a second, the same request loads the
// model (nothing to do when it is loaded) and answers once it is, the same
// object with done_reason "load"; that is no reset. Neither is a chat
// request: no fault, no number (see Faults), no metrics.
//
// vLLM's way (SIM_FLAVOR=vllm): POST /reset_prefix_cache → 200, empty
// body. The model stays loaded.
//
// llama.cpp's way (SIM_FLAVOR=llamacpp): POST /slots/{id}?action=erase,
// for 0 <= id < the slots, → 200 {"id_slot":id,"n_erased":N}, N the prompt
// tokens of the last chat request remembered since the cache was last
// forgotten (with SIM_PREFIX_CACHE=off, the last one served) (so erasing the first slot reports them, the next ones 0). An
// id out of range or not a number gets 400 "Invalid slot ID", another
// action 400 "Invalid action", in llama-server's error shape
// ({"error":{"code":400,"message":…,"type":"invalid_request_error"}}).
//
// Server.Loads counts the loads after Start: after an unload, and for an
// Ollama request whose num_ctx differs from the loaded model's (see
// Context).
//
// SIM_RESET=refuse (Config.Reset, default ok) plays servers that do not
// allow it: every reset answers an HTTP error and nothing is forgotten
// (the model stays loaded, Server.Resets does not count it). vLLM outside
// its development mode: 404 {"detail":"Not Found"}; llama-server without
// --slot-save-path, for any slot action:
//
//	501 {"error":{"code":501,"message":"This server does not support slots action. Start it with `--slot-save-path`","type":"not_supported_error"}}
//
// Ollama's unload: 500 {"error":"simulated refusal: …"}. A load is still
// allowed.
//
// # Metrics
//
// GET /metrics serves Prometheus text exposition, format 0.0.4
// (Content-Type "text/plain; version=0.0.4; charset=utf-8"), in vLLM's
// names, with a model_name label, written as vLLM's Python client writes
// them (values with a decimal point, "3.0"); with SIM_FLAVOR=llamacpp, in
// llama-server's, with SIM_FLAVOR=tgi in text-generation-inference's
// (below). SIM_METRICS=0 (Config.NoMetrics) turns it off:
// 404, as on a server without it; with SIM_FLAVOR=llamacpp, 501 as
// llama-server started without --metrics:
//
//	501 {"error":{"code":501,"message":"This server does not support metrics endpoint. Start it with `--metrics`","type":"not_supported_error"}}
//
// It follows what the server wrote. A chat reply counts once it is
// complete: its final chunk(s) written and flushed (the done:true line;
// the finish chunk, usage and [DONE]), or an Ollama "stream": false body
// written whole; that includes the empty, malformed, big-line and
// keepalive faults, and no reply that a fault cut, nor one whose client
// went away. It counts under model_name = the model its reply named
// (one series per name, for the first 100 names; later names count under
// the listed model, Model or SIM_SERVED_MODEL, whose series is always
// there, at zero before any request). For such a reply, with arrival its
// handler's start, t0 its schedule's start (its slot), first the moment
// the write carrying token 0 had been flushed (for a "stream": false reply,
// t0 + TTFT, when token 0 was due) and end the moment its final chunk had
// been flushed:
//
//   - vllm:prompt_tokens_total (counter): + P, its prompt tokens, cached
//     ones included (as prompt_tokens and prompt_eval_count).
//   - vllm:prompt_tokens_cached_total (counter): + C, its prompt tokens
//     taken from the prompt cache (see Prompt cache), whether or not its
//     reply stated them (SIM_PROMPT_TOKENS_DETAILS).
//   - vllm:prefix_cache_queries_total (counter): + P; and
//     vllm:prefix_cache_hits_total (counter): + C, as vLLM V1 counts its
//     prefix cache, in tokens.
//   - vllm:generation_tokens_total (counter): + the tokens it sent (its
//     eval_count or completion_tokens: m, 0 for the empty fault).
//   - vllm:request_success_total (counter): + 1.
//   - vllm:request_queue_time_seconds (histogram): t0 − arrival, the wait
//     for a slot (0 without SIM_SLOTS).
//   - vllm:time_to_first_token_seconds (histogram): first − arrival.
//   - vllm:request_prefill_time_seconds (histogram): first − t0.
//   - vllm:request_decode_time_seconds (histogram): end − first.
//   - vllm:e2e_request_latency_seconds (histogram): end − arrival.
//
// The last four are measured, on the server's clock, so TTFT = queue +
// prefill and e2e = queue + prefill + decode hold reply by reply; a reply
// with no token (the empty fault) observes only the queue and e2e ones.
// Histograms have vLLM's buckets (TTFT: 0.001 … 2560 s; the others: its
// request latency buckets, 0.3 … 7680 s) with _bucket (cumulative, le
// ending "+Inf"), _sum and _count. And three gauges, labelled with the
// listed model: vllm:num_requests_running, the chat requests holding a slot
// now (every request in its schedule without SIM_SLOTS),
// vllm:num_requests_waiting, those waiting for one, and
// vllm:kv_cache_usage_perc, the share of the KV cache the running hold, 0
// to 1: running / SIM_SLOTS (running / 64 without a slot limit, at most 1).
// It serves no speculative decoding counters: it drafts nothing.
//
// With SIM_FLAVOR=llamacpp it serves what llama-server b1-0c1e570
// (llama.cpp commit 0c1e570, the build the e2e scripts run) started with
// --metrics serves (testdata/llamacpp-metrics-b1-0c1e570.txt, captured
// from it; a test holds the names, HELP, TYPE and order to it):
// Content-Type "text/plain; version=0.0.4", a Process-Start-Time-Unix
// header, no labels, values as C++ streams print a double (6 significant
// digits: "1.23457e+06"), its counters then its gauges, in this order. It
// counts the same replies (every model together), each with P, C, t0,
// first and end as above:
//
//   - llamacpp:prompt_tokens_total (counter): + P − C, the prompt tokens
//     evaluated.
//   - llamacpp:prompt_tokens_cached_total (counter): + C, the prompt
//     tokens reused from the cache.
//   - llamacpp:prompt_seconds_total (counter): + first − t0 (end − t0 for
//     a reply with no token), in whole microseconds.
//   - llamacpp:tokens_predicted_total (counter): + the tokens it sent.
//   - llamacpp:tokens_predicted_seconds_total (counter): + end − first,
//     whole microseconds.
//   - llamacpp:n_decode_total (counter): llama_decode() calls. A reply
//     makes one for its prompt (one a 2048 tokens of P − C, llama-server's
//     default batch) and one a token it sent after the first; each call is
//     shared by the requests that held a slot when the reply got its own,
//     it included (1/k of a call each when k did). Rounded to a whole
//     number.
//   - llamacpp:n_tokens_max (counter, as llama-server types it): the most
//     of P + max(sent − 1, 0) (the tokens a slot held at its last call).
//   - llamacpp:spec_decode_num_draft_tokens_total,
//     llamacpp:spec_decode_num_accepted_tokens_total,
//     llamacpp:spec_decode_num_drafts_total (counters): 0; it drafts
//     nothing.
//   - llamacpp:prompt_tokens_seconds, llamacpp:predicted_tokens_seconds
//     (gauges): prompt tokens evaluated / prompt seconds and tokens sent /
//     generation seconds of the replies counted since the previous scrape
//     (0 when none).
//   - llamacpp:requests_processing, llamacpp:requests_deferred (gauges):
//     the requests holding a slot now, and waiting for one.
//   - llamacpp:n_busy_slots_per_decode (gauge): the busy slots summed over
//     the calls (each reply's calls) / max(n_decode_total, 1).
//
// No KV-cache gauge: llama-server serves none.
//
// With SIM_FLAVOR=tgi it serves what text-generation-inference's router
// serves (its names, types and HELP in router/src/server.rs, printed as
// metrics-exporter-prometheus prints them): Content-Type "text/plain;
// charset=utf-8", no labels, no "_total" suffix, counters as integers and
// other values as Rust prints a float ("3", "0.0015"), a blank line after
// each family; counters, then gauges, then histograms, each by name. The
// page is empty until a chat request asks for a slot (a metric appears
// once touched), and the histograms and tgi_request_success appear with the
// first reply counted:
//
//   - tgi_request_count (counter): the chat requests that asked for a slot.
//   - tgi_request_success (counter): + 1 a reply counted.
//   - tgi_batch_current_size, tgi_queue_size (gauges): the requests
//     holding a slot now, and waiting for one.
//   - tgi_request_duration (histogram): end − arrival;
//     tgi_request_queue_duration: t0 − arrival;
//     tgi_request_inference_duration: end − t0;
//     tgi_request_mean_time_per_token_duration: that / the tokens it sent;
//     tgi_request_validation_duration: 0. Bounds 0.0001 × 1.5^k, k = 1…35.
//   - tgi_request_input_length (histogram): P, in 100 steps to
//     SIM_CONTEXT − 1 (max_input_tokens); tgi_request_generated_tokens:
//     the tokens it sent, and tgi_request_max_new_tokens: the tokens it
//     asked for (n), in 100 steps to SIM_CONTEXT (max_total_tokens).
//
// No KV-cache share, prefix cache or speculative counters: TGI serves
// none (tgi_batch_current_max_tokens, its batch's token budget, is left
// out).
//
// # Faults
//
// For testing clients the server can misbehave on purpose. Config.Fault
// (SIM_FAULT) is the mode; Config.FaultEvery (SIM_FAULT_EVERY, default 1)
// picks the chat requests it hits: the server numbers the chat requests of
// both endpoints together from 1, as their bodies have been read (before
// they are parsed; an Ollama request without messages, a load or an
// unload, is no chat request and has no number), and the k-th gets the
// fault when k % FaultEvery == 0. The others,
// and the metadata endpoints always, are served as usual. Let k be
// max(m/2, 1), "half the tokens" of the reply: tokens 0..k-1 go out on the
// schedule, then, when token k would be due (the end time for m = 1):
//
//   - reset: the connection is reset (hijacked, SO_LINGER 0, closed: a TCP
//     RST). The client reads "connection reset by peer".
//   - truncate: the response ends, with a proper end of its chunked body,
//     but no final chunk: no done:true line; no finish_reason, usage or
//     [DONE].
//   - malformed: one line of broken JSON, a token chunk cut in the middle
//     of its text, "simulated fault: malformed chunk, cut here", then a
//     newline (SSE: a blank line too); then tokens k..m-1 and the end as
//     usual.
//   - error: an in-stream error in the protocol's own shape, then the end
//     (below).
//   - object-error: the same with older vLLM's shape for OpenAI (below);
//     Ollama has one shape, error's.
//   - stall: nothing more; the handler holds the connection open, parked,
//     until the client goes away or the server closes.
//
// The in-stream errors, with a message like "simulated fault: error after 4
// of 8 tokens": Ollama (error and object-error), after which the response
// ends,
//
//	{"error":"simulated fault: …"}
//
// OpenAI error, then data: [DONE],
//
//	data: {"error":{"message":"simulated fault: …","type":"InternalServerError","code":500}}
//
// OpenAI object-error, then data: [DONE],
//
//	data: {"object":"error","message":"simulated fault: …","type":"InternalServerError","param":null,"code":500}
//
// Four modes change the whole stream instead:
//
//   - empty: no text at all, the end on schedule (t0 + TTFT + m/rate).
//     Ollama: only the final line, content "", done_reason "stop",
//     eval_count 0. OpenAI: the role chunk, then a finish chunk with
//     content "" and finish_reason "stop", the usage chunk (if asked for)
//     with completion_tokens 0, and [DONE].
//   - big-line: token k (token 0 when m = 1) is one chunk whose text is
//     1 MiB + 1 bytes of 'x', a line longer than 1 MiB (with
//     SIM_TOKENS_PER_CHUNK, the chunk that carries token k carries that
//     text in its place). The rest as usual: a client must succeed.
//   - keepalive: keep-alive lines, one right after the headers and one
//     before every token chunk: the SSE comment ": keepalive" and a blank
//     line (OpenAI), an empty line (Ollama). The rest as usual: a client
//     must succeed.
//   - burst: nothing until the last token is due (t0 + the offset of token
//     m−1), then every token chunk at once, the final chunk on schedule:
//     a stream held back and let go. Ollama's eval_duration is the
//     scheduled decode time as usual. A client must succeed; its decode
//     time per token is the reply's burst, not the decoding.
//
// And "http-NNN", NNN from 400 to 599: the chat request is answered at once
// with status NNN, Content-Type application/json and the protocol's error
// body, Ollama's
//
//	{"error":"simulated fault: HTTP NNN"}
//
// or OpenAI's (vLLM), with T from the status (e.g. "ServiceUnavailableError"
// for 503),
//
//	{"object":"error","message":"simulated fault: HTTP NNN","type":T,"param":null,"code":NNN}
//
// Every error message the server writes contains "simulated fault", so a
// test can check that the server's words reach the client's error. An
// Ollama "stream": false request gets the fault as one response can: reset,
// stall, http-NNN as above; error and object-error an HTTP 500
// {"error":"simulated fault: …"} when token k would be due; truncate and
// malformed the object cut in the middle (a clean end of a broken body);
// empty no text and eval_count 0; big-line the big token in the text;
// keepalive nothing different.
//
// Server.OpenConns counts the client connections open, so a test can check
// that a client closed every connection it gave up on.
//
// # Tests
//
// go test ./runtimes/sim/ checks the wire shapes, counts, faults and order,
// with bounds that hold on a loaded machine; testdata/golden/ pins the
// default settings' bytes (TestGoldenDefaults; -update rewrites), and
// TestSettingsDocumented holds docs/simulator.md's settings table to
// Config. The tests
// whose verdict depends on how promptly the machine wakes goroutines (the
// schedule's lateness, the clock's precision, the client's view of slots
// and slowdown) are built only with the timing tag and run on their own:
//
//	go test -tags timing -p 1 ./runtimes/sim/
package sim

// This file is long because it is the simulator's manual: every setting
// and habit, in the one place go doc shows (the settings' table is
// docs/simulator.md's). config.go is long because Config declares every
// SIM_ setting, each with its tag and comment, and the checks of their
// values sit beside it.
