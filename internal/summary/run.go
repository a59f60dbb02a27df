package summary

import (
	"encoding/json"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// RunIDFormat is the time layout of Run.ID, in UTC.
const RunIDFormat = "20060102T150405Z"

// Host describes the machine that ran the client.
type Host struct {
	Platform string `json:"platform"`
	Machine  string `json:"machine"`
	// Python is always nil in runs of this suite; the key is kept so readers
	// of the seed format keep working.
	Python      *string `json:"python"`
	Go          string  `json:"go"`
	OS          string  `json:"os"`
	Arch        string  `json:"arch"`
	CPU         string  `json:"cpu"`
	CPUs        int     `json:"cpus"`
	MemoryBytes uint64  `json:"memory_bytes"`
	// PowerSource is what measured power ("macmon 0.8.2"), nil if nothing.
	PowerSource *string `json:"power_source"`
	// Label names the machine among several that run the suite
	// (BENCH_HOST_LABEL, else the host name); "" in files before it.
	Label string `json:"label"`
	// The idle baseline of all_power (CPU + GPU + ANE), sampled for
	// BENCH_IDLE_POWER_S with nothing in flight before the first leaf,
	// its CPU, GPU and ANE parts and its standard deviation, W; nil
	// without one. Net figures subtract IdlePowerW.
	IdlePowerW    *float64 `json:"idle_power_w"`
	IdleCPUPowerW *float64 `json:"idle_cpu_power_w"`
	IdleGPUPowerW *float64 `json:"idle_gpu_power_w"`
	IdleANEPowerW *float64 `json:"idle_ane_power_w"`
	IdlePowerWSD  *float64 `json:"idle_power_w_sd"`
}

// Arguments are the settings of a run, written under "arguments" in this
// order; nil pointers are written as null. A field tagged config:"F" is
// config.Settings' field F as given (ArgumentsOf), a duration in seconds;
// the others are the driver's, which knows what the run made of them.
type Arguments struct {
	OutputDir   string       `json:"output_dir" config:"OutputDir"`
	Runtime     string       `json:"runtime"`
	OllamaURL   *string      `json:"ollama_url"`
	OllamaModel *string      `json:"ollama_model"`
	VLLMURL     *string      `json:"vllm_url"`
	VLLMModel   *string      `json:"vllm_model"`
	Warmups     int          `json:"warmups" config:"Warmups"`
	Rounds      *int         `json:"rounds"` // nil when -benchtime decides
	Concurrency []int        `json:"concurrency"`
	MaxTokens   int          `json:"max_tokens" config:"MaxTokens"`
	Seed        *int         `json:"seed" config:"Seed"`       // nil: none sent
	Timeout     stats.Number `json:"timeout" config:"Timeout"` // seconds
	Temperature stats.Number `json:"temperature" config:"Temperature"`
	Prompts     config.Names `json:"prompts"`
	Count       *int         `json:"count"`
	Benchtime   string       `json:"benchtime"`
	IdleTimeout stats.Number `json:"idle_timeout" config:"IdleTimeout"` // seconds; 0 is off
	// Cache is BENCH_CACHE: "cold" or "warm"; "" in files written before
	// it existed, which were warm.
	Cache     string `json:"cache" config:"Cache"`
	IgnoreEOS bool   `json:"ignore_eos" config:"IgnoreEOS"`
	KeepAlive string `json:"keep_alive" config:"KeepAlive"` // sent with Ollama requests
	// Open-loop loads: rates in requests per second, the gamma shape of
	// the gaps between arrivals (1: Poisson) and the in-flight cap.
	Rates       config.Floats `json:"rates" config:"Rates"`
	Burstiness  stats.Number  `json:"burstiness" config:"Burstiness"`
	MaxInflight int           `json:"max_inflight" config:"MaxInflight"`
	// SLO are the latency targets of goodput ("ttft=2s,tpot=50ms"), null
	// for none.
	SLO *string `json:"slo"`
	// Sweep is set when BENCH_CONCURRENCY=sweep: its bound, and where and
	// why each runtime × prompt stopped.
	Sweep *Sweep `json:"sweep"`
	// Power is BENCH_POWER: auto, on or off.
	Power string `json:"power" config:"Power"`
	// Fresh is BENCH_FRESH: "leaf" (each leaf run began on a server
	// returned to a known state, the way each runtime's fresh says) or
	// "off"; "" in files written before it existed.
	Fresh string `json:"fresh" config:"Fresh"`
	// Control is BENCH_CONTROL: "on" (each runtime's first leaf ran once
	// more at the end: its runtime's control) or "off".
	Control string `json:"control" config:"Control"`
	// InputTokens are BENCH_INPUT_TOKENS, the lengths of the in<N>
	// prompts; NumCtx is the options.num_ctx sent to Ollama (BENCH_NUM_CTX,
	// or made to fit the longest input), null when none was sent.
	InputTokens config.InputTokens `json:"input_tokens" config:"InputTokens"`
	NumCtx      *int               `json:"num_ctx"`
	// Turns is BENCH_TURNS, the turns of each conversation (1: every
	// request stands alone; 0 in files written before it existed), and
	// SharedPrefix BENCH_SHARED_PREFIX, the tokens of the system message
	// every request began with (0: none).
	Turns        int `json:"turns" config:"Turns"`
	SharedPrefix int `json:"shared_prefix" config:"SharedPrefix"`
	// Order is BENCH_ORDER: interleaved (every runtime in turn at each
	// prompt and load) or grouped ("" in files before it: grouped).
	// Canary is BENCH_CANARY (on/off; "" before it: none sent), and
	// RecordText BENCH_RECORD_TEXT.
	Order      string `json:"order" config:"Order"`
	Canary     string `json:"canary" config:"Canary"`
	RecordText bool   `json:"record_text" config:"RecordText"`
	// IdlePowerS is the seconds of the idle baseline taken: BENCH_IDLE_POWER_S
	// where power was measured, else 0 (none taken).
	IdlePowerS stats.Number `json:"idle_power_s"`
	// Workload is BENCH_WORKLOAD as given, null when unset; WorkloadN
	// BENCH_WORKLOAD_N, the items of it taken (0: all). TraceSpeed is
	// BENCH_TRACE_SPEED where a trace was replayed, else 0 (it shaped no
	// request). Tools is BENCH_TOOLS as given, null when unset, and
	// ToolsSHA256 the first 16 hex digits of the SHA-256 of that file's
	// bytes, which tell two tools files of one name apart.
	Workload    *string      `json:"workload"`
	WorkloadN   int          `json:"workload_n" config:"WorkloadN"`
	TraceSpeed  stats.Number `json:"trace_speed"`
	Tools       *string      `json:"tools"`
	ToolsSHA256 *string      `json:"tools_sha256"`
	// API is BENCH_API where it is not the chat, and EmbedBatch
	// BENCH_EMBED_BATCH for embeddings; absent otherwise, so that a chat
	// run's file is as it was before them.
	API        string `json:"api,omitempty"`
	EmbedBatch int    `json:"embed_batch,omitempty"`
	// Ramp is BENCH_RAMP in seconds, the ramp before each leaf run's timed
	// part, absent without one; HTTPTrace is BENCH_HTTP_TRACE, absent when
	// off.
	Ramp      stats.Number `json:"ramp_s,omitempty" config:"Ramp"`
	HTTPTrace bool         `json:"http_trace,omitempty" config:"HTTPTrace"`
	// Images is BENCH_IMAGES as the run read it, N@WxH with ":jpeg" for
	// JPEG ("2@512x512"), absent when no image was sent.
	Images string `json:"images,omitempty"`
	// BusyMax is the CPU, in cores, that other processes could use on
	// average over a leaf run's timed part before it was marked disturbed
	// (LeafRun.Disturbed); absent in files written before it.
	BusyMax *float64 `json:"busy_max,omitempty"`
	// Preset is BENCH_PRESET, the preset the run read its settings from
	// where the environment left them unset, and PresetSet the variables
	// it set, with their values (config.Settings.PresetSet); both absent
	// without a preset (and in files before format 2).
	Preset    string            `json:"preset,omitempty" config:"Preset"`
	PresetSet map[string]string `json:"preset_set,omitempty" config:"PresetSet"`
}

// ArgumentsOf is the Arguments that copy settings st: every field tagged
// config:"F" holds st.F, a config.Duration as seconds. The driver fills
// the rest.
func ArgumentsOf(st config.Settings) Arguments {
	var a Arguments
	av, sv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(st)
	at := av.Type()
	for i := range at.NumField() {
		name, ok := at.Field(i).Tag.Lookup("config")
		if !ok {
			continue
		}
		from, to := sv.FieldByName(name), av.Field(i)
		if !from.IsValid() {
			panic("summary: Arguments." + at.Field(i).Name + " copies config.Settings." + name + ", which does not exist")
		}
		if d, ok := from.Interface().(config.Duration); ok {
			from = reflect.ValueOf(stats.Number(time.Duration(d).Seconds()))
		}
		to.Set(from.Convert(to.Type()))
	}
	return a
}

// Sweep is a concurrency sweep: 1, 2, 4, … up to Max, each runtime ×
// prompt stopping at its knee.
type Sweep struct {
	Max   int         `json:"max"`
	Stops []SweepStop `json:"stops"`
}

// SweepStop is where one runtime × prompt's sweep stopped: the last
// concurrency run, the knee (the highest concurrency that still paid off,
// 0 if none did), and why.
type SweepStop struct {
	Runtime     string `json:"runtime"`
	Prompt      string `json:"prompt"`
	Concurrency int    `json:"concurrency"`
	Knee        int    `json:"knee"`
	Reason      string `json:"reason"`
}

// CacheMode is the file's BENCH_CACHE, "warm" for files written before it
// existed (every request sent the same prompt).
func (a Arguments) CacheMode() string {
	if a.Cache == "" {
		return config.CacheWarm
	}
	return a.Cache
}

// RuntimeInfo is one runtime of the run.
type RuntimeInfo struct {
	Name string `json:"name"`
	// Product is the part of Name before '@' (the whole Name without
	// one): two runtimes of one product are two sides of it, such as two
	// versions served at once (ollama@0.6.5 and ollama@0.17.4: "ollama").
	// "" in files written before it.
	Product string `json:"product"`
	Kind    string `json:"kind"`
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	// Fresh is how the server was returned to a known state before each
	// leaf run (runtimes.FreshWay: unload, erase-slots,
	// reset-prefix-cache, flush-cache, or none where it offers no way);
	// nil with BENCH_FRESH=off or before the first leaf.
	Fresh *string `json:"fresh"`
	// FreshError is the first refusal of the server to be reset, nil if
	// it never refused.
	FreshError *string `json:"fresh_error"`
	// Control compares the runtime's first leaf run with the same leaf
	// run once more at the end of the run; nil with BENCH_CONTROL=off or
	// when it could not run.
	Control *Control `json:"control"`
	// InputSizes are how each in<N> prompt was sized for the runtime, by
	// prompt name; empty without in<N> prompts.
	InputSizes map[string]InputSize `json:"input_sizes"`
	// ContextLimit is the longest request in tokens its server says its
	// model takes, and ContextSource where it said so; 0 and "" where it
	// did not.
	ContextLimit  int    `json:"context_limit"`
	ContextSource string `json:"context_source"`
	// ServerEnv is NAME_SERVER_ENV: the server's own settings that change
	// results as the user stated them (OLLAMA_NUM_PARALLEL=4, …), absent
	// where none were stated. Two runs that both state them and differ
	// in one are not comparable (Differences).
	ServerEnv map[string]string `json:"server_env,omitempty"`
}

// InputSize is how an in<N> prompt was sized for one runtime: the words
// of the suite's generated text, the prompt tokens the server counted for
// a request of them (chat template and cold marker included), how
// ("tokenize": the server's tokenize endpoint and one request; "requests":
// calibration requests of one output token), and the calibration requests
// sent, which are in the request records with "calibration": true and in
// no figure.
type InputSize struct {
	Words               int    `json:"words"`
	PromptTokens        int    `json:"prompt_tokens"`
	Method              string `json:"method"`
	CalibrationRequests int    `json:"calibration_requests"`
}

// SetInputSize records how prompt was sized for runtime name.
func (r *Run) SetInputSize(name, prompt string, s InputSize) {
	for i := range r.Runtimes {
		if rt := &r.Runtimes[i]; rt.Name == name {
			if rt.InputSizes == nil {
				rt.InputSizes = map[string]InputSize{}
			}
			rt.InputSizes[prompt] = s
		}
	}
}

// Prompt is one prompt of the run.
type Prompt struct {
	Name, Text string
}

// Run is one whole run: metadata plus every leaf run, in order. Set the
// exported fields before writing; Add may be called from any goroutine.
type Run struct {
	ID                     string // RunIDFormat, UTC
	CreatedAt, CompletedAt time.Time
	Host                   Host
	Arguments              Arguments
	Runtimes               []RuntimeInfo
	Versions               map[string]*string         // runtime name -> version, nil if unknown
	ModelMetadata          map[string]json.RawMessage // runtime name -> raw JSON, nil -> null
	Prompts                Prompts                    // written as an object in this order
	// Cache is the run's BENCH_CACHE, written as the benchstat file's
	// "cache" configuration line.
	Cache string
	// Complete is set when every benchmark has run; a file written after
	// each leaf (so that an interrupted run keeps what it finished) has it
	// false until the last write.
	Complete bool

	// SLO are the latency targets of goodput; the zero SLO has none.
	SLO stats.SLO

	mu     sync.Mutex
	leaves []leaf
	rows   map[bench.Key]cachedRow
	// quality are the quality figures by runtime and prompt (SetQuality),
	// QualityRun how they were measured (nil: not measured).
	quality    map[qualityKey]Quality
	QualityRun *QualityRun
}

// leaf is one Add call: one -count repetition of one leaf benchmark.
type leaf struct {
	key    bench.Key
	rounds []stats.Round
	m      stats.Metrics // of rounds, computed once
	tel    Telemetry
	procs  int // GOMAXPROCS while it ran, for the benchmark name
	// notRun is why the leaf sent no request (AddNotRun), with its class.
	notRun      error
	notRunClass runtimes.Class
}

// SetMetadata adds raw, under key, to the model metadata of runtime name
// (an object, as the server's model listing is).
func (r *Run) SetMetadata(name, key string, raw json.RawMessage) {
	m := map[string]json.RawMessage{}
	if old := r.ModelMetadata[name]; len(old) > 0 && json.Unmarshal(old, &m) != nil {
		m = map[string]json.RawMessage{"models": old}
	}
	m[key] = raw
	if b, err := json.Marshal(m); err == nil {
		r.ModelMetadata[name] = b
	}
}

// NewRun returns an empty run started at now.
func NewRun(now time.Time) *Run {
	now = now.UTC()
	return &Run{ID: now.Format(RunIDFormat), CreatedAt: now}
}

// Add records one leaf run (one -count repetition of k), with what was
// measured beside its requests, and returns its figures. It keeps a copy
// of rounds and the current GOMAXPROCS, which go test puts in the name.
func (r *Run) Add(k bench.Key, rounds []stats.Round, tel Telemetry) stats.Metrics {
	cp := make([]stats.Round, len(rounds))
	for i, rd := range rounds {
		rd.Results = slices.Clone(rd.Results)
		cp[i] = rd
	}
	l := leaf{key: k, rounds: cp, m: stats.Compute(cp, r.SLO), tel: tel, procs: runtime.GOMAXPROCS(0)}
	r.mu.Lock()
	r.leaves = append(r.leaves, l)
	r.mu.Unlock()
	return l.m
}

// AddNotRun records one leaf run of k that sent no request because its
// runtime could not be benchmarked (the driver's classes unreachable and
// unavailable): its row has no figures, and errors[class] counts such
// leaf runs, with err's message.
func (r *Run) AddNotRun(k bench.Key, class runtimes.Class, err error) {
	r.mu.Lock()
	r.leaves = append(r.leaves, leaf{key: k, procs: runtime.GOMAXPROCS(0), notRun: err, notRunClass: class})
	r.mu.Unlock()
}

// Requests returns the number of requests sent in the leaf runs so far.
func (r *Run) Requests() int {
	n, _, _ := r.Failures()
	return n
}

// Failures returns the number of requests sent in the leaf runs so far,
// how many of them failed, and the failures by class for a message ("3
// timeout, 1 reset").
func (r *Run) Failures() (requests, failures int, classes string) {
	var all stats.Metrics
	for _, l := range r.snapshot() {
		all.Requests += l.m.Requests
		all.Failures += l.m.Failures
		for c, ec := range l.m.Errors {
			if all.Errors == nil {
				all.Errors = map[runtimes.Class]stats.ErrorCount{}
			}
			pooled := all.Errors[c]
			if pooled.Count == 0 {
				pooled.First = ec.First
			}
			pooled.Count += ec.Count
			all.Errors[c] = pooled
		}
	}
	return all.Requests, all.Failures, all.ErrorCounts()
}

// Failed returns the keys of the leaf runs in which every request failed,
// one per such run, in order.
func (r *Run) Failed() []bench.Key {
	var keys []bench.Key
	for _, l := range r.snapshot() {
		if m := l.m; m.Requests > 0 && m.Successes == 0 {
			keys = append(keys, l.key)
		}
	}
	return keys
}

// Len returns the number of Add calls so far.
func (r *Run) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.leaves)
}

