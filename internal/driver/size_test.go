package driver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// inputRun runs every leaf of BENCH_INPUT_TOKENS on the simulator, with
// the settings of env, and returns the summary and the log.
func inputRun(t *testing.T, env map[string]string) (*summary.File, []records.Record, string) {
	t.Helper()
	d, log := startSim(t, map[string]string{
		"BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8", "BENCH_CONTROL": "off",
		"SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "2000",
	}, env)
	for _, k := range slices.Collect(d.Leaves()) {
		l, _, err := d.Begin(context.Background(), k)
		if err != nil {
			continue // a leaf that could not be sized: its row says why
		}
		l.WarmUp()
		for range 2 {
			l.Next()
		}
		out := l.End()
		require.NoError(t, out.SaveErr)
		for _, note := range out.Notes {
			log.WriteString(k.Levels() + ": " + note + "\n") // as b.Log prints them
		}
	}
	d.Finish()
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	return f, recs, log.String()
}

// Every in<N> prompt is sized so that the server counts N prompt tokens
// within 1% or 4, on every kind of server: with its tokenize endpoint
// (vLLM's, llama.cpp's) and one request, or with calibration requests
// (Ollama, and OpenAI servers without one), at most 6, each recorded.
// TTFT grows with the uncached prompt. Not parallel: TTFTs are compared.
func TestInputLengthsAreSizedOnEveryServer(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		env          map[string]string
	}{
		{"vllm", "tokenize", map[string]string{"SIM_FLAVOR": "vllm"}},
		{"llamacpp", "tokenize", map[string]string{"SIM_FLAVOR": "llamacpp"}},
		{"plain", "requests", map[string]string{"SIM_FLAVOR": "plain"}},
		{"ollama", "requests", map[string]string{"SIM_KIND": "ollama"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"BENCH_INPUT_TOKENS": "100,1k,6000", "SIM_PREFILL_TPS": "20000"}
			for k, v := range tc.env {
				env[k] = v
			}
			f, recs, log := inputRun(t, env)
			require.Len(t, f.Summary, 3)
			sizes := f.Runtimes[0].InputSizes
			var ttft []float64
			for _, r := range f.Summary {
				require.NotNil(t, r.InputTokensTarget, r.Prompt)
				n := *r.InputTokensTarget
				assert.Equal(t, "in"+strconv.Itoa(n), r.Prompt)
				require.NotNil(t, r.PromptTokensMean, r.Prompt)
				assert.InDelta(t, float64(n), *r.PromptTokensMean, float64(max(4, n/100)), "%s: the server's count", r.Prompt)
				assert.Zero(t, r.TruncatedPrompts)
				assert.Zero(t, r.Failures)
				s := sizes[r.Prompt]
				assert.Equal(t, tc.method, s.Method)
				assert.LessOrEqual(t, s.CalibrationRequests, 6)
				assert.Positive(t, s.Words)
				ttft = append(ttft, *r.TTFTP50)
			}
			// in100 against in1k is 45 ms apart, which a loaded machine's
			// scheduling can swap; in6000 is 250 ms beyond either.
			assert.Less(t, max(ttft[0], ttft[1]), ttft[2], "TTFT rises with the input: %v", ttft)
			assert.Greater(t, ttft[2]-ttft[0], 0.2, "5900 more tokens at 20000 tok/s: 0.29 s more")
			calibrations := 0
			for _, r := range recs {
				if r.Calibration {
					calibrations++
					assert.False(t, r.Warmup)
					assert.Zero(t, r.Count)
				}
			}
			want := 0
			for _, s := range sizes {
				want += s.CalibrationRequests
			}
			assert.Equal(t, want, calibrations, "every calibration request is recorded, and marked")
			assert.Contains(t, log, "sim: in6000 sized to ")
			if tc.name == "ollama" {
				require.NotNil(t, f.Arguments.NumCtx)
				assert.Equal(t, 6008, *f.Arguments.NumCtx, "room for the longest input and BENCH_MAX_TOKENS")
			} else {
				assert.Nil(t, f.Arguments.NumCtx, "num_ctx is Ollama's")
			}
			assert.Equal(t, config.InputTokens{100, 1024, 6000}, f.Arguments.InputTokens)
		})
	}
}

// Ollama cuts a prompt longer than num_ctx silently and reports num_ctx
// as its count: the row counts it and the leaf says so; a prompt of
// another name is checked the same way.
func TestTruncatedPromptsOnOllama(t *testing.T) {
	t.Parallel()
	f, _, log := inputRun(t, map[string]string{
		"SIM_KIND": "ollama", "BENCH_INPUT_TOKENS": "500,3000", "BENCH_NUM_CTX": "2000", "BENCH_PROMPTS": "in500,in3000,medium",
	})
	byPrompt := map[string]summary.Row{}
	for _, r := range f.Summary {
		byPrompt[r.Prompt] = r
	}
	assert.Zero(t, byPrompt["in500"].TruncatedPrompts)
	assert.Zero(t, byPrompt["medium"].TruncatedPrompts)
	in3000 := byPrompt["in3000"]
	assert.Equal(t, in3000.Successes, in3000.TruncatedPrompts, "sized with room, then sent with num_ctx 2000: every one cut")
	assert.Positive(t, in3000.Successes)
	assert.Equal(t, 2000.0, *in3000.PromptTokensMean, "Ollama reports num_ctx as the count of a prompt it cut")
	assert.InDelta(t, 3000, f.Runtimes[0].InputSizes["in3000"].PromptTokens, 30)
	assert.Equal(t, 2000, *f.Arguments.NumCtx)
	assert.Contains(t, log, "requests had their prompt (sized to 3000 tokens) cut by the server")
}

