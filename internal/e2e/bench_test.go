package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBenchEnv makes the test binary act as cmd/bench (see fakeBench).
const fakeBenchEnv = "INFERENCEBENCH_E2E_FAKE_BENCH"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeBenchEnv); mode != "" {
		os.Exit(fakeBench(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeBench stands in for cmd/bench: it prints its arguments and
// OLLAMA_HOST as a comment, then per mode what cmd/bench prints.
func fakeBench(mode string, args []string) int {
	fmt.Printf("# %s OLLAMA_HOST=%s\n", strings.Join(args, " "), os.Getenv("OLLAMA_HOST"))
	switch mode {
	case "ok":
		fmt.Print(`BenchmarkModel/name=m/step=prefill 84 105538.19 ns/token 9475.24 token/sec
BenchmarkModel/name=m/step=generate 128 7381000.09 ns/token 135.48 token/sec
BenchmarkModel/name=m/step=load 1 1705728 ns/request
BenchmarkModel/name=m 1 955829958 ns/request
`)
	case "request error": // cmd/bench goes on after a failed request and exits 0
		fmt.Fprintln(os.Stderr, "ERROR: Couldn't chat with model 'm': model \"m\" not found")
	case "exit":
		fmt.Fprintln(os.Stderr, "flag provided but not defined: -seed")
		return 2
	case "hang":
		time.Sleep(time.Minute)
	}
	return 0
}

func fakeRun(t *testing.T, mode string) benchRun {
	t.Setenv(fakeBenchEnv, mode)
	self, err := os.Executable()
	require.NoError(t, err)
	return benchRun{bin: self, url: "http://127.0.0.1:41103", model: "m", prompt: "say hi", epochs: 4, maxTokens: 128, seed: 42}
}

func TestRunBench(t *testing.T) {
	ctx := context.Background()
	out, err := runBench(ctx, fakeRun(t, "ok"))
	require.NoError(t, err)
	assert.Contains(t, out, "# -model m -epochs 4 -max-tokens 128 -temperature 0 -seed 42 -p say hi -format benchstat OLLAMA_HOST=http://127.0.0.1:41103\n")
	rates, err := parseBench(out, "m", 128)
	require.NoError(t, err)
	assert.Equal(t, []float64{135.48}, rates)

	_, err = runBench(ctx, fakeRun(t, "request error"))
	assert.ErrorContains(t, err, `ERROR: Couldn't chat with model 'm'`, "an ERROR line on stderr fails, though cmd/bench exits 0")

	_, err = runBench(ctx, fakeRun(t, "exit"))
	assert.ErrorContains(t, err, "exit status 2: flag provided but not defined: -seed")

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = runBench(short, fakeRun(t, "hang"))
	assert.Error(t, err)
	assert.Less(t, time.Since(start), 30*time.Second, "the context ends the run")

	noSeed := fakeRun(t, "ok")
	noSeed.seed = 0
	_, err = runBench(ctx, noSeed)
	assert.ErrorContains(t, err, "no seed")
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkModel/name=m/step=prefill 84 105538.19 ns/token 9475.24 token/sec
BenchmarkModel/name=m/step=generate 128 7381000.09 ns/token 135.48 token/sec
BenchmarkModel/name=m/step=load 1 1705728 ns/request
BenchmarkModel/name=m 1 955829958 ns/request
  BenchmarkModel/name=m/step=generate 128 7779680.20 ns/token 128.54 token/sec
`
	rates, err := parseBench(out, "m", 128)
	require.NoError(t, err)
	assert.Equal(t, []float64{135.48, 128.54}, rates, "generate steps only, in order")

	_, err = parseBench(out, "m", 100)
	assert.EqualError(t, err, "cmd/bench output: a request generated 128 tokens, want 100; a request generated 128 tokens, want 100")
	_, err = parseBench(out, "other", 128)
	assert.ErrorContains(t, err, `a result for model "m"`)
	_, err = parseBench("BenchmarkModel/name=m/step=generate 128 0 ns/token 0 token/sec\n", "m", 128)
	assert.ErrorContains(t, err, "generate rate 0")

	rates, err = parseBench("ERROR: no\n", "m", 128)
	assert.NoError(t, err)
	assert.Empty(t, rates, "no rates from no results: the caller counts them")
}
