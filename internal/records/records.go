package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Record is one request, as a line of <run id>.requests.jsonl: every
// request of the run, warm-ups included, appended as each round ends. Times
// are in seconds; a figure the request does not have is null. No key holds
// a secret: errors are the runtimes package's, which has removed them.
type Record struct {
	Runtime     string `json:"runtime"`
	Model       string `json:"model"`        // asked for
	ServedModel string `json:"served_model"` // named by the reply, "" if none
	Prompt      string `json:"prompt"`
	Concurrency int    `json:"concurrency"`
	// RateRPS is an open-loop leaf's rate, nil for a closed loop.
	RateRPS *float64 `json:"rate_rps"`
	// Count is the -count repetition of the leaf (from 1), Round the
	// round within it (from 1; warm-ups and timed rounds counted apart).
	Count  int  `json:"count"`
	Round  int  `json:"round"`
	Warmup bool `json:"warmup"`
	// Conversation is the request's conversation, an id unique in the run
	// (from 1; a request sent alone is a conversation of its own), and
	// Turn its turn in it (from 1).
	Conversation int `json:"conversation"`
	Turn         int `json:"turn"`
	// Control marks the requests of a control leaf run (BENCH_CONTROL),
	// which are in no row: Count is 0 for them. Calibration marks the
	// requests that sized an in<N> prompt for the runtime, in no figure.
	Control     bool `json:"control"`
	Calibration bool `json:"calibration"`
	// Canary marks a leaf run's canary request (BENCH_CANARY): untimed,
	// at temperature 0, without marker, in no figure but the row's
	// canary.
	Canary bool `json:"canary"`
	// Ramp marks the requests of a leaf run's ramp (BENCH_RAMP), sent
	// after its warm-ups as the load grew to the leaf's: warm-ups too
	// (Warmup is set), in no figure.
	Ramp bool `json:"ramp,omitempty"`
	// InputTokens and MaxTokens are what the request asked for where
	// requests differ (a length distribution, a workload): the prompt
	// tokens its text was sized to (0, absent, where not sized) and its
	// max_tokens; absent where every request of the leaf asked the same.
	InputTokens int `json:"input_tokens,omitempty"`
	MaxTokens   int `json:"max_tokens,omitempty"`
	// StartS is when the request was sent, from the run's start.
	StartS float64  `json:"start_s"`
	TTFTS  *float64 `json:"ttft_s"`
	TTFCS  *float64 `json:"ttfc_s"`
	TotalS float64  `json:"total_s"`
	TPOTS  *float64 `json:"tpot_s"`

	OutputTokens       int  `json:"output_tokens"`
	OutputTokensApprox bool `json:"output_tokens_approx"`
	PromptTokens       *int `json:"prompt_tokens"`
	CachedPromptTokens *int `json:"cached_prompt_tokens"`
	ReasoningTokens    *int `json:"reasoning_tokens"`
	Chunks             int  `json:"chunks"`
	// Resent counts the times the request was sent again because its
	// pooled connection turned out to be closed.
	Resent       int    `json:"resent"`
	FinishReason string `json:"finish_reason"`
	// ToolCalls is how many tool calls the reply made (BENCH_TOOLS),
	// TTFToolCallS the time to the first chunk carrying one, ToolArgsValid
	// how many calls' arguments, once whole, are a JSON object, and
	// ToolNames the functions called, in order; all absent for a reply
	// with no tool call.
	ToolCalls     int      `json:"tool_calls,omitempty"`
	TTFToolCallS  *float64 `json:"ttf_tool_call_s,omitempty"`
	ToolArgsValid *int     `json:"tool_args_valid,omitempty"`
	ToolNames     []string `json:"tool_names,omitempty"`
	// Images is how many images the request sent with its prompt
	// (BENCH_IMAGES) and ImageSize their size, "WxH"; both absent
	// without images.
	Images    int    `json:"images,omitempty"`
	ImageSize string `json:"image_size,omitempty"`
	// Server is what the server said of its own timing, nil where it said
	// nothing.
	Server *ServerTimings `json:"server"`
	// EnergyJ is the request's share of its leaf run's energy above idle,
	// PrefillEnergyJ and DecodeEnergyJ its parts before and after the
	// first token (docs/power.md); null without an idle baseline and
	// enough samples, and for requests not timed.
	EnergyJ        *float64 `json:"energy_j"`
	PrefillEnergyJ *float64 `json:"prefill_energy_j"`
	DecodeEnergyJ  *float64 `json:"decode_energy_j"`

	// HTTP is where the request's time went before its reply's first
	// byte; only with BENCH_HTTP_TRACE=1.
	HTTP *HTTPTimes `json:"http,omitempty"`

	ErrorClass *string `json:"error_class"`
	Error      *string `json:"error"`
	// ChunkS is when each text chunk arrived, from the request's start;
	// only with BENCH_RECORD_CHUNKS=1.
	ChunkS []float64 `json:"chunk_s,omitempty"`
	// Text is the reply's answer text; only with BENCH_RECORD_TEXT=1 (and
	// for canary requests).
	Text *string `json:"text,omitempty"`
}