func (r *Run) snapshot() []leaf {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.leaves)
}

// Row is one line of the summary: the pooled figures of one Key. Missing
// figures are nil (null in JSON).
type Row struct {
	Runtime     string `json:"runtime"`
	Model       string `json:"model"`
	Prompt      string `json:"prompt"`
	Concurrency int    `json:"concurrency"`
	Requests    int    `json:"requests"`
	Successes   int    `json:"successes"`
	Failures    int    `json:"failures"`
	// Errors are the failures by class (runtimes.Class), each with its
	// count and first message; {} without failures.
	Errors map[runtimes.Class]stats.ErrorCount `json:"errors"`

	TTFTMean *float64 `json:"ttft_s_mean"`
	TTFTP50  *float64 `json:"ttft_s_p50"`
	TTFTP95  *float64 `json:"ttft_s_p95"`

	TotalMean *float64 `json:"total_s_mean"`
	TotalP50  *float64 `json:"total_s_p50"`
	TotalP95  *float64 `json:"total_s_p95"`

	PromptTPSMean *float64 `json:"prompt_tps_mean"`
	PromptTPSP50  *float64 `json:"prompt_tps_p50"`
	PromptTPSP95  *float64 `json:"prompt_tps_p95"`

	DecodeTPSMean *float64 `json:"decode_tps_mean"`
	DecodeTPSP50  *float64 `json:"decode_tps_p50"`
	DecodeTPSP95  *float64 `json:"decode_tps_p95"`

	RequestTPSMean *float64 `json:"request_tps_mean"`
	RequestTPSP50  *float64 `json:"request_tps_p50"`
	RequestTPSP95  *float64 `json:"request_tps_p95"`

	AggregateTPSMean *float64 `json:"aggregate_output_tps_mean"`
	AggregateTPSP50  *float64 `json:"aggregate_output_tps_p50"`
	AggregateTPSP95  *float64 `json:"aggregate_output_tps_p95"`

	OutputTokensApprox bool `json:"output_tokens_approx"`
	OutputTokensMin    *int `json:"output_tokens_min"`
	OutputTokensMax    *int `json:"output_tokens_max"`

	// The tails of the seed's figures, and the figures of the answer and
	// of the token stream.
	TTFTP99  *float64 `json:"ttft_s_p99"`
	TotalP99 *float64 `json:"total_s_p99"`

	TTFCMean *float64 `json:"ttfc_s_mean"`
	TTFCP50  *float64 `json:"ttfc_s_p50"`
	TTFCP95  *float64 `json:"ttfc_s_p95"`
	TTFCP99  *float64 `json:"ttfc_s_p99"`

	TPOTMean *float64 `json:"tpot_s_mean"`
	TPOTP50  *float64 `json:"tpot_s_p50"`
	TPOTP95  *float64 `json:"tpot_s_p95"`
	TPOTP99  *float64 `json:"tpot_s_p99"`

	ITLMean *float64 `json:"itl_s_mean"`
	ITLP50  *float64 `json:"itl_s_p50"`
	ITLP95  *float64 `json:"itl_s_p95"`
	ITLP99  *float64 `json:"itl_s_p99"`
	ITLMax  *float64 `json:"itl_s_max"`

	// BurstReplies counts the successful replies that came in a burst
	// (stats.IsBurst), left out of the decode rate and TPOT; nil (absent)
	// in files written before it, whose native Ollama rows had the
	// server's decode rate as decode_tps_*. ServerDecodeTPS* are the
	// server's own decode rate (native Ollama eval_count / eval_duration),
	// null where the server gives none.
	BurstReplies        *int     `json:"burst_replies"`
	ServerDecodeTPSMean *float64 `json:"server_decode_tps_mean"`
	ServerDecodeTPSP50  *float64 `json:"server_decode_tps_p50"`
	ServerDecodeTPSP95  *float64 `json:"server_decode_tps_p95"`

	TokensPerChunkMean  *float64 `json:"tokens_per_chunk_mean"`
	ReasoningTokensMean *float64 `json:"reasoning_tokens_mean"`

	// What the requests asked and the server did with it: the prompt's
	// tokens and how many came from the server's cache, why the replies
	// ended, how many ended before the length asked for (a reply that
	// called a tool is not counted: the call ends it), and the model the
	// replies named.
	PromptTokensMean       *float64 `json:"prompt_tokens_mean"`
	CachedPromptTokensMean *float64 `json:"cached_prompt_tokens_mean"`
	// CachedPromptTokensSource is where the replies stated their cached
	// tokens (runtimes.CachedSource; several, most requests first,
	// joined by ", "), absent where none did.
	CachedPromptTokensSource *string        `json:"cached_prompt_tokens_source,omitempty"`
	FinishReasons            map[string]int `json:"finish_reasons"`
	// StopAtCap is how many of finish_reasons' "length" the server
	// called "stop" though they produced every token asked for (Ollama's
	// /v1/responses); absent when none.
	StopAtCap    int    `json:"stop_at_cap,omitempty"`
	ShortOutputs int    `json:"short_outputs"`
	ServedModel  string `json:"served_model"`

	// The machine's power and memory over the timed rounds (macmon, on a
	// Mac), null where there was no source.
	PowerWMean            *float64 `json:"power_w_mean"`
	GPUPowerWMean         *float64 `json:"gpu_power_w_mean"`
	SysPowerWMean         *float64 `json:"sys_power_w_mean"`
	EnergyJ               *float64 `json:"energy_j"`
	EnergyJPerOutputToken *float64 `json:"energy_j_per_output_token"`
	RAMUsedBytesMax       *uint64  `json:"ram_used_bytes_max"`
	SwapUsedBytesMax      *uint64  `json:"swap_used_bytes_max"`
	SwapGrowthBytes       *int64   `json:"swap_growth_bytes"`
	GPUMHzMean            *float64 `json:"gpu_mhz_mean"`
	CPUTempCMax           *float64 `json:"cpu_temp_c_max"`
	GPUTempCMax           *float64 `json:"gpu_temp_c_max"`
	PowerSamples          *int     `json:"power_samples"`
	// Energy above the idle baseline (host.idle_power_w), the share of
	// the timed part the samples covered, each request's share of the net
	// energy and its phases', and the temperatures as the row's first leaf
	// run's timed part began: docs/power.md. Null without them.
	NetPowerWMean                *float64 `json:"net_power_w_mean"`
	NetEnergyJ                   *float64 `json:"net_energy_j"`
	NetEnergyJPerOutputToken     *float64 `json:"net_energy_j_per_output_token"`
	PowerCoverage                *float64 `json:"power_coverage"`
	EnergyJPerRequestMean        *float64 `json:"energy_j_per_request_mean"`
	PrefillEnergyJPerRequestMean *float64 `json:"prefill_energy_j_per_request_mean"`
	DecodeEnergyJPerRequestMean  *float64 `json:"decode_energy_j_per_request_mean"`
	PrefillEnergyJPerPromptToken *float64 `json:"prefill_energy_j_per_prompt_token"`
	DecodeEnergyJPerOutputToken  *float64 `json:"decode_energy_j_per_output_token"`
	CPUTempCStart                *float64 `json:"cpu_temp_c_start"`
	GPUTempCStart                *float64 `json:"gpu_temp_c_start"`

	// The server's own counters over the timed rounds (Prometheus
	// /metrics), absent where the server has none.
	ServerMetrics         map[string]float64 `json:"server_metrics,omitempty"`
	ServerPrefillSMean    *float64           `json:"server_prefill_s_mean"`
	ServerDecodeSMean     *float64           `json:"server_decode_s_mean"`
	ServerGeneratedTokens *float64           `json:"server_generated_tokens"`
	// ServerCachedPromptTokensMean is the prompt tokens the server took
	// from its prefix cache by its own count
	// (telemetry.ServerFigures.CachedPromptTokens) over the requests sent
	// while it was read: null where its /metrics has no such counter.
	// vLLM counts them even where its replies state none
	// (cached_prompt_tokens_mean null: started without
	// --enable-prompt-tokens-details).
	ServerCachedPromptTokensMean *float64 `json:"server_cached_prompt_tokens_mean"`
	// ModelLoads counts the successful requests that waited for the
	// server to load the model (Ollama load_duration > 100 ms).
	ModelLoads int `json:"model_loads"`
	// WarmupModelLoads counts the warm-up requests that waited for the
	// server to load the model, which no figure includes: with
	// BENCH_FRESH=leaf on Ollama, the requests of each leaf run's first
	// warm-up round.
	WarmupModelLoads int `json:"warmup_model_loads"`
	// LoadSMean is the model's load time, in seconds, over the leaf runs
	// whose warm-ups saw one (Telemetry.LoadS), apart from every TTFT;
	// LoadSFrom says whose figure it is ("server": load_duration; "client
	// ttft": the first warm-up's TTFT above the timed requests'). Absent
	// where no load was seen.
	LoadSMean *float64 `json:"load_s_mean,omitempty"`
	LoadSFrom string   `json:"load_s_source,omitempty"`
	// InputTokensTarget is the prompt length an in<N> prompt was sized
	// to, N, null for other prompts; TruncatedPrompts counts the
	// successful requests whose prompt the server cut (more than 5% short
	// of N by its count, or on Ollama a count that reaches num_ctx).
	InputTokensTarget *int `json:"input_tokens_target"`
	TruncatedPrompts  int  `json:"truncated_prompts"`
	// The prompt lengths (where sized) and max_tokens the requests asked
	// for, when they differ from request to request (a length
	// distribution, a workload): their mean, least and most; absent when
	// every request asked the same.
	InputTokensAskedMean *float64 `json:"input_tokens_asked_mean,omitempty"`
	InputTokensAskedMin  *int     `json:"input_tokens_asked_min,omitempty"`
	InputTokensAskedMax  *int     `json:"input_tokens_asked_max,omitempty"`
	MaxTokensAskedMean   *float64 `json:"max_tokens_asked_mean,omitempty"`
	MaxTokensAskedMin    *int     `json:"max_tokens_asked_min,omitempty"`
	MaxTokensAskedMax    *int     `json:"max_tokens_asked_max,omitempty"`

	// CacheHitRatio is the cached prompt tokens over the prompt tokens of
	// the successful requests whose server said how many it took from its
	// cache; null where none did (Ollama: its prompt_eval_count counts the
	// cached tokens with the rest). NotSent counts the turns of
	// conversations never sent because an earlier turn failed; Turns has
	// the figures of each turn (BENCH_TURNS above 1; absent otherwise).
	CacheHitRatio *float64      `json:"cache_hit_ratio"`
	NotSent       int           `json:"not_sent"`
	Turns         []TurnFigures `json:"turns,omitempty"`

	// Canary is the reply to the leaf's canary request (BENCH_CANARY): its
	// prompt without marker, at temperature 0, sent once per leaf run
	// after the warm-ups and timed by nothing; the first leaf run's. Nil
	// with BENCH_CANARY=off, or when every canary failed.
	Canary *canary.Reply `json:"canary"`

	// Open-loop leaves (rate=…): the rate asked for and achieved, the
	// client's send lag, the most requests in flight and the arrivals the
	// in-flight cap held back, completed requests per second; null for
	// closed-loop rows (concurrency ≥ 1).
	RateRPS        *float64 `json:"rate_rps"`
	AchievedRPS    *float64 `json:"achieved_rps"`
	SendLagSP50    *float64 `json:"send_lag_s_p50"`
	SendLagSP99    *float64 `json:"send_lag_s_p99"`
	InflightMax    *int     `json:"inflight_max"`
	InflightCapped *int     `json:"inflight_capped"`
	ThroughputRPS  *float64 `json:"throughput_rps"`
	// Embeddings (BENCH_API=embeddings): completed requests and their
	// inputs' tokens per second of the rounds' wall time; absent for the
	// other APIs.
	EmbedRPS      *float64 `json:"embed_rps,omitempty"`
	EmbedInputTPS *float64 `json:"embed_input_tps,omitempty"`
	// Goodput against arguments.slo: requests that met every target per
	// second of the rounds' wall time, and their share of all requests
	// (failures are misses); null without an SLO.
	GoodputRPS    *float64 `json:"goodput_rps"`
	SLOAttainment *float64 `json:"slo_attainment"`

	// Tool calls, in rows whose requests were sent with tools
	// (BENCH_TOOLS), absent from the others: the successful replies that
	// made at least one tool call and their share of the successes, the
	// calls they made, how many calls had arguments that, once whole,
	// are a JSON object and their share of the calls (absent without
	// calls), and the time to the first chunk that carried part of a
	// tool call, over the replies that made one.
	ToolCallReplies    *int     `json:"tool_call_replies,omitempty"`
	ToolCallReplyRatio *float64 `json:"tool_call_reply_ratio,omitempty"`
	ToolCalls          *int     `json:"tool_calls,omitempty"`
	ToolArgsValid      *int     `json:"tool_args_valid,omitempty"`
	ToolArgsValidRatio *float64 `json:"tool_args_valid_ratio,omitempty"`
	TTFToolCallMean    *float64 `json:"ttf_tool_call_s_mean,omitempty"`
	TTFToolCallP50     *float64 `json:"ttf_tool_call_s_p50,omitempty"`
	TTFToolCallP95     *float64 `json:"ttf_tool_call_s_p95,omitempty"`
	TTFToolCallP99     *float64 `json:"ttf_tool_call_s_p99,omitempty"`

	// Where the requests' time went before their first byte, in rows
	// whose requests were traced (BENCH_HTTP_TRACE=1), absent from the
	// others: see addHTTPTrace.
	HTTPTraced         *int     `json:"http_traced,omitempty"`
	HTTPReusedConns    *int     `json:"http_reused_conns,omitempty"`
	DNSSMean           *float64 `json:"dns_s_mean,omitempty"`
	ConnectSMean       *float64 `json:"connect_s_mean,omitempty"`
	TLSSMean           *float64 `json:"tls_s_mean,omitempty"`
	GotConnSMean       *float64 `json:"got_conn_s_mean,omitempty"`
	WroteSMean         *float64 `json:"wrote_s_mean,omitempty"`
	FirstByteSMean     *float64 `json:"first_byte_s_mean,omitempty"`
	ConnectShareOfTTFT *float64 `json:"connect_share_of_ttft,omitempty"`
	// Images and ImageSize are the images every request of the row sent
	// with its prompt (BENCH_IMAGES) and their size, "WxH"; absent
	// without images.
	Images    int    `json:"images,omitempty"`
	ImageSize string `json:"image_size,omitempty"`
	// LeafRuns are the machine's state during each leaf run of the row
	// that has a result line, in the .txt's order (LeafRun); absent where
	// it was not measured, as in files written before it.
	LeafRuns []LeafRun `json:"leaf_runs,omitempty"`
	// The benchmarked server's resident memory (LeafRun): the mean over
	// the leaf runs of what it held at the timed part's end, the most it
	// held in any, in bytes, and whose memory it is (LeafRun.ServerMemory:
	// MemoryRemote, with no figure, for a server on another machine).
	// Absent where not measured, as in files written before them.
	ServerRSSBytes     *uint64 `json:"server_rss_bytes,omitempty"`
	ServerRSSPeakBytes *uint64 `json:"server_rss_peak_bytes,omitempty"`
	ServerMemory       string  `json:"server_memory,omitempty"`
	// Quality are the figures of quality of the row's runtime and prompt
	// (BENCH_QUALITY, quality.go), absent without.
	Quality
}

