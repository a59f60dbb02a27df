// Package workload reads workload files — recorded conversations, request
// traces, message lists — and tools files, and draws lengths from
// distributions: the reading half of workload replay, tool calls and
// length distributions (issue 31: BENCH_WORKLOAD, BENCH_TOOLS and the
// distributions of BENCH_INPUT_TOKENS and BENCH_MAX_TOKENS, which package
// config reads and the driver replays). It knows no settings and sends nothing: the driver
// calls [Read], [NewTraceText], [ParseDistribution] and [ReadToolsSum], and
// sends what they return.
//
// # Formats
//
// [Read] tells the three formats apart by their content, not by the file's
// extension: a file that starts with '[' is ShareGPT conversations; one
// that starts with '{' is JSONL (one JSON object a line, blank lines
// skipped), whose first object decides: "conversations" is ShareGPT (a
// conversation a line), "timestamp" or "input_length" a trace, "messages"
// message lists. Anything else is an error that names the file and says
// what was expected. A workload is benchmarked as a prompt named after its
// file ([Name]: trace-2024.jsonl is prompt=trace-2024).
//
// Errors name the file and where: the line, from 1, of a JSONL file; the
// index, from 0 as jq's .[i], of a ShareGPT array's item, with its id and
// line:
//
//	workload trace.jsonl line 17: input_length -3: must be 1 or more
//	workload sharegpt.json item 4 (id "x7Qe", line 61): "from" "tool" is not a ShareGPT role (…)
//
// A missing file, a line that is not JSON, a field of the wrong type or
// out of range, and a file with no item to send are errors; nothing is
// sent from a file with one.
//
// # ShareGPT conversations
//
// The format of ShareGPT dumps (ShareGPT_V3_unfiltered_cleaned_split.json,
// which vLLM's and SGLang's benchmarks read): a JSON array of
// conversations, each a list of turns. Other keys ("model", "lang", …) are
// ignored.
//
//	[
//	  {"id": "q1", "conversations": [
//	    {"from": "system", "value": "You answer in one paragraph."},
//	    {"from": "human", "value": "Why is the sky blue?"},
//	    {"from": "gpt", "value": "Because air scatters blue light more …"},
//	    {"from": "human", "value": "And why are sunsets red?"},
//	    {"from": "gpt", "value": "At sunset the light crosses more air …"}
//	  ]}
//	]
//
// A conversation is replayed turn by turn, as BENCH_TURNS does: its human
// turns are the user messages, in order, and the replies are the model's
// own, each sent back as streamed; the recorded "gpt" turns are not sent.
// [Item.Turns] are the human turns (consecutive human turns are one,
// joined by a blank line), [Item.System] the system turns before the
// first human turn.
//
// "from" is human or user for the user's turns; gpt, assistant, chatgpt,
// bing, bard or model for the model's (ShareGPT's dumps use several); system
// for a system prompt. Any other value is an error that names it: a
// conversation the suite would misread is never sent.
//
// Conversations that cannot be replayed are skipped and counted in
// [Workload.Skipped], by reason, never an error: one whose first turn after
// its system turns is the model's ([SkipModelFirst]: its user turns answer
// a reply we cannot make the model give), one with no human turn
// ([SkipNoHuman]), one with a human turn that is empty ([SkipEmptyHuman]),
// and one with a system turn after its first human turn
// ([SkipLateSystem]: a request carries its system prompt first). vLLM's
// benchmark likewise drops the conversations it cannot use, those of
// fewer than two turns (and sends the first turn, whoever said it, with
// the second as the expected reply). Read reports the count by reason
// ([Workload.SkippedSummary]); a file whose every conversation is skipped
// is an empty workload: an error.
//
// The same objects one a line (JSONL) are read the same way; their
// [Item.Index] is then the line.
//
// # Traces
//
// Mooncake's trace format (github.com/kvcache-ai/Mooncake, its FAST'25
// traces): a JSONL of requests, each with its arrival time in milliseconds
// from the trace's start, its input and output lengths in tokens, and the
// hash ids of the blocks its prompt begins with.
//
//	{"timestamp": 0, "input_length": 1800, "output_length": 120, "hash_ids": [0, 1, 2, 3]}
//	{"timestamp": 0, "input_length": 2300, "output_length": 95, "hash_ids": [0, 1, 4, 5, 6]}
//	{"timestamp": 412, "input_length": 700, "output_length": 300, "hash_ids": [7, 8]}
//	{"timestamp": 1530.5, "input_length": 90, "output_length": 40}
//
// timestamp (0 or more, whole or not) and input_length and output_length
// (whole, 1 or more) are required; hash_ids (whole, 0 or more) is
// optional; other keys are ignored. Lines must be in time order (equal
// timestamps arrive together).
//
// A hash id is a block of [Options.BlockTokens] tokens, 512 by default as
// in Mooncake's traces: request 2 above shares blocks 0 and 1 — its first
// 1024 tokens — with request 1. A request lists at most
// ceil(input_length/BlockTokens) blocks (Mooncake's list exactly that
// many, the last one cut short); more is an error that suggests the block
// size is wrong.
//
// The trace is replayed open-loop: request i is sent at [TraceRequest.Arrival],
// its timestamp less the first one's, divided by [Options.Speed] (2 replays
// it twice as fast), whatever the server has in flight, and asks for
// output_length tokens.
//
// Its prompts are the suite's generated text, made per runtime by
// [TraceText]: each block's text depends on its hash id alone, so a
// request whose first blocks an earlier one sent starts with the same text
// and a server's prefix cache can reuse it, as it could in the recorded
// service; after its blocks a request has a tail of its own up to
// input_length. How many words make a block's tokens is the driver's to
// say for each runtime ([WordsFor], [PerWord]), as tokenizers differ;
// given the same WordsFor, a request is the same text everywhere.
//
// # Message lists
//
// The suite's own format: a JSONL of OpenAI-style message lists, each with
// an optional max_tokens.
//
//	{"messages": [{"role": "user", "content": "Summarise the French revolution in 3 lines."}]}
//	{"messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name a prime."}, {"role": "assistant", "content": "7"}, {"role": "user", "content": "Another."}], "max_tokens": 64}
//
// A line is a conversation replayed like a ShareGPT one: its system
// messages (before its first user message) are the system prompt, its
// user messages the turns, its assistant messages the recorded replies,
// not sent (the model's own are). Roles are system, user and assistant;
// content is a string. max_tokens, 1 or more, replaces the run's
// BENCH_MAX_TOKENS for that conversation's turns. Being the suite's own,
// this format refuses keys it does not know, so that a misspelt
// "max_token", or a "temperature" that would not be sent, is said.
//
// # Sampling
//
// [Options.N] takes N items of a larger file, drawn with a PCG
// (math/rand/v2) seeded with [Options.Seed] ([DefaultSeed] if 0): the same
// file and N give the same sample in every run and on every machine, and
// another seed another sample. Conversations and message lists are a
// uniform sample (reservoir sampling, in one pass, keeping only the sample
// in memory) in the file's order. A trace's sample is a window of N
// consecutive requests whose first is drawn uniformly: a window keeps the
// recorded gaps and bursts and the requests that share prefixes close in
// time, where every k-th request would thin the trace — its rate k times
// lower and its bursts split. Arrivals count from the window's first
// request. A request's text depends on its line and hash ids, not on the
// sample.
//
// A trace whose last arrival (after Speed) is later than
// [Options.MaxDuration] is an error that says so, before any request.
//
// # Context
//
// [Workload.CheckContext] names the first item that does not fit a
// runtime's context — a trace request's input_length + output_length; a
// conversation's system prompt, every turn and every reply of max tokens
// at its last turn — and how many more do not; [Workload.MaxNeed] is what
// Ollama's num_ctx must hold.
//
// # Distributions
//
// [ParseDistribution] reads a length or a distribution of lengths, for
// BENCH_INPUT_TOKENS and BENCH_MAX_TOKENS: "1024" (or "1k"), "normal:1024,256"
// (mean and standard deviation) or "uniform:128-2048" (both ends
// included). Each request draws its own ([Distribution.Sample]), at least
// 1 and at most [Distribution.Bound].
//
// # Tools
//
// [ReadTools] reads a tools file: a JSON array of OpenAI function
// tools, which Ollama's /api/chat takes as they are.
//
//	[
//	  {"type": "function", "function": {"name": "get_weather",
//	    "description": "The current weather in a city",
//	    "parameters": {"type": "object",
//	      "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
//	]
package workload