// Timed reports whether the record is of a timed request, one that
// counts in the figures: not a warm-up, a ramp's, a control, a
// calibration or a canary request.
func (r Record) Timed() bool {
	return !r.Warmup && !r.Ramp && !r.Control && !r.Calibration && !r.Canary
}

// Keep says what records keep beyond their figures: every chunk's
// arrival (BENCH_RECORD_CHUNKS) and the reply's text (BENCH_RECORD_TEXT;
// the request must have been sent with runtimes.Request.KeepText).
type Keep struct {
	Chunks, Text bool
}

// HTTPTimes are a request's runtimes.HTTPTrace in seconds: the lengths
// of the DNS lookup, the TCP connect and the TLS handshake of the
// connection it opened (0 on a reused connection, for an IP address, for
// plain http), when from its start it had its connection, had written
// the request and had the first byte of the response, and whether its
// connection had served an earlier request.
type HTTPTimes struct {
	DNSS       float64 `json:"dns_s"`
	ConnectS   float64 `json:"connect_s"`
	TLSS       float64 `json:"tls_s"`
	GotConnS   float64 `json:"got_conn_s"`
	WroteS     float64 `json:"wrote_s"`
	FirstByteS float64 `json:"first_byte_s"`
	Reused     bool    `json:"reused"`
}

func httpTimes(h *runtimes.HTTPTrace) *HTTPTimes {
	if h == nil {
		return nil
	}
	return &HTTPTimes{
		DNSS: h.DNS.Seconds(), ConnectS: h.Connect.Seconds(), TLSS: h.TLS.Seconds(),
		GotConnS: h.GotConn.Seconds(), WroteS: h.Wrote.Seconds(), FirstByteS: h.FirstByte.Seconds(),
		Reused: h.Reused,
	}
}

// ServerTimings are a server's own account of a request (Ollama's
// durations, llama.cpp's timings).
type ServerTimings struct {
	PromptEvalS      *float64 `json:"prompt_eval_s"`
	PromptEvalTokens *int     `json:"prompt_eval_tokens"`
	EvalS            *float64 `json:"eval_s"`
	LoadS            *float64 `json:"load_s"`
}

// OfRound returns the records of one round's results, as
// Append writes them: k's leaf, repetition count, round i, since the
// run started at runStart, with what keep asks for.
func OfRound(k bench.Key, count, i int, warmup bool, runStart time.Time, results []runtimes.Result, keep Keep) []Record {
	out := make([]Record, len(results))
	for j, res := range results {
		r := Record{
			Runtime: k.Runtime, Model: k.Model, ServedModel: res.ServedModel, Prompt: k.Prompt,
			Concurrency: k.Concurrency, Count: count, Round: i, Warmup: warmup,
			Conversation: res.Conversation, Turn: res.Turn,
			TotalS: res.Total.Seconds(), OutputTokens: res.OutputTokens, OutputTokensApprox: res.TokensApprox,
			Chunks: res.Chunks, Resent: res.Resent, FinishReason: res.FinishReason,
		}
		if k.Rate > 0 {
			rate := k.Rate
			r.RateRPS = &rate
		}
		if !res.Start.IsZero() {
			r.StartS = res.Start.Sub(runStart).Seconds()
		}
		if res.Chunks > 0 {
			r.TTFTS = seconds(res.TTFT)
		}
		if res.TTFC > 0 {
			r.TTFCS = seconds(res.TTFC)
		}
		if res.ToolCalls > 0 {
			r.ToolCalls, r.ToolNames = res.ToolCalls, res.ToolNames
			r.TTFToolCallS = seconds(res.TTFToolCall)
			valid := res.ToolArgsValid
			r.ToolArgsValid = &valid
		}
		if tpot, ok := stats.TPOT(res); ok {
			r.TPOTS = &tpot
		}
		if res.PromptTokens > 0 {
			r.PromptTokens = &res.PromptTokens
		}
		if res.CachedReported {
			r.CachedPromptTokens = &res.CachedTokens
		}
		if res.ReasoningReported {
			r.ReasoningTokens = &res.ReasoningTokens
		}
		if st := serverTimings(res); st != (ServerTimings{}) {
			r.Server = &st
		}
		r.HTTP = httpTimes(res.HTTP)
		if res.Err != nil {
			class, msg := string(runtimes.ErrorClass(res.Err)), res.Err.Error()
			r.ErrorClass, r.Error = &class, &msg
		}
		if keep.Text {
			text := res.Text
			r.Text = &text
		}
		if keep.Chunks && res.Chunks > 0 {
			r.ChunkS = make([]float64, 0, res.Chunks)
			t := res.TTFT.Seconds()
			r.ChunkS = append(r.ChunkS, t)
			for _, g := range res.Gaps {
				t += float64(g)
				r.ChunkS = append(r.ChunkS, t)
			}
		}
		out[j] = r
	}
	return out
}

