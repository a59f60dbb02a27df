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
	Seed        int      `json:"seed"`
	Timeout     Number   `json:"timeout"` // seconds
	Temperature Number   `json:"temperature"`
	Prompts     []string `json:"prompts"`
	Count       *int     `json:"count"`
	Benchtime   string   `json:"benchtime"`
	IdleTimeout Number   `json:"idle_timeout"` // seconds; 0 is off
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
		cp[i] = Round{Wall: rd.Wall, Results: slices.Clone(rd.Results)}
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
	row.TTFTMean, row.TTFTP50, row.TTFTP95 = figures(m.TTFT)
	row.TotalMean, row.TotalP50, row.TotalP95 = figures(m.Total)
	row.PromptTPSMean, row.PromptTPSP50, row.PromptTPSP95 = figures(m.Prompt)
	row.DecodeTPSMean, row.DecodeTPSP50, row.DecodeTPSP95 = figures(m.Decode)
	row.RequestTPSMean, row.RequestTPSP50, row.RequestTPSP95 = figures(m.Request)
	row.AggregateTPSMean, row.AggregateTPSP50, row.AggregateTPSP95 = figures(m.Aggregate)
	return row
}

func figures(s Stat) (mean, p50, p95 *float64) {
	if s.N == 0 {
		return nil, nil, nil
	}
	return num(s.Mean), num(s.P50), num(s.P95)
}

// num returns &x, or nil if x is not finite (JSON has no NaN).
func num(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}
