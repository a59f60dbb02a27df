package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	// An external test package, as internal/envtest imports config.
	. "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

func TestDefaults(t *testing.T) {
	s, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	assert.Empty(t, s.Runtimes)
	assert.Equal(t, Concurrency{Levels: []int{1, 4}}, s.Concurrency)
	assert.Empty(t, s.Rates, "no open-loop leaves unless asked for")
	assert.Equal(t, 1.0, s.Burstiness)
	assert.Equal(t, 256, s.MaxInflight)
	assert.False(t, s.SLO.Set())
	assert.Equal(t, PowerAuto, s.Power)
	assert.Equal(t, "macmon", s.Macmon)
	assert.Equal(t, Duration(200*time.Millisecond), s.PowerInterval)
	assert.Equal(t, 2, s.Warmups)
	assert.Equal(t, 128, s.MaxTokens)
	assert.Nil(t, s.Seed, "no seed is sent unless asked for")
	assert.Equal(t, CacheCold, s.Cache)
	assert.False(t, s.IgnoreEOS)
	assert.Equal(t, "30m", s.KeepAlive)
	require.NotNil(t, s.MaxFailures)
	assert.Equal(t, DefaultMaxFailures, *s.MaxFailures, "a run fails above 5% of its requests failed")
	assert.Equal(t, 0.1, s.ControlMax.Share)
	assert.Equal(t, "10%", s.ControlMax.String())
	assert.Equal(t, MinControlTime, s.ControlMax.Budget(10*time.Second), "10% of 10 s is less than 6 s")
	assert.Equal(t, 6*time.Second, s.ControlMax.Budget(time.Minute))
	assert.Zero(t, s.Temperature)
	assert.Equal(t, Duration(600*time.Second), s.Timeout)
	assert.Equal(t, Duration(120*time.Second), s.IdleTimeout)
	assert.False(t, s.SkipUnreachable)
	assert.Empty(t, s.Prompts)
	assert.Equal(t, "results", s.OutputDir)
	assert.Equal(t, FreshLeaf, s.Fresh, "every leaf run starts on a server returned to a known state")
	assert.Equal(t, ControlOn, s.Control)
	assert.Empty(t, s.InputTokens)
	assert.Nil(t, s.NumCtx)
}

func TestValues(t *testing.T) {
	environ := map[string]string{
		"BENCH_RUNTIMES":         " vllm-metal , ollama",
		"BENCH_CONCURRENCY":      "1, 8,64",
		"BENCH_TIMEOUT":          "90",
		"BENCH_TEMPERATURE":      "0.7",
		"BENCH_PROMPTS":          "short,code",
		"BENCH_IDLE_TIMEOUT":     "0",
		"BENCH_SKIP_UNREACHABLE": "1",
		"BENCH_SEED":             "0",
		"BENCH_CACHE":            "warm",
		"BENCH_IGNORE_EOS":       "1",
		"BENCH_MAX_FAILURES":     "0.01",
		"BENCH_FRESH":            "off",
		"BENCH_CONTROL":          "off",
		"BENCH_INPUT_TOKENS":     "512, 2048,32k,1000000",
		"BENCH_NUM_CTX":          "40000",
		"VLLM_METAL_URL":         "http://127.0.0.1:8001/v1",
	}
	s, err := LoadFrom(environ)
	require.NoError(t, err)
	require.Len(t, s.Specs, 2, "the runtimes named, in order")
	assert.Equal(t, "vllm-metal", s.Specs[0].Name)
	assert.Equal(t, "http://127.0.0.1:8001/v1", s.Specs[0].URL)
	assert.Equal(t, "http://127.0.0.1:11434", s.Specs[1].URL, "ollama's known port")
	assert.Equal(t, InputTokens{512, 2048, 32768, 1_000_000}, s.InputTokens)
	assert.Equal(t, 40000, *s.NumCtx)
	assert.Equal(t, FreshOff, s.Fresh)
	assert.Equal(t, ControlOff, s.Control)
	require.NotNil(t, s.Seed, "a seed of 0, set, is sent")
	assert.Equal(t, 0, *s.Seed)
	assert.Equal(t, CacheWarm, s.Cache)
	assert.True(t, s.IgnoreEOS)
	assert.Equal(t, 0.01, *s.MaxFailures)
	assert.Equal(t, Names{"vllm-metal", "ollama"}, s.Runtimes)
	assert.Equal(t, Concurrency{Levels: []int{1, 8, 64}}, s.Concurrency)
	assert.Equal(t, Duration(90*time.Second), s.Timeout)
	assert.InDelta(t, 0.7, s.Temperature, 1e-12)
	assert.Equal(t, Names{"short", "code"}, s.Prompts)
	assert.Zero(t, s.IdleTimeout, "0 turns the idle timeout off")
	assert.True(t, s.SkipUnreachable)

	environ["BENCH_TIMEOUT"] = "2m30s"
	environ["BENCH_CONCURRENCY"] = "sweep:64"
	environ["BENCH_RATES"] = "0.5, 2"
	environ["BENCH_SLO"] = "ttft=2s, tpot=50ms"
	s, err = LoadFrom(environ)
	require.NoError(t, err)
	assert.Equal(t, Duration(150*time.Second), s.Timeout)
	assert.Equal(t, Concurrency{Sweep: 64}, s.Concurrency)
	assert.Equal(t, Floats{0.5, 2}, s.Rates)
	assert.Equal(t, 2*time.Second, s.SLO.TTFT)
	assert.Equal(t, 50*time.Millisecond, s.SLO.TPOT)
	assert.Zero(t, s.SLO.Total)

	environ["BENCH_CONCURRENCY"] = "sweep"
	s, err = LoadFrom(environ)
	require.NoError(t, err)
	assert.Equal(t, DefaultSweep, s.Concurrency.Sweep)
}

