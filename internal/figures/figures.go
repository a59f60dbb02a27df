// Package figures is the one list of the suite's figures: for each, its
// unit on the result lines of go test and the .txt (a released name, never
// renamed), the key of its value in a summary row (released too), which
// way it improves, and the name, unit and scale the tools show it in.
// The .txt's Unit lines, the units the benchmark reports, cmd/report's
// tables and charts and cmd/history's series all take them from here, so
// that they cannot drift apart.
package figures

// Better says which way a figure improves.
type Better int

const (
	LowerIsBetter  Better = iota // latencies, energy per token
	HigherIsBetter               // rates
	Neither                      // counts of what was asked, the server's own times
)

// String is the direction as a Unit line of the benchstat format says
// it: "lower" or "higher" ("" for Neither).
func (b Better) String() string {
	switch b {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return ""
}

// Figure is one figure of a summary row.
type Figure struct {
	// Key is the row's JSON key of the figure, in seconds for times.
	Key string
	// Unit is the figure's unit on the result lines, "" where the result
	// lines do not have it. A result line has the mean of a figure whose
	// Key is a percentile's, in the unit's scale (ns for seconds).
	Unit string
	// Name and Shown are what the tools show: "TTFT p50" in "ms", a
	// value of the row times Scale.
	Name, Shown string
	Scale       float64
	// Head is a table's heading where not Heading's rule, Axis a chart's
	// y axis label where not Label's.
	Head, Axis string
	Better     Better
	// Tools marks a figure of tool calls, which only a leaf whose
	// requests were sent with tools (BENCH_TOOLS) has: a .txt has its
	// Unit line only where some result line has its unit, so that the
	// .txt of a run without tools is as it was before these figures.
	Tools bool
	// Embeddings marks a figure of embeddings (BENCH_API=embeddings),
	// which only an embeddings leaf has: as for Tools, a .txt has its
	// Unit line only where some result line has its unit.
	Embeddings bool
	// Quality marks a figure of quality (BENCH_QUALITY), which only a
	// run that measured it has: as for Tools, a .txt has its Unit line
	// only where some result line has its unit.
	Quality bool
	// Memory marks the server's memory, which only a leaf run whose
	// server's processes were found on this machine has: as for Tools, a
	// .txt has its Unit line only where some result line has its unit.
	Memory bool
}

// Heading is the figure's heading in a table: "TTFT p50 ms", the name
// alone for a percentage (said after each value).
func (f Figure) Heading() string {
	switch {
	case f.Head != "":
		return f.Head
	case f.Shown == "%":
		return f.Name
	}
	return f.Name + " " + f.Shown
}

// Label is the figure's label on a chart's y axis: "TTFT p50 (ms)".
func (f Figure) Label() string {
	if f.Axis != "" {
		return f.Axis
	}
	return f.Name + " (" + f.Shown + ")"
}

// The figures. Times are seconds in the row and milliseconds on the page;
// ratios are shown in percent.
var (
	TTFTMean = Figure{Key: "ttft_s_mean", Unit: "ttft-ns", Name: "TTFT mean", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFCMean = Figure{Key: "ttfc_s_mean", Unit: "ttfc-ns", Name: "TTFC mean", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFTP50  = Figure{Key: "ttft_s_p50", Name: "TTFT p50", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFTP95  = Figure{Key: "ttft_s_p95", Name: "TTFT p95", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFTP99  = Figure{Key: "ttft_s_p99", Name: "TTFT p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFCP50  = Figure{Key: "ttfc_s_p50", Name: "TTFC p50", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TTFCP99  = Figure{Key: "ttfc_s_p99", Name: "TTFC p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TPOTMean = Figure{Key: "tpot_s_mean", Unit: "tpot-ns", Name: "TPOT mean", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	TPOTP99  = Figure{Key: "tpot_s_p99", Name: "TPOT p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	ITLP50   = Figure{Key: "itl_s_p50", Name: "ITL p50", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	ITLP99   = Figure{Key: "itl_s_p99", Name: "ITL p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	Prompt   = Figure{Key: "prompt_tps_mean", Unit: "prompt-tok/s", Name: "prefill", Shown: "tok/s", Scale: 1, Better: HigherIsBetter}
	Decode   = Figure{Key: "decode_tps_mean", Unit: "decode-tok/s", Name: "decode", Shown: "tok/s", Scale: 1, Better: HigherIsBetter}
	// DecodeP50 and TPOTP50 are the medians over a leaf run's replies,
	// which one reply cannot move: the figures cmd/history judges and
	// the .txt's to compare (docs/metrics.md).
	DecodeP50 = Figure{Key: "decode_tps_p50", Unit: "decode-p50-tok/s", Name: "decode p50", Shown: "tok/s", Scale: 1, Better: HigherIsBetter}
	TPOTP50   = Figure{Key: "tpot_s_p50", Unit: "tpot-p50-ns", Name: "TPOT p50", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	// ServerDecodeRate is the server's own decode rate (native Ollama's
	// eval_count / eval_duration), measured another way than Decode: it
	// has no Unit line (Neither), and no tool compares it with Decode.
	ServerDecodeRate     = Figure{Key: "server_decode_tps_mean", Unit: "server-decode-tok/s", Name: "server decode rate", Shown: "tok/s", Scale: 1, Better: Neither}
	Request              = Figure{Key: "request_tps_mean", Unit: "request-tok/s", Name: "request", Shown: "tok/s", Scale: 1, Better: HigherIsBetter}
	Aggregate            = Figure{Key: "aggregate_output_tps_mean", Unit: "agg-tok/s", Name: "aggregate", Shown: "tok/s", Scale: 1, Axis: "aggregate output (tok/s)", Better: HigherIsBetter}
	Goodput              = Figure{Key: "goodput_rps", Unit: "good-req/s", Name: "goodput", Shown: "req/s", Scale: 1, Axis: "goodput (requests/s meeting the SLO)", Better: HigherIsBetter}
	SLOAttainment        = Figure{Key: "slo_attainment", Name: "SLO met", Shown: "%", Scale: 100, Better: HigherIsBetter}
	PromptTokens         = Figure{Key: "prompt_tokens_mean", Name: "prompt", Shown: "tok", Scale: 1, Better: Neither}
	CachedTokens         = Figure{Key: "cached_prompt_tokens_mean", Name: "cached prompt", Shown: "tok", Scale: 1, Better: Neither}
	CacheHit             = Figure{Key: "cache_hit_ratio", Name: "cache hit", Shown: "%", Scale: 100, Better: HigherIsBetter}
	CachedShare          = Figure{Name: "cached share", Shown: "%", Scale: 100, Better: HigherIsBetter}
	Energy               = Figure{Key: "energy_j_per_output_token", Unit: "J/tok", Name: "energy per output token", Shown: "J/tok", Scale: 1, Head: "J/tok", Better: LowerIsBetter}
	Power                = Figure{Key: "power_w_mean", Unit: "W", Name: "power", Shown: "W", Scale: 1, Better: LowerIsBetter}
	ServerPrefill        = Figure{Key: "server_prefill_s_mean", Name: "server prefill", Shown: "ms", Scale: 1e3, Better: Neither}
	ServerDecode         = Figure{Key: "server_decode_s_mean", Name: "server decode", Shown: "ms", Scale: 1e3, Better: Neither}
	ClientDecode         = Figure{Name: "client total − TTFT", Shown: "ms", Scale: 1e3, Better: Neither}
	ServerGenerated      = Figure{Key: "server_generated_tokens", Name: "server generated", Shown: "tok", Scale: 1, Better: Neither}
	Achieved             = Figure{Key: "achieved_rps", Name: "achieved", Shown: "req/s", Scale: 1, Better: HigherIsBetter}
	SendLagP99           = Figure{Key: "send_lag_s_p99", Name: "send lag p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter}
	Throughput           = Figure{Key: "throughput_rps", Unit: "req/s", Name: "throughput", Shown: "req/s", Scale: 1, Better: HigherIsBetter}
	NetEnergy            = Figure{Key: "net_energy_j_per_output_token", Unit: "net-J/tok", Name: "net energy per output token", Shown: "J/tok", Scale: 1, Head: "net J/tok", Better: LowerIsBetter}
	NetPower             = Figure{Key: "net_power_w_mean", Name: "net power", Shown: "W", Scale: 1, Better: LowerIsBetter}
	PowerCoverage        = Figure{Key: "power_coverage", Name: "covered", Shown: "%", Scale: 100, Better: HigherIsBetter}
	RequestEnergy        = Figure{Key: "energy_j_per_request_mean", Name: "energy per request", Shown: "J", Scale: 1, Head: "J/request", Better: LowerIsBetter}
	PrefillRequestEnergy = Figure{Key: "prefill_energy_j_per_request_mean", Name: "prefill", Shown: "J", Scale: 1, Head: "prefill J", Better: LowerIsBetter}
	DecodeRequestEnergy  = Figure{Key: "decode_energy_j_per_request_mean", Name: "decode", Shown: "J", Scale: 1, Head: "decode J", Better: LowerIsBetter}
	PrefillTokenEnergy   = Figure{Key: "prefill_energy_j_per_prompt_token", Name: "prefill energy per prompt token", Shown: "mJ/tok", Scale: 1e3, Head: "prefill mJ/prompt tok", Better: LowerIsBetter}
	DecodeTokenEnergy    = Figure{Key: "decode_energy_j_per_output_token", Name: "decode energy per output token", Shown: "J/tok", Scale: 1, Head: "decode J/output tok", Better: LowerIsBetter}
	// Tool calls (BENCH_TOOLS). The share of replies that call a tool is
	// neither better nor worse: a server whose parser does not know the
	// model's format of a call sends it as text, which is no call (fewer),
	// but a model that keeps calling where it should answer makes more;
	// a change says the replies differ, and the prompts say which is
	// right. Valid arguments are better, and a sooner first call.
	ToolCallReplies = Figure{Key: "tool_call_reply_ratio", Unit: "tool-call-replies/req", Name: "tool-call replies", Shown: "%", Scale: 100, Better: Neither, Tools: true}
	ToolArgsValid   = Figure{Key: "tool_args_valid_ratio", Unit: "tool-args-valid/call", Name: "valid tool args", Shown: "%", Scale: 100, Better: HigherIsBetter, Tools: true}
	TTFToolCallMean = Figure{Key: "ttf_tool_call_s_mean", Unit: "ttf-tool-call-ns", Name: "TTF tool call mean", Shown: "ms", Scale: 1e3, Better: LowerIsBetter, Tools: true}
	TTFToolCallP50  = Figure{Key: "ttf_tool_call_s_p50", Name: "TTF tool call p50", Shown: "ms", Scale: 1e3, Better: LowerIsBetter, Tools: true}
	TTFToolCallP99  = Figure{Key: "ttf_tool_call_s_p99", Name: "TTF tool call p99", Shown: "ms", Scale: 1e3, Better: LowerIsBetter, Tools: true}
	// Embeddings (BENCH_API=embeddings): completed requests, and the
	// tokens of their inputs, per second of the rounds' wall time.
	EmbedRequests = Figure{Key: "embed_rps", Unit: "embed-req/s", Name: "embeddings", Shown: "req/s", Scale: 1, Better: HigherIsBetter, Embeddings: true}
	EmbedInput    = Figure{Key: "embed_input_tps", Unit: "input-tok/s", Name: "embedded input", Shown: "tok/s", Scale: 1, Better: HigherIsBetter, Embeddings: true}
	// Quality (BENCH_QUALITY), measured once per runtime and prompt
	// before the timed rounds and on each of their rows: the share of
	// the reference's tokens the greedy reply has too, the mean KL
	// divergence from the reference's next-token distribution over the
	// common prefix (nats), and the share of exact-answer problems
	// answered right.
	AgreeTop1     = Figure{Key: "agree_top1_ratio", Unit: "agree-top1/tok", Name: "top-1 agreement", Shown: "%", Scale: 100, Better: HigherIsBetter, Quality: true}
	AgreeKL       = Figure{Key: "agree_kl_mean", Unit: "agree-kl-nats/tok", Name: "KL", Shown: "nats", Scale: 1, Head: "KL nats/tok", Better: LowerIsBetter, Quality: true}
	ExactAccuracy = Figure{Key: "exact_accuracy", Unit: "exact-right/question", Name: "exact answers", Shown: "%", Scale: 100, Better: HigherIsBetter, Quality: true}
	// The benchmarked server's resident memory at its most during the
	// leaf run's timed part, bytes (its processes on this machine, found
	// by its port; a unit benchstat shows in B, KiB, MiB, GiB). Its key
	// is a count of bytes, not a float like the others'.
	ServerMemory = Figure{Key: "server_rss_peak_bytes", Unit: "server-rss-B", Name: "server memory", Shown: "MiB", Scale: 1.0 / (1 << 20), Better: LowerIsBetter, Memory: true}
)

// All are the figures above, in their order.
var All = []Figure{TTFTMean, TTFCMean, TTFTP50, TTFTP95, TTFTP99, TTFCP50, TTFCP99, TPOTMean, TPOTP50, TPOTP99, ITLP50, ITLP99, Prompt, Decode, DecodeP50, ServerDecodeRate, Request, Aggregate, Goodput, SLOAttainment, PromptTokens, CachedTokens, CacheHit, CachedShare, Energy, Power, ServerPrefill, ServerDecode, ClientDecode, ServerGenerated, Achieved, SendLagP99, Throughput, NetEnergy, NetPower, PowerCoverage, RequestEnergy, PrefillRequestEnergy, DecodeRequestEnergy, PrefillTokenEnergy, DecodeTokenEnergy, ToolCallReplies, ToolArgsValid, TTFToolCallMean, TTFToolCallP50, TTFToolCallP99, EmbedRequests, EmbedInput, AgreeTop1, AgreeKL, ExactAccuracy, ServerMemory}

// Reported are the figures on the result lines, in the order of the .txt's
// Unit lines (a Tools figure's only where a result line has it).
var Reported = []Figure{TTFTMean, TTFCMean, TPOTMean, TPOTP50, Decode, DecodeP50, ServerDecodeRate, Request, Aggregate, Prompt, Throughput, Goodput, Energy, NetEnergy, Power, ToolCallReplies, ToolArgsValid, TTFToolCallMean, EmbedRequests, EmbedInput, AgreeTop1, AgreeKL, ExactAccuracy, ServerMemory}

// Headline are the figures a verdict between two runs judges, in the
// order it names them: the median request's decode rate (a leaf run's
// mean moves with one slow request on a busy machine, its median does
// not: docs/method.md), TTFT, the aggregate output rate and, for an
// embeddings leaf, its requests a second. benchstat's tables show the
// others, unjudged: they move with these, and every figure more in a
// family of tests needs a larger change to be called.
var Headline = []Figure{DecodeP50, TTFTMean, Aggregate, EmbedRequests}

// The keys of a row's counts, which tell whether a file has the count at
// all (a file written before a count existed lacks its key).
const (
	KeySuccesses        = "successes"
	KeyFailures         = "failures"
	KeyShortOutputs     = "short_outputs"
	KeyModelLoads       = "model_loads"
	KeyTruncatedPrompts = "truncated_prompts"
	// KeyBurstReplies is the count of burst replies (docs/metrics.md); a
	// file that has it measured every runtime's decode rate on the
	// client's clock, one without it native Ollama's on the server's.
	KeyBurstReplies = "burst_replies"
)
