package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// peerCmd compares our native decode rate with the generate rate of
// Ollama's own benchmark tool (github.com/ollama/ollama/cmd/bench) on the
// same server, prompt and token limit, in interleaved phases: ours, theirs,
// ours, theirs, …, so that a change in the machine's load touches both.
func peerCmd(args []string) error {
	fs := flag.NewFlagSet("peer", flag.ExitOnError)
	url := fs.String("url", "", "Ollama server root")
	model := fs.String("model", "", "model name")
	bench := fs.String("bench", "", "Ollama's benchmark tool (a built github.com/ollama/ollama/cmd/bench)")
	promptName := fs.String("prompt", "short", "built-in prompt both send")
	pairs := fs.Int("pairs", 3, "ours-theirs pairs of phases")
	n := fs.Int("n", 4, "requests per phase")
	maxTokens := fs.Int("max-tokens", 128, "output tokens asked for")
	seed := fs.Int("seed", 42, "sampling seed (cmd/bench sends it only when > 0)")
	tol := fs.Float64("tolerance", 0.20, "largest relative difference of the two medians")
	timeout := fs.Duration("timeout", 2*time.Minute, "limit for one request")
	fs.Parse(args)
	if *url == "" || *model == "" || *bench == "" {
		return fmt.Errorf("-url, -model and -bench are required")
	}
	if *seed <= 0 {
		return fmt.Errorf("-seed must be > 0, or cmd/bench would not send it")
	}
	ps, err := prompts.Load([]string{*promptName}, "")
	if err != nil {
		return err
	}
	prompt := ps[0]
	rt, err := runtimes.New(runtimes.Config{Name: "ollama", Kind: runtimes.KindOllama, URL: *url, Model: *model, Timeout: *timeout})
	if err != nil {
		return err
	}
	ctx := context.Background()
	req := runtimes.Request{Prompt: prompt.Text, MaxTokens: *maxTokens, Seed: seed, Temperature: 0}
	var f failures

	// One uncounted request, so that neither side pays for loading the
	// model or evaluating the prompt the first time.
	if r := rt.Do(ctx, req); !r.OK() {
		f.add("warm-up request: %v", r.Err)
		return f.err()
	}

	fmt.Printf("Against Ollama's own benchmark tool: prompt %q, max_tokens %d, seed %d, temperature 0; %d pairs of %d requests each, interleaved\n",
		prompt.Name, *maxTokens, *seed, *pairs, *n)
	var ours, oursClient, theirs []float64
	for pair := 1; pair <= *pairs; pair++ {
		var phase, phaseClient []float64
		for i := range *n {
			r := rt.Do(ctx, req)
			if !r.OK() {
				f.add("ours, pair %d #%d: %v", pair, i+1, r.Err)
				continue
			}
			if r.OutputTokens != *maxTokens || r.Eval <= 0 {
				f.add("ours, pair %d #%d: %d output tokens in %v of server eval, want %d", pair, i+1, r.OutputTokens, r.Eval, *maxTokens)
				continue
			}
			phase = append(phase, float64(r.OutputTokens)/r.Eval.Seconds())
			phaseClient = append(phaseClient, clientDecode(r))
		}
		fmt.Printf("  pair %d ours:   decode (server eval rate, the suite's decode-tok/s for Ollama) median %7.1f tok/s, client-side median %7.1f tok/s, %d requests\n",
			pair, median(phase), median(phaseClient), len(phase))
		ours, oursClient = append(ours, phase...), append(oursClient, phaseClient...)

		out, err := runBench(ctx, *bench, *url, *model, prompt.Text, *n, *maxTokens, *seed, time.Duration(*n)*(*timeout))
		gen, perr := parseBench(out, *model, *maxTokens)
		if err != nil {
			f.add("theirs, pair %d: %v", pair, err)
		}
		if perr != nil {
			f.add("theirs, pair %d: %v", pair, perr)
		}
		if len(gen) != *n {
			f.add("theirs, pair %d: %d generate results, want %d", pair, len(gen), *n)
		}
		fmt.Printf("  pair %d theirs: generate median %7.1f tok/s, %d requests\n", pair, median(gen), len(gen))
		theirs = append(theirs, gen...)
	}
	mo, mt := median(ours), median(theirs)
	fmt.Printf("ours: median decode %.1f tok/s over %d requests (client-side %.1f); ollama cmd/bench: median generate %.1f tok/s over %d requests; ours/theirs %.3f (limit 1 ± %.2f)\n",
		mo, len(ours), median(oursClient), mt, len(theirs), mo/mt, *tol)
	if !(math.Abs(mo/mt-1) <= *tol) {
		f.add("our median decode rate %.1f tok/s is %+.1f%% off cmd/bench's %.1f tok/s (limit ±%.0f%%)", mo, 100*(mo/mt-1), mt, 100**tol)
	}
	if len(f) == 0 {
		fmt.Printf("peer OK: medians agree within ±%.0f%%\n", 100**tol)
	}
	return f.err()
}

// runBench runs cmd/bench against url and returns its standard output.
// cmd/bench reports a failed request on stderr and still exits 0, so any
// "ERROR" line there is an error here.
func runBench(ctx context.Context, bin, url, model, prompt string, epochs, maxTokens, seed int, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"-model", model, "-epochs", strconv.Itoa(epochs), "-max-tokens", strconv.Itoa(maxTokens),
		"-temperature", "0", "-seed", strconv.Itoa(seed), "-p", prompt, "-format", "benchstat")
	// cmd/bench finds the server through OLLAMA_HOST, like the ollama CLI.
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String(), fmt.Errorf("%s: %v: %s", bin, err, strings.TrimSpace(stderr.String()))
	}
	if s := stderr.String(); strings.Contains(s, "ERROR") {
		return stdout.String(), fmt.Errorf("%s: %s", bin, strings.TrimSpace(s))
	}
	return stdout.String(), nil
}

// benchLine is cmd/bench's benchstat line for a step with tokens:
// BenchmarkModel/name=<model>/step=generate <count> <ns> ns/token <rate> token/sec
var benchLine = regexp.MustCompile(`^BenchmarkModel/name=(.+)/step=(prefill|generate) (\d+) ([0-9.]+) ns/token ([0-9.]+) token/sec$`)

// parseBench returns the generate rate of each request in cmd/bench's
// benchstat output, and an error if a request was for another model or
// did not generate want tokens.
func parseBench(out, model string, want int) ([]float64, error) {
	var rates []float64
	var errs []string
	for _, line := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || m[2] != "generate" {
			continue
		}
		count, _ := strconv.Atoi(m[3])
		rate, _ := strconv.ParseFloat(m[5], 64)
		switch {
		case m[1] != model:
			errs = append(errs, fmt.Sprintf("a result for model %q", m[1]))
		case count != want:
			errs = append(errs, fmt.Sprintf("a request generated %d tokens, want %d", count, want))
		case !(rate > 0):
			errs = append(errs, fmt.Sprintf("generate rate %v", m[5]))
		default:
			rates = append(rates, rate)
		}
	}
	if len(errs) > 0 {
		return rates, fmt.Errorf("cmd/bench output: %s", strings.Join(errs, "; "))
	}
	return rates, nil
}
