package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// TimeFormat is the layout of created_at and completed_at, the seed's
// "2026-08-31T11:47:27.622260+00:00".
const TimeFormat = "2006-01-02T15:04:05.000000-07:00"

// figureNotes are the measurement_notes of every summary: what each figure means.
var figureNotes = MeasurementNotes{
	TTFT: "Client wall time in seconds from request start until the first chunk carrying non-empty generated text " +
		"(content or reasoning); role-only chunks, usage-only chunks and keep-alives do not count.",
	Total: "Client wall time in seconds from request start until stream completion.",
	DecodeTPS: "Tokens/s. Per request, output tokens / (total - TTFT) on the client's clock, for every runtime. " +
		"Method change: files without burst_replies had the Ollama server eval metric (eval_count / eval_duration) " +
		"here where reported, which is server_decode_tps now, another method never compared with decode_tps. " +
		"Burst replies (8 tokens or more whose TPOT is under a quarter of the row's median TPOT: their tokens " +
		"arrived at once) are counted in burst_replies and left out of decode_tps and tpot.",
	AggregateOutputTPS: "Tokens/s. Sum of successful output tokens / concurrent group wall time, per round " +
		"(one round = concurrency requests sent at once); mean and percentiles over rounds.",
	RequestTPS: "Tokens/s. Output tokens / total, per request.",
	PromptTPS: "Tokens/s. Prompt tokens the server evaluated / its prompt evaluation time: llama.cpp timings " +
		"prompt_n / prompt_ms; Ollama prompt_eval_count / prompt_eval_duration only with BENCH_CACHE=cold (its count " +
		"includes cached tokens, its duration does not); null where the server reports no prompt timing.",
	Percentiles: "p50, p95 and p99 interpolate linearly between closest ranks (numpy default, R type 7): " +
		"sorted x, h = (n-1)p, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). " +
		"Means and percentiles cover successful requests only; failures are counted, not measured. " +
		"All -count repetitions of a row are pooled.",
	OutputTokens: "Output tokens are the server's count (Ollama eval_count, OpenAI usage.completion_tokens); " +
		"where a server gave none, the number of chunks that carried text, and output_tokens_approx is true.",
	TTFC: "Client wall time in seconds from request start until the first chunk carrying answer text " +
		"(OpenAI delta.content or tool_calls, Ollama message.content), reasoning not counted; TTFT for models that do not reason.",
	TPOT: "Seconds per output token after the first: (total - TTFT) / (output tokens - 1), per request; none below 2 tokens. " +
		"1/TPOT is the unbiased decode rate; decode_tps reads n/(n-1) higher.",
	ITL: "Seconds between successive chunks that carried generated text, pooled over a row's successful requests.",
	Turns: "With arguments.turns above 1 every request is a conversation: turn k sends every earlier user message and reply " +
		"(as streamed, reasoning left out) and a follow-up. A row's figures pool all turns; turns[] has each turn's own. " +
		"cache_hit_ratio is cached prompt tokens / prompt tokens over the successful requests whose server reported " +
		"cached tokens (OpenAI usage.prompt_tokens_details.cached_tokens, llama.cpp cache_n); null where none did (Ollama). " +
		"not_sent counts turns never sent because an earlier turn of their conversation failed.",
}

// MeasurementNotes is the measurement_notes object; the first four keys are
// the seed's.
type MeasurementNotes struct {
	TTFT               string `json:"ttft"`
	Total              string `json:"total"`
	DecodeTPS          string `json:"decode_tps"`
	AggregateOutputTPS string `json:"aggregate_output_tps"`
	RequestTPS         string `json:"request_tps"`
	PromptTPS          string `json:"prompt_tps"`
	Percentiles        string `json:"percentiles"`
	OutputTokens       string `json:"output_tokens"`
	TTFC               string `json:"ttfc"`
	TPOT               string `json:"tpot"`
	ITL                string `json:"itl"`
	Turns              string `json:"turns"`
}

