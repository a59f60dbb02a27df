package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A flag wins over its variable; variables without a flag stay; -tps is
// -tokens-per-sec.
func TestFlagsOverTheEnvironment(t *testing.T) {
	cfg, addr, err := parse(
		[]string{"-flavor", "ollama", "-version", "0.7.0", "-tps", "350", "-ttft=20ms", "-tools-held", "-metrics=0", "-port", "8081"},
		[]string{"SIM_TTFT=10ms", "SIM_SLOTS=3", "SIM_VERSION=0.6.5", "PATH=/bin", "SIM_URL=http://x", "SIM_KIND=ollama"})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8081", addr)
	assert.Equal(t, sim.FlavorOllama, cfg.Flavor)
	assert.Equal(t, "0.7.0", cfg.Version, "the flag wins")
	assert.Equal(t, 20*time.Millisecond, cfg.TTFT, "the flag wins")
	assert.Equal(t, 350.0, cfg.TokensPerSec)
	assert.Equal(t, 3, cfg.Slots, "the variable stays")
	assert.True(t, cfg.ToolsHeld, "a boolean flag alone is true")
	assert.True(t, cfg.NoMetrics, "-metrics=0")

	cfg, addr, err = parse(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, sim.DefaultConfig(), cfg, "no flag, no variable: the defaults")
	assert.Equal(t, "127.0.0.1:0", addr, "a free port")
}

// Every SIM_ variable has its flag, which sets what the variable sets.
func TestEveryVariableIsAFlag(t *testing.T) {
	// A value each setting takes other than its default; a variable
	// added without one here is still checked to have its flag.
	values := map[string]string{
		"SIM_TTFT": "7ms", "SIM_TOKENS_PER_SEC": "123", "SIM_FAULT": "reset", "SIM_FAULT_EVERY": "3",
		"SIM_SERVED_MODEL": "m", "SIM_TEXT_SEED": "9", "SIM_STOP_AFTER": "5", "SIM_REASONING_TOKENS": "2",
		"SIM_REASONING_FIELD": "reasoning", "SIM_TOOL_CALLS": "0", "SIM_MODEL_TOOLS": "off", "SIM_TOOLS_HELD": "1",
		"SIM_TOOL_ARGS_INVALID": "0.5", "SIM_TOKENS_PER_CHUNK": "4", "SIM_CLOSE_AFTER_STREAM": "true",
		"SIM_SLOTS": "2", "SIM_BATCH_SLOWDOWN": "0.5", "SIM_DEGRADE": "0.5", "SIM_PREFILL_TPS": "1000",
		"SIM_PREFIX_CACHE": "off", "SIM_LOAD_TIME": "1s", "SIM_CONTEXT": "4096", "SIM_FLAVOR": "plain",
		"SIM_VERSION": "1.2.3", "SIM_QUANTIZATION": "Q8_0", "SIM_MODELS": "empty", "SIM_RESET": "refuse", "SIM_METRICS": "0",
		"SIM_PROMPT_TOKENS_DETAILS": "0",
	}
	for _, v := range config.SimVariables() {
		t.Run(v, func(t *testing.T) {
			value, ok := values[v]
			if !ok {
				_, _, err := parse([]string{"-" + flagName(v) + "=x"}, nil)
				assert.NotContains(t, err.Error(), "unknown flag", "%s has no flag", v)
				return
			}
			want, err := config.LoadSimFrom(map[string]string{v: value})
			require.NoError(t, err)
			require.NotEqual(t, sim.DefaultConfig(), want, "%s=%s is not its default", v, value)
			got, _, err := parse([]string{"-" + flagName(v) + "=" + value}, nil)
			require.NoError(t, err)
			assert.Equal(t, want, got, "-%s=%s against %s=%s", flagName(v), value, v, value)
		})
	}
}

// A flag or variable refused stops the command before it serves, exit 2,
// naming it and its value.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		args, env []string
		want      string
	}{
		{[]string{"-tsp", "300"}, nil, "sim: unknown flag -tsp: did you mean -tps?\n"},
		{[]string{"-bogus"}, nil, "sim: unknown flag -bogus\n"},
		{[]string{"-tps", "fast"}, nil, "sim: SIM_TOKENS_PER_SEC=\"fast\": not a number (from -tps)\n"},
		{[]string{"-tokens-per-sec", "0"}, nil, "sim: SIM_TOKENS_PER_SEC=0: must be > 0 (from -tokens-per-sec)\n"},
		{nil, []string{"SIM_TTFT=soon"}, "sim: SIM_TTFT=\"soon\": not a duration (want e.g. 50ms) (from the environment)\n"},
		{[]string{"-flavor", "sglang"}, nil, "sim: SIM_FLAVOR=\"sglang\": want vllm, llamacpp, plain, lmstudio, mlx, ollama or tgi (from -flavor)\n"},
		{[]string{"-flavor", "mlx", "-tools-held"}, nil, "sim: SIM_TOOLS_HELD=true: SIM_FLAVOR=mlx plays a server that is not Ollama; use SIM_FLAVOR ollama, vllm, llamacpp or plain (from -tools-held)\n"},
		{[]string{"-version", "0.7\"x"}, nil, "sim: SIM_VERSION=\"0.7\\\"x\": want a version on one line"},
		{nil, []string{"SIM_TOKEN_PER_SEC=300"}, "sim: SIM_TOKEN_PER_SEC is not a setting of the simulator: did you mean SIM_TOKENS_PER_SEC?\n"},
		{[]string{"-port", "70000"}, nil, "sim: -port 70000: want a port from 1 to 65535, or 0 for a free one\n"},
		{[]string{"mlx"}, nil, "sim: unexpected argument \"mlx\": the settings are flags (-flavor mlx)\n"},
		{[]string{"-ttft"}, nil, "sim: flag needs an argument: -ttft\n"},
	} {
		t.Run(strings.Join(append(tc.args, tc.env...), " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, tc.env, &stdout, &stderr)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout.String(), "no URL: it does not serve")
			assert.True(t, strings.HasPrefix(stderr.String(), tc.want), "stderr:\n%s", stderr.String())
			assert.True(t, strings.HasSuffix(stderr.String(), "sim: go run ./cmd/sim -h lists the settings\n"), stderr.String())
		})
	}
}

