package e2e

import (
	"fmt"
	"math"

	"github.com/inferencebench/inferencebench/runtimes"
)

// clientDecode is the suite's client-side decode rate of one request:
// output tokens / (total - TTFT). NaN when no text arrived (TTFT zero) or
// the stream ended with it.
func clientDecode(r runtimes.Result) float64 {
	d := r.Total - r.TTFT
	if r.TTFT <= 0 || d <= 0 {
		return math.NaN()
	}
	return float64(r.OutputTokens) / d.Seconds()
}

// serverDecode is the server's own decode rate of one request, Ollama's
// eval_count / eval_duration, which the suite reports as
// server-decode-tok/s (its decode-tok/s is the client's on every runtime).
// NaN when the server reported no eval time.
func serverDecode(r runtimes.Result) float64 {
	if r.Eval <= 0 {
		return math.NaN()
	}
	return float64(r.OutputTokens) / r.Eval.Seconds()
}

// checkTokens returns what is wrong with r's output: it must have exactly
// want tokens by the server's own count, and have ended for the limit.
func checkTokens(r runtimes.Result, want int) []string {
	var fails []string
	if r.TokensApprox {
		fails = append(fails, fmt.Sprintf("the server gave no token count (%d chunks counted)", r.Chunks))
	}
	if r.OutputTokens != want {
		fails = append(fails, fmt.Sprintf("%d output tokens, want %d (finish reason %q)", r.OutputTokens, want, r.FinishReason))
	}
	if r.FinishReason != "length" {
		fails = append(fails, fmt.Sprintf("finish reason %q, want \"length\"", r.FinishReason))
	}
	return fails
}

// hasServerTimes reports whether the server reported the request's decode
// and prompt evaluation times, which checkAgainstServer compares with.
func hasServerTimes(r runtimes.Result) bool {
	return r.Eval > 0 && r.PromptEval > 0
}

// checkAgainstServer returns what is wrong with one request's client-side
// figures against the server's for the same request: the client-side
// decode rate must be within 1 ± tol of the server's eval rate, and TTFT,
// which includes the prompt evaluation, not below the server's prompt
// evaluation time.
func checkAgainstServer(r runtimes.Result, tol float64) []string {
	if !hasServerTimes(r) {
		return []string{fmt.Sprintf("the server reported eval_duration %v, prompt_eval_duration %v", r.Eval, r.PromptEval)}
	}
	var fails []string
	c, s := clientDecode(r), serverDecode(r)
	if !within(c/s, tol) {
		fails = append(fails, fmt.Sprintf("client-side decode %.1f tok/s is %+.1f%% off the server's eval rate %.1f tok/s (limit ±%.0f%%)",
			c, 100*(c/s-1), s, 100*tol))
	}
	if r.TTFT < r.PromptEval {
		fails = append(fails, fmt.Sprintf("TTFT %.2f ms is below the server's prompt evaluation time %.2f ms", millis(r.TTFT), millis(r.PromptEval)))
	}
	return fails
}
