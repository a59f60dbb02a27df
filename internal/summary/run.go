package summary

import (
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/inferencebench/inferencebench/runtimes"
)

// RunIDFormat is the time layout of Run.ID, in UTC.
const RunIDFormat = "20060102T150405Z"

// Key identifies a leaf benchmark: one runtime serving one model, one prompt
// and one concurrency level.
type Key struct {
	Runtime, Model, Prompt string
	Concurrency            int
}

// Levels is the leaf's name under BenchmarkInference, one key=value per
// level: runtime=<runtime>/prompt=<prompt>/conc=<n>. BenchmarkInference
// names its sub-benchmarks with it, and the .txt names its results by it.
func (k Key) Levels() string {
	return "runtime=" + Safe(k.Runtime) + "/prompt=" + Safe(k.Prompt) + "/conc=" + strconv.Itoa(k.Concurrency)
}

// Name is the leaf's benchmark name without the "Benchmark" prefix and the
// GOMAXPROCS suffix, as go test prints it: Inference/<Levels>.
func (k Key) Name() string { return "Inference/" + k.Levels() }

// Safe makes s usable as one level of a benchmark name: spaces become '_'
// and unprintable runes are escaped, as go test does, and '/' becomes '_'
// so s stays one level that benchstat can address (-col /runtime).
func Safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '/' || unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

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
}

// Arguments are the settings of a run, written under "arguments" in this
// order; nil pointers are written as null.
type Arguments struct {
	OutputDir   string   `json:"output_dir"`
	Runtime     string   `json:"runtime"`
	OllamaURL   *string  `json:"ollama_url"`
	OllamaModel *string  `json:"ollama_model"`
	VLLMURL     *string  `json:"vllm_url"`
	VLLMModel   *string  `json:"vllm_model"`
	Warmups     int      `json:"warmups"`
	Rounds      *int     `json:"rounds"` // nil when -benchtime decides
	Concurrency []int    `json:"concurrency"`
	MaxTokens   int      `json:"max_tokens"`
	Seed        *int     `json:"seed"`    // nil: none sent
	Timeout     Number   `json:"timeout"` // seconds
	Temperature Number   `json:"temperature"`
	Prompts     []string `json:"prompts"`
	Count       *int     `json:"count"`
	Benchtime   string   `json:"benchtime"`
	IdleTimeout Number   `json:"idle_timeout"` // seconds; 0 is off
	// Cache is BENCH_CACHE: "cold" or "warm"; "" in files written before
	// it existed, which were warm.
	Cache     string `json:"cache"`
	IgnoreEOS bool   `json:"ignore_eos"`
	KeepAlive string `json:"keep_alive"` // sent with Ollama requests
}

// CacheMode is the file's BENCH_CACHE, "warm" for files written before it
// existed (every request sent the same prompt).
func (a Arguments) CacheMode() string {
	if a.Cache == "" {
		return "warm"
	}
	return a.Cache
}

// Number is a float64 written as null when it is not finite: JSON has no
// NaN or Inf.
type Number float64