// -h lists every flag with its variable and default, exit 0.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, nil, &stdout, &stderr))
	help := stderr.String()
	assert.Contains(t, help, "  -tokens-per-sec, -tps VALUE\n        decode rate, tokens per second\n        SIM_TOKENS_PER_SEC, default 400\n")
	assert.Contains(t, help, "  -tools-held\n")
	assert.Contains(t, help, "SIM_SERVED_MODEL, default echo the request\n")
	for _, v := range sim.Settings() {
		assert.Contains(t, help, "  -"+flagName(v.Var)+"")
		assert.Contains(t, help, "        "+v.Var+", default ")
	}
}

// started is a command serving in the background.
type started struct {
	url    string
	stderr *syncBuffer
	stop   context.CancelFunc
	code   chan int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs the command with args in the background until the test ends
// (or stop), and returns once it printed its URL.
func start(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	s := &started{stderr: &syncBuffer{}, stop: cancel, code: make(chan int, 1)}
	go func() {
		s.code <- run(ctx, args, nil, w, s.stderr)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-s.code
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err, "stderr: %s", s.stderr.String())
	go io.Copy(io.Discard, r)
	s.url = strings.TrimSuffix(line, "\n")
	require.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, s.url, "one line, the URL")
	return s
}

// It prints its URL, serves there until interrupted, then closes the
// server and exits 0.
func TestServesUntilInterrupted(t *testing.T) {
	s := start(t, "-flavor", "ollama", "-version", "0.7.0", "-tps", "350")
	resp, err := http.Get(s.url + "/api/version")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.JSONEq(t, `{"version":"0.7.0"}`, string(b))
	assert.Equal(t, "sim: serving flavor ollama, version 0.7.0, 50ms TTFT, 350 tok/s at "+s.url+" until interrupted\n", s.stderr.String())

	s.stop()
	assert.Equal(t, 0, <-s.code)
	s.code <- 0 // for the cleanup
	assert.Contains(t, s.stderr.String(), "sim: stopped serving at "+s.url+"\n")
	_, err = net.DialTimeout("tcp", strings.TrimPrefix(s.url, "http://"), time.Second)
	assert.Error(t, err, "nothing listens there any more")
}

// -port serves on that port; a port taken is exit 1, saying so.
func TestPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitFail, run(context.Background(), []string{"-port", strconv.Itoa(port)}, nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "address already in use")
	assert.Empty(t, stdout.String())
	ln.Close()

	s := start(t, "-port", strconv.Itoa(port))
	assert.Equal(t, "http://127.0.0.1:"+strconv.Itoa(port), s.url)
}

// The suite takes each flavor for the server it plays: its probe names
// the ollama flavor Ollama (by GET /api/version) and finds nothing of
// another server's in the mlx one (as mlx_lm.server, which answers the
// OpenAI endpoints only); each states its version where that server does
// and the suite reads it there.
func TestTheSuiteTakesEachFlavorForItsServer(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, name string, kind runtimes.Kind, url string) *runtimes.Runtime {
		rt, err := runtimes.New(runtimes.Config{Name: name, Kind: kind, URL: url})
		require.NoError(t, err)
		return rt
	}
	t.Run("ollama", func(t *testing.T) {
		url := start(t, "-flavor", "ollama", "-version", "0.6.5").url
		rt := open(t, "ollama", runtimes.KindOllama, url)
		p := rt.Probe(ctx)
		assert.True(t, p.Answered)
		assert.Equal(t, []string{runtimes.ServerOllama}, p.Says)
		info, err := rt.Describe(ctx)
		require.NoError(t, err)
		require.NotNil(t, info.Version)
		assert.Equal(t, "0.6.5", *info.Version)
		// Through its /v1 too, as Ollama's OpenAI-compatible API.
		info, err = open(t, "ollama-v1", runtimes.KindOpenAI, url).Describe(ctx)
		require.NoError(t, err)
		require.NotNil(t, info.Version)
		assert.Equal(t, "0.6.5", *info.Version)
	})
	t.Run("mlx", func(t *testing.T) {
		url := start(t, "-flavor", "mlx", "-version", "0.33.0").url
		rt := open(t, "mlx", runtimes.KindOpenAI, url)
		p := rt.Probe(ctx)
		assert.True(t, p.Answered)
		assert.Empty(t, p.Says, "no other server's endpoint")
		info, err := rt.Describe(ctx)
		require.NoError(t, err)
		assert.Nil(t, info.Version, "mlx_lm.server has no version endpoint")
		resp, err := http.Post(url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"sim-model","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true}`))
		require.NoError(t, err)
		defer resp.Body.Close()
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		require.NoError(t, err)
		var chunk struct {
			Fingerprint string `json:"system_fingerprint"`
		}
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &chunk), line)
		assert.Equal(t, "0.33.0 (mlx 0.32.4)", runtimes.FingerprintVersion(chunk.Fingerprint))
	})
}