// A prompt that was sized, then cut: BENCH_NUM_CTX below it. Sizing uses
// the same num_ctx, so the server's counts stop at it and the size never
// comes within its tolerance; on a server that reports counts but was
// given room to size, a cut later shows in truncated_prompts.
func TestTruncatedCount(t *testing.T) {
	t.Parallel()
	ok := stats.Round{InputTokens: 3000, Context: 4096}
	cut := func(tokens int, rd stats.Round) int {
		m := stats.Compute([]stats.Round{{InputTokens: rd.InputTokens, Context: rd.Context, Results: okResults(tokens)}}, stats.SLO{})
		return m.Truncated
	}
	assert.Zero(t, cut(3000, ok))
	assert.Equal(t, 1, cut(2048, stats.Round{InputTokens: 3000}), "more than 5% short of N")
	assert.Zero(t, cut(2900, stats.Round{InputTokens: 3000}), "within 5%")
	assert.Equal(t, 1, cut(2048, stats.Round{Context: 2048}), "Ollama's count reached num_ctx")
	assert.Zero(t, cut(300, stats.Round{Context: 2048}))
}

// A server whose counts do not come to N (here a constant count), or
// that reports no count, cannot be sized: the leaf fails with an error
// that says so, and its row counts it; a later run of the leaf is refused
// without another request.
func TestSizingFails(t *testing.T) {
	t.Parallel()
	noUsage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m"}]}`)
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(noUsage.Close)
	constant, _ := promptServer(t)
	for _, tc := range []struct{ url, want string }{
		{constant, "cannot size prompt in512 to 512 tokens after 3 calibration requests (requests): the count did not come within 5 tokens (64 words: 5 tokens; 512 words: 5 tokens; 513 words: 5 tokens); no leaf"},
		{noUsage.URL, "cannot size prompt in512 to 512 tokens after 1 calibration requests (requests): it reports no prompt token count"},
	} {
		env := merge(isolated(t), map[string]string{
			"BENCH_RUNTIMES": "mine", "MINE_URL": tc.url, "BENCH_INPUT_TOKENS": "512", "BENCH_CONCURRENCY": "1",
		})
		d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		require.NoError(t, err)
		t.Cleanup(d.Close)
		k := slices.Collect(d.Leaves())[0]
		_, skip, err := d.Begin(context.Background(), k)
		require.Error(t, err)
		assert.False(t, skip)
		assert.Contains(t, err.Error(), "mine ("+tc.url+"): "+tc.want)
		_, _, err2 := d.Begin(context.Background(), k)
		require.Error(t, err2)
		assert.Equal(t, err.Error(), err2.Error())
		assert.Equal(t, 2, d.Run.Rows()[0].Errors[ClassSizing].Count)
		recs, err := records.Read(d.files.records)
		require.NoError(t, err)
		assert.Len(t, recs, d.sizes["mine"]["in512"].Requests, "the calibration requests, once")
	}
}

func okResults(promptTokens int) []runtimes.Result {
	return []runtimes.Result{{Total: time.Second, TTFT: 100 * time.Millisecond, OutputTokens: 4, Chunks: 4, PromptTokens: promptTokens}}
}

// A tokenizer that makes six tokens of a word (the e2e's generated model
// does) leaves counts 6 apart: the search takes the one nearest n, not
// the first within the tolerance, since the leaf's cold markers may add a
// token or two to it; between two neighbours equally far it stops when it
// comes back to words it tried, with the nearer one it found.
func TestSecantTakesTheNearestCount(t *testing.T) {
	for _, tc := range []struct {
		name          string
		overhead      int
		n, want, most int
	}{
		{"260 and 254 around 256", 2, 256, 254, 2},
		{"259 and 253 around 256", 1, 256, 0, 2},
		{"a count at n", 4, 256, 256, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			count := func(w int) (int, error) { calls++; return 6*w + tc.overhead, nil }
			w0 := 100 // the first step lands on 43 words
			w, c, err := secant(tc.n, w0, 6*w0+tc.overhead, count, 5)
			require.NoError(t, err)
			assert.Equal(t, 6*w+tc.overhead, c)
			if tc.want > 0 {
				assert.Equal(t, tc.want, c, "the count nearest n")
			} else {
				assert.Contains(t, []int{253, 259}, c, "one of the two neighbours, 3 tokens off each")
			}
			assert.Equal(t, tc.most, calls, "counts asked for")
		})
	}
	// Counts that never come within the tolerance fail, naming each.
	_, _, err := secant(256, 32, 12*32+9, func(w int) (int, error) { return 12*w + 9, nil }, 5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the count did not come within 4 tokens (32 words: 393 tokens;")
}
