package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// benchRun is one run of Ollama's own benchmark tool,
// github.com/ollama/ollama/cmd/bench: epochs requests of prompt to model on
// the server at url, one at a time, at temperature 0.
type benchRun struct {
	bin        string // the built cmd/bench
	url, model string
	prompt     string
	epochs     int
	maxTokens  int
	// seed must be > 0: cmd/bench sends no seed otherwise.
	seed int
}

// runBench runs cmd/bench and returns its standard output, in benchstat
// format (parseBench reads it). cmd/bench reports a failed request on
// stderr and still exits 0, so an "ERROR" there is an error here.
func runBench(ctx context.Context, b benchRun) (string, error) {
	if b.seed <= 0 {
		return "", errors.New("cmd/bench sends no seed unless it is > 0")
	}
	cmd := exec.CommandContext(ctx, b.bin,
		"-model", b.model, "-epochs", strconv.Itoa(b.epochs), "-max-tokens", strconv.Itoa(b.maxTokens),
		"-temperature", "0", "-seed", strconv.Itoa(b.seed), "-p", b.prompt, "-format", "benchstat")
	// cmd/bench finds the server through OLLAMA_HOST, like the ollama CLI;
	// the last of duplicate variables counts.
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+b.url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s: %v: %s", b.bin, err, strings.TrimSpace(stderr.String()))
	}
	if s := stderr.String(); strings.Contains(s, "ERROR") {
		return stdout.String(), fmt.Errorf("%s: %s", b.bin, strings.TrimSpace(s))
	}
	return stdout.String(), nil
}

// benchLine is cmd/bench's benchstat line for a step with tokens:
// BenchmarkModel/name=<model>/step=generate <count> <ns> ns/token <rate> token/sec
var benchLine = regexp.MustCompile(`^BenchmarkModel/name=(.+)/step=(prefill|generate) (\d+) ([0-9.]+) ns/token ([0-9.]+) token/sec$`)

// parseBench returns the generate rate of each request in cmd/bench's
// benchstat output, in tokens per second, and an error if a request was
// for another model, did not generate want tokens or has no rate. Lines
// of other steps and other text are ignored.
func parseBench(out, model string, want int) ([]float64, error) {
	var rates []float64
	var errs []string
	for line := range strings.SplitSeq(out, "\n") {
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
