package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// accuracyCmd sends requests through the suite's own runtimes package, one
// at a time, and compares what our client measured with what the server
// reported for the same request.
func accuracyCmd(args []string) error {
	fs := flag.NewFlagSet("accuracy", flag.ExitOnError)
	url := fs.String("url", "", "Ollama server root")
	model := fs.String("model", "", "model name")
	promptNames := fs.String("prompts", "short,medium,code", "built-in prompts to send")
	n := fs.Int("n", 4, "requests per prompt on the native API")
	nOpenAI := fs.Int("n-openai", 2, "requests per prompt on the OpenAI-compatible API (token count check only)")
	maxTokens := fs.Int("max-tokens", 128, "output tokens asked for")
	seed := fs.Int("seed", 42, "sampling seed")
	tol := fs.Float64("tolerance", 0.15, "largest relative difference of client-side decode rate from the server's eval rate")
	timeout := fs.Duration("timeout", 2*time.Minute, "limit for one request")
	fs.Parse(args)
	if *url == "" || *model == "" {
		return fmt.Errorf("-url and -model are required")
	}
	ps, err := prompts.Load(names(*promptNames), "")
	if err != nil {
		return err
	}
	native, err := runtimes.New(runtimes.Config{Name: "ollama", Kind: runtimes.KindOllama, URL: *url, Model: *model, Timeout: *timeout})
	if err != nil {
		return err
	}
	v1, err := runtimes.New(runtimes.Config{Name: "ollama-v1", Kind: runtimes.KindOpenAI, URL: *url, Model: *model, Timeout: *timeout})
	if err != nil {
		return err
	}
	ctx := context.Background()
	var f failures

	fmt.Printf("Client against server: %d requests per prompt on %s/api/chat, one at a time, max_tokens %d\n", *n, *url, *maxTokens)
	fmt.Printf("%-7s %2s %6s %6s %9s %9s %9s %9s %10s %10s %6s\n",
		"prompt", "#", "tokens", "finish", "ttft_ms", "p_eval_ms", "total_ms", "eval_ms", "client/s", "server/s", "ratio")
	var clientRates, serverRates, ratios, ttfts, pevals []float64
	ttftBelow := 0
	for _, p := range ps {
		req := runtimes.Request{Prompt: p.Text, MaxTokens: *maxTokens, Seed: seed, Temperature: 0}
		for i := range *n {
			r := native.Do(ctx, req)
			name := fmt.Sprintf("native %s #%d", p.Name, i+1)
			if !r.OK() {
				f.add("%s: %v", name, r.Err)
				continue
			}
			c := clientDecode(r)
			s := float64(r.OutputTokens) / r.Eval.Seconds()
			fmt.Printf("%-7s %2d %6d %6s %9.1f %9.1f %9.1f %9.1f %10.1f %10.1f %6.3f\n",
				p.Name, i+1, r.OutputTokens, r.FinishReason, ms(r.TTFT), ms(r.PromptEval), ms(r.Total), ms(r.Eval), c, s, c/s)
			checkTokens(&f, name, r, *maxTokens)
			if r.Eval <= 0 || r.PromptEval <= 0 {
				f.add("%s: the server reported eval_duration %v, prompt_eval_duration %v", name, r.Eval, r.PromptEval)
				continue
			}
			if !(math.Abs(c/s-1) <= *tol) {
				f.add("%s: client-side decode %.1f tok/s is %+.1f%% off the server's eval rate %.1f tok/s (limit ±%.0f%%)", name, c, 100*(c/s-1), s, 100**tol)
			}
			if r.TTFT < r.PromptEval {
				ttftBelow++
				f.add("%s: TTFT %.2f ms is below the server's prompt evaluation time %.2f ms", name, ms(r.TTFT), ms(r.PromptEval))
			}
			clientRates, serverRates, ratios = append(clientRates, c), append(serverRates, s), append(ratios, c/s)
			ttfts, pevals = append(ttfts, ms(r.TTFT)), append(pevals, ms(r.PromptEval))
		}
	}
	if len(ratios) > 0 {
		fmt.Printf("client-side decode (output tokens / (total - TTFT)): median %.1f tok/s; server eval rate (eval_count / eval_duration): median %.1f tok/s\n",
			median(clientRates), median(serverRates))
		fmt.Printf("client / server per request: median %.3f, range %.3f..%.3f (limit 1 ± %.2f)\n",
			median(ratios), slices.Min(ratios), slices.Max(ratios), *tol)
		fmt.Printf("TTFT: median %.1f ms, range %.1f..%.1f; server prompt evaluation: median %.1f ms, range %.1f..%.1f; TTFT >= prompt eval on %d of %d requests\n",
			median(ttfts), slices.Min(ttfts), slices.Max(ttfts), median(pevals), slices.Min(pevals), slices.Max(pevals), len(ttfts)-ttftBelow, len(ttfts))
	}

	if *nOpenAI > 0 {
		fmt.Printf("Token counts on %s/v1/chat/completions: %d requests per prompt\n", *url, *nOpenAI)
		for _, p := range ps {
			req := runtimes.Request{Prompt: p.Text, MaxTokens: *maxTokens, Seed: seed, Temperature: 0}
			for i := range *nOpenAI {
				r := v1.Do(ctx, req)
				name := fmt.Sprintf("openai %s #%d", p.Name, i+1)
				if !r.OK() {
					f.add("%s: %v", name, r.Err)
					continue
				}
				fmt.Printf("%-7s %2d %6d %6s %9.1f %9s %9.1f %9s %10.1f\n", p.Name, i+1, r.OutputTokens, r.FinishReason, ms(r.TTFT), "-", ms(r.Total), "-", clientDecode(r))
				checkTokens(&f, name, r, *maxTokens)
			}
		}
	}
	if len(f) == 0 {
		fmt.Printf("accuracy OK: every request produced %d output tokens; client-side decode within ±%.0f%% of the server's eval rate; TTFT >= prompt evaluation\n", *maxTokens, 100**tol)
	}
	return f.err()
}

// checkTokens checks that r produced exactly want tokens by the server's
// own count, and stopped for the limit.
func checkTokens(f *failures, name string, r runtimes.Result, want int) {
	if r.TokensApprox {
		f.add("%s: the server gave no token count (%d chunks counted)", name, r.Chunks)
	}
	if r.OutputTokens != want {
		f.add("%s: %d output tokens, want %d (finish reason %q)", name, r.OutputTokens, want, r.FinishReason)
	}
	if r.FinishReason != "length" {
		f.add("%s: finish reason %q, want \"length\"", name, r.FinishReason)
	}
}

// clientDecode is the suite's client-side decode rate: output tokens /
// (total - TTFT).
func clientDecode(r runtimes.Result) float64 {
	d := r.Total - r.TTFT
	if r.TTFT <= 0 || d <= 0 {
		return math.NaN()
	}
	return float64(r.OutputTokens) / d.Seconds()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// median of xs (mean of the middle two for an even count); NaN if empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
