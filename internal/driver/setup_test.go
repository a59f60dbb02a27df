package driver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// closedURL is a loopback URL where nothing listens: port 1, which no
// test server is ever given (they get ephemeral ports), so that a port
// closed here cannot be taken by a parallel test's server before a probe.
func closedURL(t *testing.T) string {
	t.Helper()
	return "http://127.0.0.1:1"
}

// isolated returns the settings of a run that reaches no server by
// chance: every known runtime points at a closed port, so that probing
// never reaches a server that happens to run on this machine, and the
// results go to a folder of the test's own. A test adds its own settings
// to the map; nothing is read from the process's environment.
func isolated(t *testing.T) map[string]string {
	t.Helper()
	// No canary: tests that count requests count theirs; canary_test.go
	// turns it on.
	env := map[string]string{"BENCH_OUTPUT_DIR": t.TempDir(), "BENCH_CANARY": "off"}
	for _, name := range config.ProbeOrder {
		env[config.EnvPrefix(name)+"URL"] = closedURL(t)
	}
	return env
}

// merge adds the settings of each map to env in turn (a later one wins)
// and returns env. An empty value unsets the variable, as an empty
// variable in the environment counts as unset.
func merge(env map[string]string, settings ...map[string]string) map[string]string {
	for _, m := range settings {
		for k, v := range m {
			if v == "" {
				delete(env, k)
			} else {
				env[k] = v
			}
		}
	}
	return env
}

func fakeOllama(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			w.Write([]byte(`{"version":"0.6.5"}`))
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"tiny:latest","object":"model"}]}`))
		case "/api/show":
			w.Write([]byte(`{"details":{"family":"llama"}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeFindsAnsweringRuntime(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := fakeOllama(t)
	env["OLLAMA_URL"] = srv.URL
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)

	require.Len(t, s.Runtimes, 1)
	rt := s.Runtimes[0]
	assert.Equal(t, "ollama", rt.Name)
	assert.Equal(t, srv.URL, rt.BaseURL)
	assert.Equal(t, "tiny:latest", rt.Model, "the first listed model")
	assert.NoError(t, s.Unavailable(rt))
	assert.Contains(t, log.String(), "found ollama at "+srv.URL)
	require.NotNil(t, s.Run.Versions["ollama"])
	assert.Equal(t, "0.6.5", *s.Run.Versions["ollama"])
	assert.JSONEq(t, `{"object":"list","data":[{"id":"tiny:latest","object":"model"}],"show":{"details":{"family":"llama"}},`+
		`"served":{"family":"llama","parameters":null,"quantization":null,"format":null,"context":null}}`,
		string(s.Run.ModelMetadata["ollama"]))
	require.NotNil(t, s.Run.Arguments.OllamaURL)
	assert.Equal(t, srv.URL, *s.Run.Arguments.OllamaURL)
}

