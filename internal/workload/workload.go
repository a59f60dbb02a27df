package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/prompts"
)

// Kind is a workload file's format.
type Kind string

const (
	// Conversations is ShareGPT's format: a JSON array of
	// {"id", "conversations": [{"from", "value"}]} (or one such object a
	// line).
	Conversations Kind = "conversations"
	// Trace is Mooncake's format: a JSONL of {"timestamp",
	// "input_length", "output_length", "hash_ids"}.
	Trace Kind = "trace"
	// Messages is the suite's own: a JSONL of {"messages": [{"role",
	// "content"}], "max_tokens"}.
	Messages Kind = "messages"
)

// DefaultSeed seeds the sampling when Options.Seed is 0: the same file and
// N give the same sample in every run and on every machine.
const DefaultSeed uint64 = 0x5eed_3a4c

// DefaultBlockTokens is the tokens of one hash_ids block when
// Options.BlockTokens is 0: Mooncake's traces are made with blocks of 512.
const DefaultBlockTokens = 512

// Options says how to read a workload. The zero value reads every item at
// its recorded times.
type Options struct {
	// N, if above 0, is how many items to take: conversations or
	// message lists drawn at random (reservoir sampling, the file's order
	// kept), or, of a trace, a window of N consecutive requests whose
	// start is drawn at random. A file with N or fewer items is taken
	// whole.
	N int
	// Seed seeds the draws of N; 0 is DefaultSeed.
	Seed uint64
	// Speed scales a trace's time: 2 replays it twice as fast (arrivals
	// at half their recorded offsets). 0 is 1; below 0, NaN or infinite
	// is an error.
	Speed float64
	// BlockTokens is the tokens of one hash_ids block of a trace; 0 is
	// DefaultBlockTokens. A request may list at most
	// ceil(input_length/BlockTokens) blocks.
	BlockTokens int
	// MaxDuration, if above 0, is the longest a trace may take to replay
	// (its last arrival, after Speed): a longer one is an error.
	MaxDuration time.Duration
}

// Workload is a workload file read and sampled.
type Workload struct {
	// Path is the file as given to Read.
	Path string
	// Name is the prompt name it is benchmarked under: the file's name
	// without its extension, every character other than letters, digits,
	// '.', '_' and '-' turned into '_' (prompts.ValidName).
	Name string
	Kind Kind
	// Items are the conversations (Kind Conversations or Messages) in the
	// file's order, after sampling.
	Items []Item
	// Requests are the trace's requests (Kind Trace) in time order,
	// after sampling; Arrival counts from the first of them.
	Requests []TraceRequest
	// Total is how many items (conversations, message lists or requests)
	// the file holds, skipped ones included, before sampling.
	Total int
	// Skipped counts the conversations of a ShareGPT file that cannot be
	// replayed, by reason (see the package doc); they are in Total and
	// in no sample.
	Skipped map[string]int
	// Speed and BlockTokens are the Options' (defaults filled in).
	Speed       float64
	BlockTokens int

	// maxKey is the largest text key of a trace's blocks and tails
	// (TraceText), over the whole file, so that a request's text does not
	// depend on the sample.
	maxKey uint64
	// byLine: Items' Index is a line, not an array index.
	byLine bool
}

// Item is one conversation of a Conversations or Messages workload.
type Item struct {
	// Index is the item's place in the file: its index in a ShareGPT
	// array (from 0, as jq's .[i]), or its line in a JSONL file (from 1).
	Index int
	// ID is a ShareGPT item's "id" (its JSON text if not a string), or
	// empty.
	ID string
	// System is the system prompt (ShareGPT "system" turns or "system"
	// messages before the first user turn, joined by a blank line), or
	// empty.
	System string
	// Turns are the user messages, one a turn: turn 1 is sent first, and
	// turn k > 1 with every earlier turn and the model's own replies
	// before it (runtimes.Runtime.Converse with Turns[1:] as follow-ups).
	// Consecutive user messages are one turn, joined by a blank line.
	Turns []string
	// MaxTokens is a message list's "max_tokens", 0 when it has none (the
	// run's setting applies).
	MaxTokens int
}

// TraceRequest is one request of a Trace workload.
type TraceRequest struct {
	// Line is the request's line in the file, from 1. It also seeds the
	// request's own text (TraceText).
	Line int
	// Timestamp is the recorded "timestamp", in milliseconds.
	Timestamp float64
	// Arrival is when the request is sent, from the first request of the
	// sample, Speed applied.
	Arrival      time.Duration
	InputTokens  int
	OutputTokens int
	// HashIDs are the blocks of BlockTokens tokens its prompt begins
	// with; a hash id names the same text in every request.
	HashIDs []int
}

// Len is the number of items or requests.
func (w *Workload) Len() int {
	if w.Kind == Trace {
		return len(w.Requests)
	}
	return len(w.Items)
}

// Duration is how long a trace takes to replay: its last arrival (0 for
// other kinds).
func (w *Workload) Duration() time.Duration {
	if len(w.Requests) == 0 {
		return 0
	}
	return w.Requests[len(w.Requests)-1].Arrival
}

// SkippedCount is the number of skipped conversations, every reason.
func (w *Workload) SkippedCount() int {
	n := 0
	for _, c := range w.Skipped {
		n += c
	}
	return n
}