// TurnFigures are the figures of one turn of a row's conversations, over
// its successful requests (Requests counts them all).
type TurnFigures struct {
	Turn                   int      `json:"turn"`
	Requests               int      `json:"requests"`
	TTFTMean               *float64 `json:"ttft_s_mean"`
	TTFTP50                *float64 `json:"ttft_s_p50"`
	TTFTP95                *float64 `json:"ttft_s_p95"`
	PromptTokensMean       *float64 `json:"prompt_tokens_mean"`
	CachedPromptTokensMean *float64 `json:"cached_prompt_tokens_mean"`
	DecodeTPSMean          *float64 `json:"decode_tps_mean"`
}

// Rows returns one Row per Key in first-seen order. All -count repetitions
// of a Key pool into its row: percentiles are over all their samples.
func (r *Run) Rows() []Row {
	var (
		order  []bench.Key
		byKey  = map[bench.Key][]leaf{}
		leaves = r.snapshot()
	)
	for _, l := range leaves {
		if _, seen := byKey[l.key]; !seen {
			order = append(order, l.key)
		}
		byKey[l.key] = append(byKey[l.key], l)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[bench.Key]cachedRow{}
	}
	// A leaf run's GPU is judged against the whole run's (GPUNorm): a
	// later, faster one can mark an earlier row's, which is computed again.
	norm := gpuNorm(leaves)
	rows := make([]Row, 0, len(order))
	for _, k := range order {
		ls := byKey[k]
		// A row changes only when its key gets a leaf run: the others are
		// kept, so that rewriting the files after every leaf costs the
		// new leaf's figures, not the whole run's again.
		if c, ok := r.rows[k]; ok && c.leaves == len(ls) && c.norm == norm {
			rows = append(rows, c.row)
			continue
		}
		var (
			rounds []stats.Round
			tel    pooledTelemetry
		)
		for _, l := range ls {
			rounds = append(rounds, l.rounds...)
			tel.add(l.tel, l.m)
		}
		// One leaf run's figures are those Add computed: a long leaf's
		// are not computed twice over.
		m := ls[0].m
		if len(ls) > 1 {
			m = stats.Compute(rounds, r.SLO)
		}
		for _, l := range ls {
			if l.notRun != nil {
				m.AddError(l.notRunClass, l.notRun)
			}
		}
		row := newRow(k, m, &tel)
		row.addHTTPTrace(rounds)
		row.Images, row.ImageSize = ImagesOf(r.Arguments.Images)
		row.LeafRuns = leafRuns(ls, norm)
		row.addMemory()
		for _, l := range ls {
			if l.tel.Canary != nil {
				row.Canary = l.tel.Canary
				break
			}
		}
		r.rows[k] = cachedRow{leaves: len(ls), norm: norm, row: row}
		rows = append(rows, row)
	}
	for i := range rows {
		rows[i].Quality = r.quality[qualityKey{rows[i].Runtime, rows[i].Prompt}]
	}
	return rows
}