// A bad value names the variable and the value.
func TestBadValues(t *testing.T) {
	for _, tc := range []struct{ key, val, want string }{
		{"BENCH_CONCURRENCY", "1,x", `BENCH_CONCURRENCY="1,x": "x" is not a whole number`},
		{"BENCH_CACHE", "hot", `BENCH_CACHE="hot": must be cold or warm`},
		{"BENCH_CONCURRENCY", "sweep:x", `BENCH_CONCURRENCY="sweep:x": want sweep or sweep:<upper bound>`},
		{"BENCH_CONCURRENCY", "sweep:1", `BENCH_CONCURRENCY="sweep:1": a sweep's upper bound 1 is out of range 2..4096`},
		{"BENCH_RATES", "1,fast", `BENCH_RATES="1,fast": "fast" is not a number`},
		{"BENCH_RATES", "0", `BENCH_RATES="0": 0: a rate must be a number of requests per second above 0`},
		{"BENCH_BURSTINESS", "0", `BENCH_BURSTINESS="0": must be a number above 0`},
		{"BENCH_MAX_INFLIGHT", "0", `BENCH_MAX_INFLIGHT="0": must be 1 or more`},
		{"BENCH_SLO", "ttft=2", `BENCH_SLO="ttft=2": "2" is not a duration above 0`},
		{"BENCH_SLO", "latency=2s", `BENCH_SLO="latency=2s": unknown target "latency"; the targets are ttft, tpot and total`},
		{"BENCH_POWER", "yes", `BENCH_POWER="yes": must be auto, on or off`},
		{"BENCH_POWER_INTERVAL", "10ms", `BENCH_POWER_INTERVAL="10ms": must be 100ms or more`},
		{"BENCH_SEED", "x", `BENCH_SEED="x": not a number`},
		{"BENCH_KEEP_ALIVE", "forever", `BENCH_KEEP_ALIVE="forever": not a duration`},
		{"BENCH_MAX_FAILURES", "5%", `BENCH_MAX_FAILURES="5%": not a number`},
		{"BENCH_MAX_FAILURES", "1.5", `BENCH_MAX_FAILURES="1.5": must be a share from 0 to 1`},
		{"BENCH_CONCURRENCY", "0", `BENCH_CONCURRENCY="0": 0 is out of range`},
		{"BENCH_CONCURRENCY", "4,4", `4 is listed twice`},
		{"BENCH_CONCURRENCY", ",", `BENCH_CONCURRENCY=",": need at least one`},
		{"BENCH_WARMUPS", "two", `BENCH_WARMUPS="two": not a number`},
		{"BENCH_IDLE_TIMEOUT", "-5s", `BENCH_IDLE_TIMEOUT="-5s": must be 0 (off) or more`},
		{"BENCH_IDLE_TIMEOUT", "soon", `BENCH_IDLE_TIMEOUT="soon": not a duration`},
		{"BENCH_SKIP_UNREACHABLE", "yes", `BENCH_SKIP_UNREACHABLE="yes": not on or off`},
		{"BENCH_WARMUPS", "-1", `BENCH_WARMUPS="-1": must be 0 or more`},
		{"BENCH_MAX_TOKENS", "0", `BENCH_MAX_TOKENS="0": a length must be 1 or more`},
		{"BENCH_MAX_TOKENS", "normal:128", `BENCH_MAX_TOKENS="normal:128": want normal:MEAN,SD`},
		{"BENCH_MAX_TOKENS", "uniform:64-32", `BENCH_MAX_TOKENS="uniform:64-32": LO is above HI`},
		{"BENCH_MAX_TOKENS", "zipf:3", `BENCH_MAX_TOKENS="zipf:3": unknown distribution "zipf"`},
		{"BENCH_INPUT_TOKENS", "512,normal:1k", `BENCH_INPUT_TOKENS="512,normal:1k": "normal:1k": want normal:MEAN,SD`},
		{"BENCH_INPUT_TOKENS", "uniform:1-2000000", `BENCH_INPUT_TOKENS="uniform:1-2000000": draws up to 2000000 tokens, above the largest length, 1000000`},
		{"BENCH_INPUT_TOKENS", "normal:1k,10,normal:1024,10", `"normal:1024,10" is listed twice`},
		{"BENCH_WORKLOAD", " ", `BENCH_WORKLOAD=" ": must name a workload file`},
		{"BENCH_WORKLOAD_N", "-3", `BENCH_WORKLOAD_N="-3": must be 0 (every item of the workload) or more`},
		{"BENCH_WORKLOAD_N", "10", `BENCH_WORKLOAD_N="10": has no effect without BENCH_WORKLOAD`},
		{"BENCH_TRACE_SPEED", "0", `BENCH_TRACE_SPEED="0": must be a number above 0`},
		{"BENCH_TRACE_SPEED", "2", `BENCH_TRACE_SPEED="2": has no effect without BENCH_WORKLOAD`},
		{"BENCH_TRACE_SPEED", "fast", `BENCH_TRACE_SPEED="fast"`},
		{"BENCH_TOOLS", " ", `BENCH_TOOLS=" ": must name a tools file`},
		{"BENCH_IMAGES", "17@64x64", `BENCH_IMAGES="17@64x64": "17" images per request, want 1 to 16`},
		{"BENCH_IMAGES", "2@512", `BENCH_IMAGES="2@512": want N@WxH`},
		{"BENCH_IMAGES", "1@8x8", `BENCH_IMAGES="1@8x8": width "8", want 16 to 8192 pixels`},
		{"BENCH_IMAGES", "1@64x64:gif", `BENCH_IMAGES="1@64x64:gif": format "gif", want png or jpeg`},
		{"BENCH_SEED", "1.5", `BENCH_SEED="1.5": not a number`},
		{"BENCH_TEMPERATURE", "hot", `BENCH_TEMPERATURE="hot": not a number`},
		{"BENCH_TEMPERATURE", "-1", `BENCH_TEMPERATURE="-1": must be a finite number`},
		{"BENCH_TIMEOUT", "soon", `BENCH_TIMEOUT="soon": not a duration`},
		{"BENCH_TIMEOUT", "0", `BENCH_TIMEOUT="0": must be more than 0`},
		{"BENCH_TIMEOUT", "1e30", `BENCH_TIMEOUT="1e30": out of range`},
		{"BENCH_TIMEOUT", "NaN", `BENCH_TIMEOUT="NaN": out of range`},
		{"BENCH_RUNTIMES", "a b", `BENCH_RUNTIMES="a b": "a b": a name may use only`},
		{"BENCH_RUNTIMES", "vllm,vllm", `"vllm" is listed twice`},
		{"BENCH_INPUT_TOKENS", "512,,4k", `BENCH_INPUT_TOKENS="512,,4k": an empty length between commas`},
		{"BENCH_INPUT_TOKENS", "abc", `BENCH_INPUT_TOKENS="abc": not a number of tokens`},
		{"BENCH_INPUT_TOKENS", "0", `BENCH_INPUT_TOKENS="0": a length must be above 0`},
		{"BENCH_INPUT_TOKENS", "-512", `BENCH_INPUT_TOKENS="-512": below 0`},
		{"BENCH_INPUT_TOKENS", "1.5k", `BENCH_INPUT_TOKENS="1.5k": not a whole number of tokens (e.g. 512, 8k)`},
		{"BENCH_INPUT_TOKENS", "1000001", `BENCH_INPUT_TOKENS="1000001": above the largest length, 1000000 tokens`},
		{"BENCH_INPUT_TOKENS", "1024,1k", `BENCH_INPUT_TOKENS="1024,1k": "1k": 1024 tokens is listed twice`},
		{"BENCH_NUM_CTX", "0", `BENCH_NUM_CTX="0": must be a whole number of tokens above 0`},
		{"BENCH_NUM_CTX", "4k", `BENCH_NUM_CTX="4k": not a number`},
		{"BENCH_FRESH", "run", `BENCH_FRESH="run": must be leaf or off`},
		{"BENCH_FRESH", "LEAF", `BENCH_FRESH="LEAF": must be leaf or off`},
		{"BENCH_CONTROL", "1", `BENCH_CONTROL="1": must be on or off`},
		{"BENCH_TURNS", "three", `BENCH_TURNS="three": not a number`},
		{"BENCH_TURNS", "0", `BENCH_TURNS="0": must be a whole number of turns from 1 to 100`},
		{"BENCH_TURNS", "-2", `BENCH_TURNS="-2": must be a whole number of turns from 1 to 100`},
		{"BENCH_TURNS", "101", `BENCH_TURNS="101": must be a whole number of turns from 1 to 100`},
		{"BENCH_TURNS", "2.5", `BENCH_TURNS="2.5": not a number`},
		{"BENCH_SHARED_PREFIX", "1k", `BENCH_SHARED_PREFIX="1k": not a number`},
		{"BENCH_SHARED_PREFIX", "-1", `BENCH_SHARED_PREFIX="-1": must be a whole number of tokens from 0 (none) to 1000000`},
		{"BENCH_ORDER", "random", `BENCH_ORDER="random": must be interleaved, grouped or alternate`},
		{"BENCH_FALLBACK", "off", `BENCH_FALLBACK="off": must be sim or none`},
		{"BENCH_CANARY", "1", `BENCH_CANARY="1": must be on or off`},
		{"BENCH_RECORD_TEXT", "yes", `BENCH_RECORD_TEXT`},
		{"BENCH_HOST_LABEL", "mac\nm4", `BENCH_HOST_LABEL="mac\nm4": must be one line of at most 100 characters`},
		{"BENCH_HOST_LABEL", strings.Repeat("m", 101), `must be one line of at most 100 characters`},
		{"BENCH_IDLE_POWER_S", "-1", `BENCH_IDLE_POWER_S="-1": must be a number of seconds from 0 (no idle baseline) to 600`},
		{"BENCH_IDLE_POWER_S", "601", `BENCH_IDLE_POWER_S="601": must be a number of seconds`},
		{"BENCH_IDLE_POWER_S", "five", `BENCH_IDLE_POWER_S="five"`},
		{"BENCH_CONTROL_MAX", "0", `BENCH_CONTROL_MAX="0": want a share of the run's timed time (10%) or a duration above 0 (30s, 2m)`},
		{"BENCH_CONTROL_MAX", "ten", `BENCH_CONTROL_MAX="ten": want a share`},
		{"BENCH_CONTROL_MAX", "0%", `BENCH_CONTROL_MAX="0%": a share must be a percentage above 0`},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			_, err := LoadFrom(map[string]string{tc.key: tc.val})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A workload brings its own turns and prompts: BENCH_TURNS and
// BENCH_SHARED_PREFIX with it are refused, each naming its value.
// An error names the bad value once, after its variable.
func TestBadValueNamedOnce(t *testing.T) {
	for _, tc := range []struct{ key, val, want string }{
		{"BENCH_MAX_TOKENS", "128tok", `BENCH_MAX_TOKENS="128tok": not a number of tokens (e.g. 512, 8k); or normal:MEAN,SD or uniform:LO-HI`},
		{"BENCH_MAX_TOKENS", "0", `BENCH_MAX_TOKENS="0": a length must be 1 or more`},
		{"BENCH_CONCURRENCY", "four", `BENCH_CONCURRENCY="four": not a whole number`},
	} {
		_, err := LoadFrom(map[string]string{tc.key: tc.val})
		require.Error(t, err)
		assert.Equal(t, tc.want, err.Error())
	}
}

// A misspelt built-in prompt is refused naming the one meant; a file of
// BENCH_PROMPTS_DIR and an in<N> are not misspellings, and a name far
// from every built-in is left to the prompts' loader.
func TestPromptDidYouMean(t *testing.T) {
	_, err := LoadFrom(map[string]string{"BENCH_PROMPTS": "short,shrot"})
	require.Error(t, err)
	assert.Equal(t, `BENCH_PROMPTS="short,shrot": unknown prompt "shrot": did you mean short? (built-in: short, medium, code)`, err.Error())
	_, err = LoadFrom(map[string]string{"BENCH_PROMPTS": "medum"})
	assert.ErrorContains(t, err, "did you mean medium?")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shrot.txt"), []byte("hi"), 0o644))
	_, err = LoadFrom(map[string]string{"BENCH_PROMPTS": "shrot", "BENCH_PROMPTS_DIR": dir})
	assert.NoError(t, err, "a file of the prompts folder")
	_, err = LoadFrom(map[string]string{"BENCH_PROMPTS": "haiku,in512", "BENCH_INPUT_TOKENS": "512"})
	assert.NoError(t, err)
}

// BENCH_CONTROL_MAX: a share of the timed time, at least MinControlTime,
// or a duration.
func TestControlMax(t *testing.T) {
	for _, tc := range []struct {
		val   string
		timed time.Duration
		want  time.Duration
	}{
		{"10%", 100 * time.Second, 10 * time.Second},
		{"10%", time.Second, MinControlTime},
		{"50%", 20 * time.Second, 10 * time.Second},
		{"30s", time.Hour, 30 * time.Second},
		{"2m", time.Second, 2 * time.Minute},
		{"45", time.Second, 45 * time.Second},
	} {
		s, err := LoadFrom(map[string]string{"BENCH_CONTROL_MAX": tc.val})
		require.NoError(t, err, tc.val)
		assert.Equal(t, tc.want, s.ControlMax.Budget(tc.timed), tc.val)
		assert.Equal(t, tc.val, s.ControlMax.String())
	}
}

func TestWorkloadRefusesTurnsAndSharedPrefix(t *testing.T) {
	_, err := LoadFrom(map[string]string{"BENCH_WORKLOAD": "chats.json", "BENCH_TURNS": "3", "BENCH_SHARED_PREFIX": "100"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_TURNS="3": a workload (BENCH_WORKLOAD) brings its own turns`)
	assert.Contains(t, err.Error(), `BENCH_SHARED_PREFIX="100": a workload (BENCH_WORKLOAD) brings its own prompts`)
}

// BENCH_MAX_TOKENS and BENCH_INPUT_TOKENS take distributions besides the
// lengths they took before, which keep their meaning: MaxTokens is the
// most a request draws, InputTokens the in<N> lengths.
func TestLengthDistributions(t *testing.T) {
	s, err := LoadFrom(map[string]string{"BENCH_MAX_TOKENS": "normal:100,10", "BENCH_INPUT_TOKENS": "512,normal:1024,256,uniform:128-2k,8k"})
	require.NoError(t, err)
	assert.Equal(t, 140, s.MaxTokens, "mean + 4 SD: what a context must hold")
	assert.True(t, s.MaxTokensDist.Varies())
	assert.Equal(t, InputTokens{512, 8192}, s.InputTokens)
	require.Len(t, s.InputLengths.Dists, 2)
	assert.Equal(t, "in-normal-1024-256", workload.InputName(s.InputLengths.Dists[0]))
	assert.Equal(t, "in-uniform-128-2048", workload.InputName(s.InputLengths.Dists[1]))

	s, err = LoadFrom(map[string]string{"BENCH_MAX_TOKENS": "1k", "BENCH_INPUT_TOKENS": "512"})
	require.NoError(t, err)
	assert.Equal(t, 1024, s.MaxTokens)
	assert.False(t, s.MaxTokensDist.Varies(), "one length: every request asks the same")
	assert.Empty(t, s.InputLengths.Dists)
}

func TestRuntimeDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind runtimes.Kind
		url  string
	}{
		{"ollama", runtimes.KindOllama, "http://127.0.0.1:11434"},
		{"vllm", runtimes.KindOpenAI, "http://127.0.0.1:8000"},
		{"llamacpp", runtimes.KindOpenAI, "http://127.0.0.1:8080"},
		{"lmstudio", runtimes.KindOpenAI, "http://127.0.0.1:1234"},
		{"sglang", runtimes.KindOpenAI, "http://127.0.0.1:30000"},
		{"mlx", runtimes.KindOpenAI, "http://127.0.0.1:8080"},
		{"sim", runtimes.KindOpenAI, ""},
	} {
		rt, err := LoadRuntimeFrom(map[string]string{}, tc.name)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.kind, rt.Kind, tc.name)
		assert.Equal(t, tc.url, rt.URL, tc.name)
		assert.True(t, rt.Known, tc.name)
	}
}

// The seed's run: a name of the user's own with its URL and model.
func TestRuntimeFromEnv(t *testing.T) {
	rt, err := LoadRuntimeFrom(map[string]string{
		"VLLM_METAL_URL":     "http://127.0.0.1:8001",
		"VLLM_METAL_MODEL":   "qwen3.8-27b-nvfp4",
		"VLLM_METAL_API_KEY": "sk-secret",
	}, "vllm-metal")
	require.NoError(t, err)
	assert.Equal(t, Runtime{Name: "vllm-metal", Kind: runtimes.KindOpenAI, URL: "http://127.0.0.1:8001",
		Model: "qwen3.8-27b-nvfp4", APIKey: "sk-secret", Product: "vllm-metal"}, rt)

	rt, err = LoadRuntimeFrom(map[string]string{"OLLAMA_KIND": "OpenAI", "OLLAMA_URL": "http://127.0.0.1:11435"}, "ollama")
	require.NoError(t, err)
	assert.Equal(t, runtimes.KindOpenAI, rt.Kind)
	assert.Equal(t, "http://127.0.0.1:11435", rt.URL)

	assert.Equal(t, "MY_SERVER_2_", EnvPrefix("my.server-2"))
}

func TestRuntimeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"custom", map[string]string{}, `runtime "custom" has no URL: set CUSTOM_URL`},
		{"custom", map[string]string{"CUSTOM_URL": "127.0.0.1:9000"}, `CUSTOM_URL: URL "127.0.0.1:9000": scheme must be http or https`},
		{"custom", map[string]string{"CUSTOM_URL": "http://"}, `has no host`},
		{"vllm", map[string]string{"VLLM_KIND": "grpc"}, `VLLM_KIND="grpc": must be ollama or openai`},
		{"sim", map[string]string{"SIM_URL": "http://127.0.0.1:1"}, `SIM_URL="http://127.0.0.1:1": the simulator runs in-process`},
		{"lmstudio", map[string]string{"LMSTUDIO_VERSION": "0.3.30\n"}, `LMSTUDIO_VERSION="0.3.30\n": must be one line of at most 100 characters`},
		{"mlx", map[string]string{"MLX_VERSION": strings.Repeat("9", 101)}, `MLX_VERSION="999`},
		// A password in a bad URL never reaches the message.
		{"custom", map[string]string{"CUSTOM_URL": "ftp://me:hunter2@example.test"}, `ftp://xxxxx@example.test`},
		{"custom", map[string]string{"CUSTOM_URL": "http://me:hunter2@ho st/"}, `invalid character " " in host name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadRuntimeFrom(tc.env, tc.name)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}

// NAME_VERSION is kept as given, blanks around it left out; 100
// characters are allowed, counted as characters, not bytes.
func TestRuntimeVersion(t *testing.T) {
	rt, err := LoadRuntimeFrom(map[string]string{"LMSTUDIO_VERSION": " 0.3.30 "}, "lmstudio")
	require.NoError(t, err)
	assert.Equal(t, "0.3.30", rt.Version)
	_, err = LoadRuntimeFrom(map[string]string{"LMSTUDIO_VERSION": strings.Repeat("é", 100)}, "lmstudio")
	assert.NoError(t, err)
	s, err := LoadFrom(map[string]string{"BENCH_HOST_LABEL": strings.Repeat("é", 100)})
	require.NoError(t, err)
	assert.Equal(t, 100, utf8.RuneCountInString(s.HostLabel))
}

// LoadFrom reads the variables of a map, not the process's environment
// (which Load reads): a test's settings built in code. With no runtime
// named, the specs are the known local ones and then the simulator.
func TestLoadFrom(t *testing.T) {
	envtest.Clean(t)
	t.Setenv("BENCH_TURNS", "7") // Load's, not LoadFrom's
	s, err := Load()
	require.NoError(t, err)
	assert.Equal(t, 7, s.Turns, "Load reads the process's environment")
	t.Setenv("OLLAMA_URL", "http://10.0.0.9:11434")
	rt, err := LoadRuntimeFrom(map[string]string{}, "ollama")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:11434", rt.URL, "LoadRuntimeFrom reads the map, not the process's OLLAMA_URL")
	s, err = LoadFrom(map[string]string{"BENCH_TURNS": "3", "OLLAMA_URL": "http://10.0.0.2:11434"})
	require.NoError(t, err)
	assert.Equal(t, 3, s.Turns)
	assert.Equal(t, "results", s.OutputDir, "the format's default folder")
	var names []string
	for _, sp := range s.Specs {
		names = append(names, sp.Name)
	}
	assert.Equal(t, append(slices.Clone(ProbeOrder), Sim), names)
	assert.Equal(t, "http://10.0.0.2:11434", s.Specs[0].URL)

	_, err = LoadFrom(map[string]string{"BENCH_TURNS": "zero"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_TURNS="zero": not a number`, "the map's value, not the process's")
	_, err = LoadFrom(map[string]string{"BENCH_TURNS": "0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_TURNS="0": must be`)
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "mine"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `runtime "mine" has no URL: set MINE_URL`)
}

// BENCH_COOLDOWN: a duration, idle with its default cap or its own, and
// refusals that name the variable and the value.
func TestCooldown(t *testing.T) {
	for val, want := range map[string]Cooldown{
		"":          {},
		"0":         {},
		"30s":       {Wait: 30 * time.Second},
		"90":        {Wait: 90 * time.Second},
		"idle":      {Idle: true, Max: DefaultCooldownMax},
		"idle:90s":  {Idle: true, Max: 90 * time.Second},
		" idle:2m ": {Idle: true, Max: 2 * time.Minute},
	} {
		s, err := LoadFrom(map[string]string{"BENCH_COOLDOWN": val})
		require.NoError(t, err, "%q", val)
		got := s.Cooldown
		assert.Equal(t, want.Wait, got.Wait, "%q", val)
		assert.Equal(t, want.Idle, got.Idle, "%q", val)
		assert.Equal(t, want.Max, got.Max, "%q", val)
		assert.Equal(t, want.Wait > 0 || want.Idle, got.Set(), "%q", val)
	}
	for val, want := range map[string]string{
		"-1s":      `BENCH_COOLDOWN="-1s": want a duration from 0 (none) to 1h0m0s (30s), or idle (idle:5m caps it)`,
		"2h":       `BENCH_COOLDOWN="2h": want a duration from 0`,
		"cool":     `BENCH_COOLDOWN="cool": want a duration`,
		"idle:":    `BENCH_COOLDOWN="idle:": idle's cap must be a duration above 0 and at most 1h0m0s (idle:5m)`,
		"idle:0":   `idle's cap must be a duration above 0`,
		"idle:2h":  `idle's cap must be`,
		"idlest":   `idle's cap must be`,
		"idle:ten": `idle's cap must be`,
	} {
		_, err := LoadFrom(map[string]string{"BENCH_COOLDOWN": val})
		require.Error(t, err, "%q", val)
		assert.Contains(t, err.Error(), want)
	}
}
