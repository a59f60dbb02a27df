package telemetry

import (
	"fmt"
	"math"
	"slices"
)

// Metric names the derived figures read. The vLLM ones are histograms (their
// _sum and _count); the llama.cpp ones are counters of seconds summed over
// requests.
const (
	vllmPrefill      = "vllm:request_prefill_time_seconds"
	vllmDecode       = "vllm:request_decode_time_seconds"
	vllmGenerated    = "vllm:generation_tokens_total"
	llamaPrompt      = "llamacpp:prompt_seconds_total"
	llamaPredict     = "llamacpp:tokens_predicted_seconds_total"
	llamaGenerated   = "llamacpp:tokens_predicted_total"
	sglangGenerated  = "sglang:generation_tokens_total"
	tgiGenerated     = "tgi_request_generated_tokens_sum" // a histogram's: the tokens of the requests that ended well
	vllmCached       = "vllm:prompt_tokens_cached_total"
	vllmPrefixHits   = "vllm:prefix_cache_hits_total"
	sglangCached     = "sglang:cached_tokens_total"
	llamaCached      = "llamacpp:prompt_tokens_cached_total"
	tokenTolerance   = 0.01 // CheckGeneratedTokens' relative tolerance
	llamaPrintDigits = 6    // llama-server prints values with C++ streams' default precision
)

// ServerFigures are derived from a ServerDelta where the server exposes the
// metrics they need; a figure the server cannot give is nil. The JSON names
// are the summary's.
type ServerFigures struct {
	// PrefillSMean is the server's mean prefill time per request, seconds:
	// vLLM Δvllm:request_prefill_time_seconds_sum / Δ…_count; llama.cpp
	// Δllamacpp:prompt_seconds_total / the requests the caller sent.
	PrefillSMean *float64 `json:"server_prefill_s_mean,omitempty"`
	// DecodeSMean is the server's mean decode time per request, seconds:
	// vLLM Δvllm:request_decode_time_seconds_sum / Δ…_count; llama.cpp
	// Δllamacpp:tokens_predicted_seconds_total / the requests sent.
	DecodeSMean *float64 `json:"server_decode_s_mean,omitempty"`
	// GeneratedTokens is the server's count of generated tokens: Δ of
	// vllm:generation_tokens_total, llamacpp:tokens_predicted_total,
	// sglang:generation_tokens_total or tgi_request_generated_tokens_sum
	// (text-generation-inference's histogram of them per request).
	GeneratedTokens *float64 `json:"server_generated_tokens,omitempty"`
	// GeneratedTokensSlack bounds the error in GeneratedTokens that comes
	// from the server's printing: llama-server prints its counters with 6
	// significant digits, so past a million tokens the two scrapes are
	// rounded (to 10 up to 10⁷, …). 0 for the other servers.
	GeneratedTokensSlack float64 `json:"-"`
	// CachedPromptTokens is the server's count of prompt tokens it took
	// from its prefix cache rather than computed: Δ of
	// vllm:prompt_tokens_cached_total (recent vLLM), else of
	// vllm:prefix_cache_hits_total (vLLM V1's prefix cache, in tokens),
	// else of sglang:cached_tokens_total (summed over its
	// cache_source label), else of llamacpp:prompt_tokens_cached_total
	// (current llama-server builds, b1-0c1e570 among them; printed
	// with 6 significant digits). vLLM counts them whether or not its replies
	// state them (--enable-prompt-tokens-details).
	CachedPromptTokens *float64 `json:"server_cached_prompt_tokens,omitempty"`
	// CachedPromptTokensFrom is the counter CachedPromptTokens was read
	// from, "" where it is nil.
	CachedPromptTokensFrom string `json:"-"`
}

// DeriveServerFigures computes ServerFigures from d. requests is the number
// of requests the caller sent between the two scrapes; llama.cpp's figures,
// sums over requests, are divided by it (requests <= 0 leaves them nil).
// A figure whose inputs are missing, reset (see ServerDelta.Reset) or count
// no request is nil.
func DeriveServerFigures(d ServerDelta, requests int) ServerFigures {
	var f ServerFigures
	get := func(name string) (float64, bool) {
		v, ok := d.Values[name]
		return v, ok && !slices.Contains(d.Reset, name)
	}
	ratio := func(num, den string) *float64 {
		n, ok1 := get(num)
		c, ok2 := get(den)
		if !ok1 || !ok2 || c <= 0 {
			return nil
		}
		v := n / c
		return &v
	}
	perRequest := func(name string) *float64 {
		n, ok := get(name)
		if !ok || requests <= 0 {
			return nil
		}
		v := n / float64(requests)
		return &v
	}

	f.PrefillSMean = ratio(vllmPrefill+"_sum", vllmPrefill+"_count")
	f.DecodeSMean = ratio(vllmDecode+"_sum", vllmDecode+"_count")
	if f.PrefillSMean == nil {
		f.PrefillSMean = perRequest(llamaPrompt)
	}
	if f.DecodeSMean == nil {
		f.DecodeSMean = perRequest(llamaPredict)
	}
	for _, name := range []string{vllmGenerated, llamaGenerated, sglangGenerated, tgiGenerated} {
		if v, ok := get(name); ok {
			f.GeneratedTokens = &v
			if name == llamaGenerated {
				f.GeneratedTokensSlack = printSlack(d.before[name]) + printSlack(d.after[name])
			}
			break
		}
	}
	for _, name := range CachedCounters() {
		if v, ok := get(name); ok {
			f.CachedPromptTokens, f.CachedPromptTokensFrom = &v, name
			break
		}
	}
	return f
}

// CachedCounters are the counters, by name, from which
// ServerFigures.CachedPromptTokens is read, in the order tried.
func CachedCounters() []string {
	return []string{vllmCached, vllmPrefixHits, sglangCached, llamaCached}
}

// printSlack is the largest rounding error of v printed with
// llamaPrintDigits significant digits (0 while that prints every digit).
func printSlack(v float64) float64 {
	v = math.Abs(v)
	if v < math.Pow10(llamaPrintDigits) {
		return 0
	}
	return math.Pow10(int(math.Floor(math.Log10(v)))-llamaPrintDigits+1) / 2
}

// CheckGeneratedTokens compares the server's count of generated tokens with
// the client's (the sum of the usage counts of the requests between the two
// scrapes). It returns an error saying by how much they differ when the
// difference is more than 1% of the client's count (plus
// f.GeneratedTokensSlack), and nil when they agree or the server gave no
// count.
func CheckGeneratedTokens(f ServerFigures, clientTokens int) error {
	if f.GeneratedTokens == nil {
		return nil
	}
	server, client := *f.GeneratedTokens, float64(clientTokens)
	diff := server - client
	if math.Abs(diff) <= tokenTolerance*client+f.GeneratedTokensSlack {
		return nil
	}
	rel := "the client counted none"
	if client > 0 {
		rel = fmt.Sprintf("%+.1f%%", 100*diff/client)
	}
	return fmt.Errorf("telemetry: the server counted %.0f generated tokens, the client %d (%+.0f, %s; more than %.0f%% apart)",
		server, clientTokens, diff, rel, 100*tokenTolerance)
}