// cachedRow is a row as Rows last computed it, from so many leaf runs.
type cachedRow struct {
	leaves int
	norm   float64 // the run's busy GPU norm its leaf runs were marked against
	row    Row
}

func newRow(k bench.Key, m stats.Metrics, tel *pooledTelemetry) Row {
	row := Row{
		Runtime: k.Runtime, Model: k.Model, Prompt: k.Prompt, Concurrency: k.Concurrency,
		Requests: m.Requests, Successes: m.Successes, Failures: m.Failures,
		Errors:             m.Errors,
		OutputTokensApprox: m.TokensApprox,
	}
	if row.Errors == nil {
		row.Errors = map[runtimes.Class]stats.ErrorCount{}
	}
	if m.Successes > 0 {
		row.OutputTokensMin, row.OutputTokensMax = &m.MinTokens, &m.MaxTokens
	}
	row.TTFTMean, row.TTFTP50, row.TTFTP95, row.TTFTP99, _ = statPointers(m.TTFT)
	row.TotalMean, row.TotalP50, row.TotalP95, row.TotalP99, _ = statPointers(m.Total)
	row.PromptTPSMean, row.PromptTPSP50, row.PromptTPSP95, _, _ = statPointers(m.Prompt)
	row.DecodeTPSMean, row.DecodeTPSP50, row.DecodeTPSP95, _, _ = statPointers(m.Decode)
	row.RequestTPSMean, row.RequestTPSP50, row.RequestTPSP95, _, _ = statPointers(m.Request)
	row.AggregateTPSMean, row.AggregateTPSP50, row.AggregateTPSP95, _, _ = statPointers(m.Aggregate)
	row.TTFCMean, row.TTFCP50, row.TTFCP95, row.TTFCP99, _ = statPointers(m.TTFC)
	row.TPOTMean, row.TPOTP50, row.TPOTP95, row.TPOTP99, _ = statPointers(m.TPOT)
	row.ITLMean, row.ITLP50, row.ITLP95, row.ITLP99, row.ITLMax = statPointers(m.ITL)
	row.ServerDecodeTPSMean, row.ServerDecodeTPSP50, row.ServerDecodeTPSP95, _, _ = statPointers(m.ServerDecode)
	row.BurstReplies = &m.Bursts
	row.TokensPerChunkMean, _, _, _, _ = statPointers(m.TokensPerChunk)
	row.ReasoningTokensMean, _, _, _, _ = statPointers(m.ReasoningTokens)
	row.PromptTokensMean, _, _, _, _ = statPointers(m.PromptTokens)
	row.CachedPromptTokensMean, _, _, _, _ = statPointers(m.CachedTokens)
	if src := m.CachedSource(); src != "" {
		row.CachedPromptTokensSource = &src
	}
	row.FinishReasons = m.FinishReasons
	if row.FinishReasons == nil {
		row.FinishReasons = map[string]int{}
	}
	row.StopAtCap = m.StopAtCap
	row.ShortOutputs = m.Short.Count
	row.ServedModel = m.ServedModel()
	row.ModelLoads = m.ModelLoads
	if m.InputTokens > 0 {
		row.InputTokensTarget = &m.InputTokens
	}
	row.TruncatedPrompts = m.Truncated
	if l := m.AskedInput; l.Varies() {
		row.InputTokensAskedMean, row.InputTokensAskedMin, row.InputTokensAskedMax = num(float64(l.Sum)/float64(l.N)), &l.Min, &l.Max
	}
	if l := m.AskedMax; l.Varies() {
		row.MaxTokensAskedMean, row.MaxTokensAskedMin, row.MaxTokensAskedMax = num(float64(l.Sum)/float64(l.N)), &l.Min, &l.Max
	}
	row.NotSent = m.NotSent
	if m.CachedOf > 0 {
		row.CacheHitRatio = num(float64(m.Cached) / float64(m.CachedOf))
	}
	for i, t := range m.Turns {
		f := TurnFigures{Turn: i + 1, Requests: t.Requests}
		f.TTFTMean, f.TTFTP50, f.TTFTP95, _, _ = statPointers(t.TTFT)
		f.PromptTokensMean, _, _, _, _ = statPointers(t.PromptTokens)
		f.CachedPromptTokensMean, _, _, _, _ = statPointers(t.CachedTokens)
		f.DecodeTPSMean, _, _, _, _ = statPointers(t.Decode)
		row.Turns = append(row.Turns, f)
	}
	row.addTelemetry(tel)
	if m.Rate > 0 {
		row.RateRPS, row.AchievedRPS, row.ThroughputRPS = num(m.Rate), num(m.Achieved), num(m.Throughput)
		_, row.SendLagSP50, _, row.SendLagSP99, _ = statPointers(m.SendLag)
		row.InflightMax, row.InflightCapped = &m.InflightMax, &m.Capped
	}
	if m.SLOSet {
		row.GoodputRPS, row.SLOAttainment = num(m.Goodput), num(m.Attainment)
	}
	if m.EmbedRPS > 0 {
		row.EmbedRPS, row.EmbedInputTPS = num(m.EmbedRPS), num(m.EmbedInputTPS)
	}
	row.addTools(m.Tools)
	return row
}