// SetAsked sets each record's InputTokens and MaxTokens from asked,
// parallel to recs (Round.Asked); nil leaves them absent.
func SetAsked(recs []Record, asked []stats.Asked) {
	for j := range recs {
		if j < len(asked) {
			recs[j].InputTokens, recs[j].MaxTokens = asked[j].InputTokens, asked[j].MaxTokens
		}
	}
}

func serverTimings(res runtimes.Result) ServerTimings {
	var st ServerTimings
	if res.PromptEval > 0 {
		st.PromptEvalS = seconds(res.PromptEval)
	}
	if res.PromptEvalTokens > 0 {
		n := res.PromptEvalTokens
		st.PromptEvalTokens = &n
	}
	if res.Eval > 0 {
		st.EvalS = seconds(res.Eval)
	}
	if res.LoadDuration > 0 {
		st.LoadS = seconds(res.LoadDuration)
	}
	return st
}

func seconds(d time.Duration) *float64 {
	s := d.Seconds()
	return &s
}

// Append appends recs to b as JSON lines.
func Append(b []byte, recs []Record) ([]byte, error) {
	for _, r := range recs {
		line, err := marshal(r)
		if err != nil {
			return b, err
		}
		b = append(append(b, line...), '\n')
	}
	return b, nil
}

// Read reads a .requests.jsonl file. A last line cut short (the
// run was killed while writing it) is left out; any other bad line is an
// error naming its number.
func Read(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := decode(f, nil)
	if err != nil {
		return recs, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// decode reads request records, one JSON object a line, as Read does,
// of the lines that keep accepts (every line if keep is nil).
func decode(r io.Reader, keep func(line []byte) bool) ([]Record, error) {
	br := bufio.NewReader(r)
	var recs []Record
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && (keep == nil || keep(line)) {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				if err == io.EOF {
					return recs, nil // the last line, cut short
				}
				return recs, fmt.Errorf("line %d: %v", n, jerr)
			}
			recs = append(recs, rec)
		}
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
	}
}

// ReadCanaryTexts reads the whole text of each canary reply in a
// .requests.jsonl file (a canary record with its text and no error), by
// the SHA-256 a row's Canary has: a row keeps only the first canary.TextMax
// characters. Only the lines that may be canaries are decoded, so that a
// night's thousands of records cost little; a bad one is an error naming
// the file and line. A run without records (no file at path) has none:
// nil, and no error.
func ReadCanaryTexts(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := decode(f, mayBeCanary)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var texts map[string]string
	for _, rec := range recs {
		if !rec.Canary || rec.Text == nil || rec.Error != nil {
			continue
		}
		if texts == nil {
			texts = map[string]string{}
		}
		texts[canary.New(*rec.Text, rec.OutputTokens).TextSHA256] = *rec.Text
	}
	return texts, nil
}

// canaryKey is the canary key as a record's line has it. A quote inside
// a string is escaped (\"), so these bytes are the key, but in a text
// with a backslash before a quote: a line then decoded for nothing.
var canaryKey = []byte(`"canary"`)

// mayBeCanary reports whether a record's line may be a canary's: its
// "canary" key followed by true (spaces allowed around the colon).
func mayBeCanary(line []byte) bool {
	for {
		i := bytes.Index(line, canaryKey)
		if i < 0 {
			return false
		}
		rest := bytes.TrimLeft(line[i+len(canaryKey):], " \t")
		if v, ok := bytes.CutPrefix(rest, []byte(":")); ok && bytes.HasPrefix(bytes.TrimLeft(v, " \t"), []byte("true")) {
			return true
		}
		line = line[i+len(canaryKey):]
	}
}

// marshal is json.Marshal without HTML escaping: a reply's text keeps its
// <, > and & as they are.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// SetEnergy sets the request records of a leaf run's timed rounds to
// their shares of its net energy: recs[i] are round i's records, in the
// order of its results, as e.Shares. Records without a share are left
// with none (null).
func SetEnergy(recs [][]Record, e *stats.Energy) {
	if e == nil {
		return
	}
	for i := range recs {
		if i >= len(e.Shares) {
			return
		}
		for j := range recs[i] {
			if j >= len(e.Shares[i]) || e.Shares[i][j] == nil {
				continue
			}
			s := e.Shares[i][j]
			total, pre, dec := s.J(), s.PrefillJ, s.DecodeJ
			recs[i][j].EnergyJ, recs[i][j].PrefillEnergyJ, recs[i][j].DecodeEnergyJ = &total, &pre, &dec
		}
	}
}