// Error is an error in a workload or tools file. Its message names the
// file and, where there is one, the line (from 1) or the JSON array index
// (from 0): "workload trace.jsonl line 17: input_length -3: must be 1 or
// more".
type Error struct {
	What string // "workload" or "tools"
	Path string
	// Line is the line, from 1, 0 if none. Item is the JSON array index,
	// -1 if none; ID is its ShareGPT id, if any.
	Line int
	Item int
	ID   string
	Msg  string
	Err  error // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.What + " " + e.Path)
	noun := "item"
	if e.What == "tools" {
		noun = "tool"
	}
	switch {
	case e.Item >= 0 && e.Line > 0:
		fmt.Fprintf(&b, " %s %d", noun, e.Item)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %q, line %d)", e.ID, e.Line)
		} else {
			fmt.Fprintf(&b, " (line %d)", e.Line)
		}
	case e.Item >= 0:
		fmt.Fprintf(&b, " %s %d", noun, e.Item)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %q)", e.ID)
		}
	case e.Line > 0:
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	return b.String() + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// expected is what a workload file must be, for the error of one that is
// none of them.
const expected = `expected ShareGPT conversations (a JSON array of {"conversations": [{"from", "value"}]}), ` +
	`a trace (JSONL of {"timestamp", "input_length", "output_length", "hash_ids"}) ` +
	`or message lists (JSONL of {"messages": [{"role", "content"}]})`

// Read reads the workload file at path, detects its format by its
// content, checks every item, and samples it as opts says. Its errors name
// the file and the line or item (*Error).
func Read(path string, opts Options) (*Workload, error) {
	w := &Workload{Path: path, Speed: opts.Speed, BlockTokens: opts.BlockTokens}
	fail := func(msg string, args ...any) error {
		return &Error{What: "workload", Path: path, Item: -1, Msg: fmt.Sprintf(msg, args...)}
	}
	switch {
	case opts.N < 0:
		return nil, fail("N %d: must be 0 (every item) or more", opts.N)
	case opts.Speed == 0:
		w.Speed = 1
	case opts.Speed < 0 || math.IsNaN(opts.Speed) || math.IsInf(opts.Speed, 0):
		return nil, fail("speed %v: must be above 0", opts.Speed)
	}
	switch {
	case opts.BlockTokens == 0:
		w.BlockTokens = DefaultBlockTokens
	case opts.BlockTokens < 0:
		return nil, fail("block size %d tokens: must be 1 or more", opts.BlockTokens)
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	name, err := Name(path)
	if err != nil {
		return nil, fail("%v", err)
	}
	w.Name = name

	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{What: "workload", Path: path, Item: -1, Msg: readErr(err), Err: err}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	first, err := firstByte(br)
	switch {
	case errors.Is(err, io.EOF):
		return nil, fail("the file is empty: %s", expected)
	case err != nil:
		return nil, &Error{What: "workload", Path: path, Item: -1, Msg: readErr(err), Err: err}
	}
	switch first {
	case '[':
		err = w.readShareGPT(br, opts)
	case '{':
		err = w.readJSONL(br, opts)
	default:
		return nil, fail("starts with %q, not a JSON array or object: %s", first, expected)
	}
	if err != nil {
		return nil, err
	}
	if w.Len() == 0 {
		if n := w.SkippedCount(); n > 0 {
			return nil, fail("none of its %d conversations can be replayed (%s): the workload is empty", n, w.SkippedSummary())
		}
		return nil, fail("no items: the workload is empty")
	}
	if opts.MaxDuration > 0 && w.Duration() > opts.MaxDuration {
		return nil, fail("its %d requests arrive over %v at speed %g, longer than the %v the run allows: raise the speed or take fewer requests",
			len(w.Requests), w.Duration().Round(time.Millisecond), w.Speed, opts.MaxDuration)
	}
	return w, nil
}

// SkippedSummary lists the skipped conversations by reason, e.g.
// "no human turn: 1, starts with a model turn: 2", or "" if none.
func (w *Workload) SkippedSummary() string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(w.Skipped)) {
		parts = append(parts, fmt.Sprintf("%s: %d", r, w.Skipped[r]))
	}
	return strings.Join(parts, ", ")
}

// readErr words a file's open or read error without repeating its path
// (the Error names it).
func readErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, os.ErrNotExist) {
		return "no such file"
	}
	return err.Error()
}

// firstByte is the first byte of br after white space and a UTF-8 byte
// order mark, left unread; io.EOF if there is none.
func firstByte(br *bufio.Reader) (byte, error) {
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if len(b) < i {
			if err == nil || errors.Is(err, bufio.ErrBufferFull) {
				err = fmt.Errorf("more than %d bytes of white space before any JSON", br.Size())
			}
			return 0, err
		}
		if c := b[i-1]; !isSpace(c) {
			return c, nil
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Name is the prompt name of the workload file at path: its base name
// without the extension, every character but letters, digits, '.', '_'
// and '-' turned into '_' (runs of them into one), so that it can stand
// in a benchmark name as prompt=<name>. A name that would be a built-in
// prompt's or an input length's (InputName) is an error: the rows would
// mix with theirs.
func Name(path string) (string, error) {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	under := false
	for _, r := range base {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		if ok {
			b.WriteRune(r)
			under = r == '_'
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	name := strings.Trim(b.String(), "_.-")
	switch {
	case name == "":
		return "", fmt.Errorf("the file name %q makes no prompt name: give it a name of letters or digits", filepath.Base(path))
	case slices.Contains(prompts.Builtin, name):
		return "", fmt.Errorf("its name %q is a built-in prompt's: rename the file", name)
	}
	if _, ok := ParseInputName(name); ok {
		return "", fmt.Errorf("its name %q is a prompt's of BENCH_INPUT_TOKENS (in<N>, in-normal-…, in-uniform-…): rename the file", name)
	}
	return name, nil
}