// addTools sets the row's tool-call figures, where its requests were
// sent with tools.
func (row *Row) addTools(tc stats.ToolCalls) {
	if !tc.Sent {
		return
	}
	row.ToolCallReplies, row.ToolCalls, row.ToolArgsValid = &tc.Replies, &tc.Calls, &tc.ArgsValid
	if ratio, ok := tc.ReplyRatio(); ok {
		row.ToolCallReplyRatio = num(ratio)
	}
	if ratio, ok := tc.ArgsValidRatio(); ok {
		row.ToolArgsValidRatio = num(ratio)
	}
	row.TTFToolCallMean, row.TTFToolCallP50, row.TTFToolCallP95, row.TTFToolCallP99, _ = statPointers(tc.TTF)
}

func (row *Row) addTelemetry(tel *pooledTelemetry) {
	if tel == nil {
		return
	}
	row.WarmupModelLoads = tel.warmupLoads
	if tel.loads > 0 {
		row.LoadSMean, row.LoadSFrom = num(tel.loadS/float64(tel.loads)), tel.loadFrom
	}
	if f := tel.figures(); f != nil {
		row.PowerWMean, row.GPUPowerWMean, row.SysPowerWMean = num(f.AllPowerWMean), num(f.GPUPowerWMean), f.SysPowerWMean
		row.GPUMHzMean = num(f.GPUMHzMean) // the energy figures: addEnergy
		row.RAMUsedBytesMax, row.SwapUsedBytesMax, row.SwapGrowthBytes = &f.RAMUsedBytesMax, &f.SwapUsedBytesMax, &f.SwapGrowthBytes
		row.CPUTempCMax, row.GPUTempCMax = f.CPUTempCMax, f.GPUTempCMax
		row.PowerSamples = &f.Samples
		row.addEnergy(tel, f)
	}
	if d := tel.server; d != nil {
		row.ServerMetrics = d.Values
		sf := telemetry.DeriveServerFigures(*d, tel.serverRequests)
		row.ServerPrefillSMean, row.ServerDecodeSMean, row.ServerGeneratedTokens = sf.PrefillSMean, sf.DecodeSMean, sf.GeneratedTokens
		if sf.CachedPromptTokens != nil && tel.serverRequests > 0 {
			row.ServerCachedPromptTokensMean = num(*sf.CachedPromptTokens / float64(tel.serverRequests))
		}
	}
}

// statPointers are a Stat's figures for a row: nil without samples, or where
// not finite.
func statPointers(s stats.Stat) (mean, p50, p95, p99, most *float64) {
	if s.N == 0 {
		return nil, nil, nil, nil, nil
	}
	return num(s.Mean), num(s.P50), num(s.P95), num(s.P99), num(s.Max)
}

// num returns &x, or nil if x is not finite (JSON has no NaN).
func num(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}

// LeafRuns returns the figures of every run (-count repetition) of k so
// far, in order.
func (r *Run) LeafRuns(k bench.Key) []stats.Metrics {
	var out []stats.Metrics
	for _, l := range r.snapshot() {
		if l.key == k && l.notRun == nil {
			out = append(out, l.m)
		}
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