// File is the summary JSON, keys in the seed's order. Run.File builds it
// for writing; Read and Decode read any file of this format, the earlier
// harness's included, where keys this suite added are missing (zero or
// nil).
type File struct {
	RunID            string                     `json:"run_id"`
	CreatedAt        string                     `json:"created_at"` // TimeFormat
	Host             Host                       `json:"host"`
	Arguments        Arguments                  `json:"arguments"`
	Runtimes         []RuntimeInfo              `json:"runtimes"`
	Versions         map[string]*string         `json:"versions"`
	ModelMetadata    map[string]json.RawMessage `json:"model_metadata"`
	Prompts          Prompts                    `json:"prompts"`
	MeasurementNotes MeasurementNotes           `json:"measurement_notes"`
	CompletedAt      string                     `json:"completed_at"` // TimeFormat
	Summary          []Row                      `json:"summary"`
	// Complete is false in a file written while the run went on, or left
	// by an interrupted run; nil in the earlier harness's files.
	Complete *bool `json:"complete"`
	// Quality is how the rows' quality figures were measured
	// (BENCH_QUALITY), absent without.
	Quality *QualityRun `json:"quality,omitempty"`
	// Format is the file's format version (Format), written last; 0 in
	// files written before it, which are format 1 (FormatVersion).
	Format int `json:"format,omitempty"`
}

// FormatVersion is the file's format version: its "format", or 1 for a
// file without one (written before the key, or by the earlier harness).
func (f File) FormatVersion() int {
	if f.Format == 0 {
		return 1
	}
	return f.Format
}

// File returns the summary of r as it stands.
func (r *Run) File() File {
	completed := r.CompletedAt
	if completed.IsZero() {
		completed = time.Now()
	}
	complete := r.Complete
	f := File{
		RunID:            r.ID,
		CreatedAt:        r.CreatedAt.UTC().Format(TimeFormat),
		Host:             r.Host,
		Arguments:        r.Arguments,
		Runtimes:         r.Runtimes,
		Versions:         map[string]*string{},
		ModelMetadata:    map[string]json.RawMessage{},
		Prompts:          r.Prompts,
		MeasurementNotes: figureNotes,
		CompletedAt:      completed.UTC().Format(TimeFormat),
		Summary:          r.Rows(),
		Complete:         &complete,
		Quality:          r.QualityRun,
		Format:           Format,
	}
	if f.Runtimes == nil {
		f.Runtimes = []RuntimeInfo{}
	}
	for name, v := range r.Versions {
		f.Versions[name] = v
	}
	for name, raw := range r.ModelMetadata {
		f.ModelMetadata[name] = rawOrString(raw)
	}
	return f
}

// rawOrString keeps raw if it is JSON; other text becomes a JSON string so
// one odd server reply cannot cost the run its summary.
func rawOrString(raw json.RawMessage) json.RawMessage {
	if raw == nil || json.Valid(raw) {
		return raw
	}
	s, _ := marshal(string(raw))
	return s
}

// Encode returns the file's content: f as JSON indented by two spaces,
// with a trailing newline.
func (f File) Encode() ([]byte, error) {
	raw, err := marshal(f)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// MarshalJSON writes a in the seed's key order, lists never null.
func (a Arguments) MarshalJSON() ([]byte, error) {
	type plain Arguments
	p := plain(a)
	if p.Rates == nil {
		p.Rates = []float64{}
	}
	if p.Concurrency == nil {
		p.Concurrency = []int{}
	}
	if p.Prompts == nil {
		p.Prompts = []string{}
	}
	if p.InputTokens == nil {
		p.InputTokens = []int{}
	}
	return marshal(p)
}

// Prompts are written as one object, name -> text, in slice order.
type Prompts []Prompt

func (ps Prompts) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	seen := map[string]bool{}
	for i, p := range ps {
		if seen[p.Name] {
			return nil, fmt.Errorf("prompt %q listed twice", p.Name)
		}
		seen[p.Name] = true
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := marshal(p.Name)
		text, _ := marshal(p.Text)
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(text)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: prompts and server replies
// stay readable ("<", ">" and "&" as they are).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