func (n Number) MarshalJSON() ([]byte, error) {
	if !finite(float64(n)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// RuntimeInfo is one runtime of the run.
type RuntimeInfo struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
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

	mu     sync.Mutex
	leaves []leaf
}

// leaf is one Add call: one -count repetition of one leaf benchmark.
type leaf struct {
	key    Key
	rounds []Round
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

// Add records one leaf run (one -count repetition of k). It keeps a copy of
// rounds and the current GOMAXPROCS, which go test puts in the name.
func (r *Run) Add(k Key, rounds []Round) {
	cp := make([]Round, len(rounds))
	for i, rd := range rounds {
		rd.Results = slices.Clone(rd.Results)
		cp[i] = rd
	}
	l := leaf{key: k, rounds: cp, procs: runtime.GOMAXPROCS(0)}
	r.mu.Lock()
	r.leaves = append(r.leaves, l)
	r.mu.Unlock()
}

// AddNotRun records one leaf run of k that sent no request because its
// runtime could not be benchmarked (the driver's classes unreachable and
// unavailable): its row has no figures, and errors[class] counts such
// leaf runs, with err's message.
func (r *Run) AddNotRun(k Key, class runtimes.Class, err error) {
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
	var all []Round
	for _, l := range r.snapshot() {
		all = append(all, l.rounds...)
	}
	m := Compute(all)
	return m.Requests, m.Failures, m.ErrorCounts()
}

// Failed returns the keys of the leaf runs in which every request failed,
// one per such run, in order.
func (r *Run) Failed() []Key {
	var keys []Key
	for _, l := range r.snapshot() {
		if m := Compute(l.rounds); m.Requests > 0 && m.Successes == 0 {
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
	Errors map[runtimes.Class]ErrorCount `json:"errors"`

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

	TokensPerChunkMean  *float64 `json:"tokens_per_chunk_mean"`
	ReasoningTokensMean *float64 `json:"reasoning_tokens_mean"`

	// What the requests asked and the server did with it: the prompt's
	// tokens and how many came from the server's cache, why the replies
	// ended, how many ended before the length asked for, and the model
	// the replies named.
	PromptTokensMean       *float64       `json:"prompt_tokens_mean"`
	CachedPromptTokensMean *float64       `json:"cached_prompt_tokens_mean"`
	FinishReasons          map[string]int `json:"finish_reasons"`
	ShortOutputs           int            `json:"short_outputs"`
	ServedModel            string         `json:"served_model"`
}

// Rows returns one Row per Key in first-seen order. All -count repetitions
// of a Key pool into its row: percentiles are over all their samples.
func (r *Run) Rows() []Row {
	var (
		order  []Key
		pooled = map[Key][]Round{}
		notRun = map[Key][]leaf{}
	)
	for _, l := range r.snapshot() {
		if _, seen := pooled[l.key]; !seen {
			order = append(order, l.key)
		}
		pooled[l.key] = append(pooled[l.key], l.rounds...)
		if l.notRun != nil {
			notRun[l.key] = append(notRun[l.key], l)
		}
	}
	rows := make([]Row, 0, len(order))
	for _, k := range order {
		m := Compute(pooled[k])
		for _, l := range notRun[k] {
			m.addError(l.notRunClass, l.notRun)
		}
		rows = append(rows, newRow(k, m))
	}
	return rows
}

func newRow(k Key, m Metrics) Row {
	row := Row{
		Runtime: k.Runtime, Model: k.Model, Prompt: k.Prompt, Concurrency: k.Concurrency,
		Requests: m.Requests, Successes: m.Successes, Failures: m.Failures,
		Errors:             m.Errors,
		OutputTokensApprox: m.TokensApprox,
	}
	if row.Errors == nil {
		row.Errors = map[runtimes.Class]ErrorCount{}
	}
	if m.Successes > 0 {
		row.OutputTokensMin, row.OutputTokensMax = &m.MinTokens, &m.MaxTokens
	}
	row.TTFTMean, row.TTFTP50, row.TTFTP95, row.TTFTP99, _ = figures(m.TTFT)
	row.TotalMean, row.TotalP50, row.TotalP95, row.TotalP99, _ = figures(m.Total)
	row.PromptTPSMean, row.PromptTPSP50, row.PromptTPSP95, _, _ = figures(m.Prompt)
	row.DecodeTPSMean, row.DecodeTPSP50, row.DecodeTPSP95, _, _ = figures(m.Decode)
	row.RequestTPSMean, row.RequestTPSP50, row.RequestTPSP95, _, _ = figures(m.Request)
	row.AggregateTPSMean, row.AggregateTPSP50, row.AggregateTPSP95, _, _ = figures(m.Aggregate)
	row.TTFCMean, row.TTFCP50, row.TTFCP95, row.TTFCP99, _ = figures(m.TTFC)
	row.TPOTMean, row.TPOTP50, row.TPOTP95, row.TPOTP99, _ = figures(m.TPOT)
	row.ITLMean, row.ITLP50, row.ITLP95, row.ITLP99, row.ITLMax = figures(m.ITL)
	row.TokensPerChunkMean, _, _, _, _ = figures(m.TokensPerChunk)
	row.ReasoningTokensMean, _, _, _, _ = figures(m.ReasoningTokens)
	row.PromptTokensMean, _, _, _, _ = figures(m.PromptTokens)
	row.CachedPromptTokensMean, _, _, _, _ = figures(m.CachedTokens)
	row.FinishReasons = m.FinishReasons
	if row.FinishReasons == nil {
		row.FinishReasons = map[string]int{}
	}
	row.ShortOutputs = m.Short.Count
	row.ServedModel = m.ServedModel()
	return row
}

// figures are a Stat's figures for a row: nil without samples, or where
// not finite.
func figures(s Stat) (mean, p50, p95, p99, most *float64) {
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