// Nothing answers: the simulator runs, and the user is told so.
func TestProbeFallsBackToSim(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s, err := setup(context.Background(), isolated(t), &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.Len(t, s.Runtimes, 1)
	assert.Equal(t, "sim", s.Runtimes[0].Name)
	assert.Contains(t, log.String(), `benchmarking the built-in simulator "sim"`)
	assert.NoError(t, s.Unavailable(s.Runtimes[0]), "the simulator answers")
	assert.Equal(t, "sim-model", s.Runtimes[0].Model)
}

// BENCH_FALLBACK=none: a run that finds nothing fails, naming the ports
// it tried, and starts no simulator (a nightly job must not pass on it).
func TestProbeWithoutFallbackFails(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_FALLBACK"] = "none"
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.Error(t, err)
	assert.Nil(t, s)
	for _, name := range config.ProbeOrder {
		assert.Contains(t, err.Error(), name+" "+env[config.EnvPrefix(name)+"URL"], "the runtimes tried are named")
	}
	assert.Contains(t, err.Error(), "BENCH_FALLBACK=none")
	assert.NotContains(t, log.String(), "simulator \"sim\" instead")
	files, _ := os.ReadDir(env["BENCH_OUTPUT_DIR"])
	assert.Empty(t, files, "nothing written")
}

// A server that answers but lists no model is not "nothing answered":
// BENCH_FALLBACK=none's error names it.
func TestProbeWithoutFallbackNamesTheUnusable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			w.Write([]byte(`{"version":"0.6.5"}`))
		case "/v1/models", "/api/tags":
			w.Write([]byte(`{"object":"list","data":[],"models":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	env := merge(isolated(t), map[string]string{"BENCH_FALLBACK": "none", "OLLAMA_URL": srv.URL})
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "can be benchmarked: ollama answered but cannot")
}

// go test copies stderr into stdout, which benchstat reads: nothing the
// suite prints may become a configuration line there, or the file names
// and run ids in it would split benchstat's tables between runs.
func TestMessagesAreNotBenchstatConfig(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "mine,sim"
	env["MINE_URL"] = closedURL(t)
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	s.Run.Add(bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 1}, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10}}}}, summary.Telemetry{})

	require.NoError(t, s.Finish())
	// And a run that falls back to the simulator, for its notice.
	s, err = setup(context.Background(), isolated(t), &log, Options{})
	require.NoError(t, err)
	s.Close()

	require.Contains(t, log.String(), "wrote ")
	require.Contains(t, log.String(), "mine (")
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		assert.True(t, strings.HasPrefix(line, Prefix), "%q", line)
	}
	// Read the messages as benchstat would, ahead of a result line.
	r := benchfmt.NewReader(strings.NewReader(log.String()+"BenchmarkX 1 1 ns/op\n"), "stdout")
	require.True(t, r.Scan())
	res, ok := r.Result().(*benchfmt.Result)
	require.True(t, ok, "%v", r.Result())
	assert.Equal(t, "X", string(res.Name))
	assert.Empty(t, res.Config, "config lines read from the suite's messages")
}

// A server that accepts and never answers costs the probe its timeout, not
// the run.
func TestProbeDoesNotWaitForAHungServer(t *testing.T) {
	// Not parallel: it times the probe against a wall-clock bound.
	env := isolated(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	env["VLLM_URL"] = "http://" + ln.Addr().String()
	start := time.Now()
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, "sim", s.Runtimes[0].Name)
}

func TestBadSettingStopsSetup(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_CONCURRENCY"] = "1,four"
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_CONCURRENCY="1,four"`)

	env["BENCH_CONCURRENCY"] = "1"
	env["BENCH_PROMPTS"] = "short,haiku"
	_, err = setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_PROMPTS="short,haiku": unknown prompt "haiku"`)

	delete(env, "BENCH_PROMPTS")
	env["BENCH_RUNTIMES"] = "mine"
	_, err = setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set MINE_URL")
}

// A named runtime that does not answer is not dropped in silence: its
// benchmarks get the reason, with its name and URL, and no secret.
func TestUnreachableNamedRuntime(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	url := closedURL(t)
	env["BENCH_RUNTIMES"] = "mine,sim"
	env["MINE_URL"] = strings.Replace(url, "http://", "http://me:hunter2@", 1)
	env["MINE_API_KEY"] = "sk-verysecret"
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.Len(t, s.Runtimes, 2)
	err = s.Unavailable(s.Runtimes[0])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mine ("+url+")")
	assert.Contains(t, err.Error(), "connection refused")
	assert.NoError(t, s.Unavailable(s.Runtimes[1]))
	for _, text := range []string{err.Error(), log.String()} {
		assert.NotContains(t, text, "hunter2")
		assert.NotContains(t, text, "sk-verysecret")
	}
}

// The files of a run carry no credentials, though the URL and key were set.
func TestFilesHoldNoSecrets(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := fakeOllama(t)
	env["BENCH_RUNTIMES"] = "ollama"
	env["OLLAMA_URL"] = strings.Replace(srv.URL, "http://", "http://me:hunter2@", 1)
	env["OLLAMA_API_KEY"] = "sk-verysecret"
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	s.Run.Add(bench.Key{Runtime: "ollama", Model: "tiny:latest", Prompt: "short", Concurrency: 1}, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10}}}}, summary.Telemetry{})

	require.NoError(t, s.Finish())

	files, err := filepath.Glob(filepath.Join(s.Settings.OutputDir, "*"))
	require.NoError(t, err)
	require.Len(t, files, 2, "the summary JSON and the benchstat file")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "hunter2", f)
		assert.NotContains(t, string(b), "sk-verysecret", f)
	}
}

// A run in which no benchmark ran writes nothing.
func TestFinishWithoutBenchmarksWritesNothing(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	out := filepath.Join(t.TempDir(), "results")
	env["BENCH_OUTPUT_DIR"] = out
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Finish())
	assert.Empty(t, names(t, out), "the folder is made at the start, to prove it writable, and stays empty")
}

// The seed's run, as the README gives it: its arguments come out in the
// seed's terms.
func TestSeedArguments(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"qwen3.8-27b-nvfp4","max_model_len":8192}]}`))
		case "/version":
			w.Write([]byte(`{"version":"0.28.0"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	env["BENCH_RUNTIMES"] = "vllm-metal"
	env["VLLM_METAL_URL"] = srv.URL
	env["VLLM_METAL_MODEL"] = "qwen3.8-27b-nvfp4"
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{Benchtime: "5x", Count: 5})
	require.NoError(t, err)
	a := s.Run.Arguments
	assert.Equal(t, "vllm-metal", a.Runtime)
	require.NotNil(t, a.VLLMURL)
	assert.Equal(t, srv.URL, *a.VLLMURL)
	assert.Equal(t, "qwen3.8-27b-nvfp4", *a.VLLMModel)
	assert.Nil(t, a.OllamaURL)
	require.NotNil(t, a.Rounds)
	assert.Equal(t, 5, *a.Rounds)
	assert.Equal(t, 5, *a.Count)
	assert.Equal(t, stats.Number(600), a.Timeout)
	assert.Equal(t, []int{1, 4}, a.Concurrency)
	assert.Equal(t, "0.28.0", *s.Run.Versions["vllm-metal"])
	none := "none" // found at setup, where the run says it (a fake server offers no way back)
	assert.Equal(t, []summary.RuntimeInfo{{Name: "vllm-metal", Product: "vllm-metal", Kind: "openai", BaseURL: srv.URL, Model: "qwen3.8-27b-nvfp4",
		Fresh: &none, ContextLimit: 8192, ContextSource: "/v1/models max_model_len"}}, s.Run.Runtimes, "the context its /v1/models states")
}

// Progress goes where BENCH_PROGRESS says, never to the log (stderr, which
// go test copies into benchstat's input).
func TestProgressLines(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	path := filepath.Join(t.TempDir(), "progress.log")
	env["BENCH_PROGRESS"] = path
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{Benchtime: "3x"})
	require.NoError(t, err)
	before := log.String()

	leaf := leafProgress{p: s.progress, name: "runtime=sim/prompt=short/conc=2"}
	ok := runtimes.Result{OutputTokens: 100}
	leaf.warmUp(1, 1, stats.Round{Wall: 1500 * time.Millisecond})
	leaf.round(stats.Round{Wall: 2 * time.Second, Results: []runtimes.Result{ok, ok}})
	leaf.round(stats.Round{Wall: 2 * time.Second, Results: []runtimes.Result{ok, {Err: assert.AnError}}})
	leaf.round(stats.Round{Wall: 2 * time.Second, Results: []runtimes.Result{ok, ok}})
	s.Close()

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `[inference] runtime=sim/prompt=short/conc=2: warm-up 1 of 1 done in 1.5s
[inference] runtime=sim/prompt=short/conc=2: round 1 of 3, 100.0 tok/s so far, about 4s left in this leaf
[inference] runtime=sim/prompt=short/conc=2: round 2 of 3, 75.0 tok/s so far, about 2s left in this leaf
[inference] runtime=sim/prompt=short/conc=2: round 3 of 3, 83.3 tok/s so far
`, string(b))
	assert.Equal(t, before, log.String(), "progress never goes to the log")

	env["BENCH_PROGRESS"] = filepath.Join(t.TempDir(), "missing", "p.log")
	_, err = setup(context.Background(), env, &log, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BENCH_PROGRESS=")
}

// An Ollama with no model pulled answers its port but cannot be
// benchmarked: it is skipped with the reason, and the simulator runs.
func TestProbeSkipsARuntimeWithoutModels(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			w.Write([]byte(`{"version":"0.6.5"}`))
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[]}`))
		case "/api/tags":
			w.Write([]byte(`{"models":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	env["OLLAMA_URL"] = srv.URL
	var log bytes.Buffer
	s, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.Len(t, s.Runtimes, 1)
	assert.Equal(t, "sim", s.Runtimes[0].Name)
	assert.Contains(t, log.String(), "ollama answers at "+srv.URL+" but cannot be benchmarked, skipping it")
	assert.Contains(t, log.String(), "set OLLAMA_MODEL")
	assert.NotContains(t, s.Run.Versions, "ollama", "a skipped runtime leaves no trace in the summary")
}

// Settings are all checked before the first request: a bad simulator
// setting stops the run before any port is probed.
func TestSimSettingsCheckedBeforeProbing(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	probed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { probed = true }))
	t.Cleanup(srv.Close)
	env["OLLAMA_URL"] = srv.URL
	env["SIM_TOKENS_PER_SEC"] = "fast"
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `SIM_TOKENS_PER_SEC="fast"`)
	assert.False(t, probed, "a request went out before the settings were checked")
}

// A -cpu list would run each leaf once per value under one summary row.
func TestCPUListRefused(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{CPU: "1,2"})
	assert.ErrorContains(t, err, "-cpu=1,2: give one value or none")
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{CPU: "2"})
	require.NoError(t, err)
	s.Close()
}

// An output folder that cannot hold the results stops the run at setup,
// before any port is probed or request sent, however it is wrong.
func TestOutputDirCheckedFirst(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	probed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { probed = true }))
	t.Cleanup(srv.Close)
	env["OLLAMA_URL"] = srv.URL
	file := filepath.Join(t.TempDir(), "afile")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	env["BENCH_OUTPUT_DIR"] = file
	_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	assert.EqualError(t, err, `BENCH_OUTPUT_DIR="`+file+`": not a folder`)
	assert.False(t, probed)
}

// setup sets a run up from the settings of env, as TestMain does from the
// process's environment: the suite's settings and the simulator's, then
// Setup.
func setup(ctx context.Context, env map[string]string, log io.Writer, opts Options) (*Driver, error) {
	st, err := config.LoadFrom(env)
	if err != nil {
		return nil, err
	}
	simCfg, err := config.LoadSimFrom(env)
	if err != nil {
		return nil, err
	}
	return Setup(ctx, log, st, simCfg, opts)
}

// counts are the requests a countingSim was sent: all, chat requests,
// and resets (BENCH_FRESH's: llama-server's slot erases, vLLM's
// /reset_prefix_cache, SGLang's /flush_cache; Ollama's unload is a chat).
type counts struct{ all, chats, resets atomic.Int64 }

// Load is the number of all requests.
func (c *counts) Load() int64 { return c.all.Load() }

// countingSim is a simulator of flavor behind a server that counts the
// requests it is sent.
func countingSim(t *testing.T, flavor sim.Flavor, settings ...string) (url string, requests *counts) {
	t.Helper()
	return countingProxy(t, flavoredSim(t, flavor, settings...).URL)
}

// countingProxy is a reverse proxy to the server at simURL that counts
// the requests through it, as countingSim's. Go's ReverseProxy cuts a
// streamed reply now and then (about once in 300 leaf runs here): count
// through it, and time requests against the server itself.
func countingProxy(t *testing.T, simURL string) (url string, requests *counts) {
	t.Helper()
	target, err := neturl.Parse(simURL)
	require.NoError(t, err)
	requests = &counts{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.all.Add(1)
		if strings.HasSuffix(r.URL.Path, "/chat/completions") || r.URL.Path == "/api/chat" {
			requests.chats.Add(1)
		}
		if r.Method == http.MethodPost && (strings.HasPrefix(r.URL.Path, "/slots/") || r.URL.Path == "/reset_prefix_cache" || r.URL.Path == "/flush_cache") {
			requests.resets.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

// Two runtimes whose URLs reach one server through the same API are
// refused before any request, both named, with no secret; the same server
// through its two APIs is allowed and said once.
func TestOneServerUnderTwoNames(t *testing.T) {
	t.Parallel()
	t.Run("same kind", func(t *testing.T) {
		t.Parallel()
		url, requests := countingSim(t, sim.FlavorMLX)
		env := isolated(t)
		env["BENCH_RUNTIMES"] = "mlx,llamacpp"
		env["MLX_URL"] = strings.Replace(url, "http://127.0.0.1", "http://me:hunter2@localhost", 1)
		env["LLAMACPP_URL"] = url + "/v1/"
		var log bytes.Buffer
		s, err := setup(context.Background(), env, &log, Options{})
		require.Error(t, err)
		assert.Nil(t, s)
		msg := err.Error()
		assert.Contains(t, msg, "BENCH_RUNTIMES=mlx,llamacpp: mlx (http://xxxxx@localhost:")
		assert.Contains(t, msg, ") and llamacpp ("+url+"/v1/) are one server, reached through the same API (openai)")
		assert.Contains(t, msg, "point MLX_URL or LLAMACPP_URL at another server")
		assert.NotContains(t, msg+log.String(), "hunter2")
		assert.Zero(t, requests.Load(), "refused before any request")
	})
	t.Run("two APIs", func(t *testing.T) {
		t.Parallel()
		url, _ := countingSim(t, sim.FlavorVLLM) // serves Ollama's API too
		env := isolated(t)
		env["BENCH_RUNTIMES"] = "ollama,ollama-v1"
		env["OLLAMA_URL"] = url
		env["OLLAMA_V1_URL"] = strings.Replace(url, "127.0.0.1", "localhost", 1)
		var log bytes.Buffer
		s, err := setup(context.Background(), env, &log, Options{})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		assert.Len(t, s.Runtimes, 2)
		assert.Equal(t, 1, strings.Count(log.String(), "are one server"), log.String())
		assert.Contains(t, log.String(), "ollama ("+url+") and ollama-v1 ("+env["OLLAMA_V1_URL"]+") are one server, reached through two APIs (ollama and openai)")
	})
	t.Run("probed", func(t *testing.T) {
		t.Parallel()
		url, _ := countingSim(t, sim.FlavorMLX)
		env := isolated(t)
		env["LLAMACPP_URL"] = url
		env["MLX_URL"] = strings.Replace(url, "127.0.0.1", "localhost", 1)
		var log bytes.Buffer
		s, err := setup(context.Background(), env, &log, Options{})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		require.Len(t, s.Runtimes, 1, "one server, found once: %s", log.String())
		assert.Equal(t, "mlx", s.Runtimes[0].Name)
	})
}
