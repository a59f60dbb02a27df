package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// lineReader reads a file a line at a time, counting lines from 1.
type lineReader struct {
	r    *bufio.Reader
	n    int    // the line last returned
	long []byte // a line longer than r's buffer
}

// next is the next line, its '\n' included; valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		b, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.long = append(lr.long, b...)
			continue
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, b...)
			b = lr.long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(b) == 0 {
			return nil, io.EOF
		}
		lr.n++
		return b, nil
	}
}

// readJSONL reads a file of one JSON object a line, whose first object
// says which format it is. Blank lines are skipped (and counted).
func (w *Workload) readJSONL(br *bufio.Reader, opts Options) error {
	lr := &lineReader{r: br}
	w.byLine = true
	fail := func(msg string, args ...any) error {
		return &Error{What: "workload", Path: w.Path, Line: lr.n, Item: -1, Msg: fmt.Sprintf(msg, args...)}
	}
	var line []byte
	var err error
	for {
		if line, err = lr.next(); err != nil {
			return fail("%s", readErr(err)) // firstByte saw a '{': not io.EOF
		}
		if len(bytes.TrimSpace(line)) > 0 {
			break
		}
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		return fail("%s (a JSONL file has one JSON object a line): %s", jsonMsg(err), expected)
	}
	var each func(line []byte) error
	switch {
	case keys["conversations"] != nil:
		w.Kind = Conversations
		each = w.shareGPTLine(lr, newReservoir(opts))
	case keys["messages"] != nil:
		w.Kind = Messages
		each = w.messagesLine(lr, newReservoir(opts))
	case keys["timestamp"] != nil || keys["input_length"] != nil:
		w.Kind = Trace
		each = w.traceLine(lr, opts)
	case len(keys) == 0:
		return fail("an empty object: %s", expected)
	default:
		var names []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			names = append(names, strconv.Quote(k))
		}
		return fail("an object with the keys %s: %s", strings.Join(names, ", "), expected)
	}
	for {
		if len(bytes.TrimSpace(line)) > 0 {
			if err := each(line); err != nil {
				return err
			}
		}
		if line, err = lr.next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fail("%s", readErr(err))
		}
	}
	return each(nil) // the end
}

// shareGPTLine reads ShareGPT conversations one a line; nil ends.
func (w *Workload) shareGPTLine(lr *lineReader, res *reservoir) func([]byte) error {
	return func(line []byte) error {
		if line == nil {
			w.Items = res.sample()
			return nil
		}
		fail := func(id, msg string) error {
			return &Error{What: "workload", Path: w.Path, Line: lr.n, Item: -1, ID: id, Msg: msg}
		}
		var it sgItem
		if err := json.Unmarshal(line, &it); err != nil {
			return fail("", jsonMsg(err))
		}
		if it.Conversations == nil {
			return fail(idText(it.ID), `no "conversations"`)
		}
		w.Total++
		item, skip, msg := it.conversation()
		switch {
		case msg != "":
			return fail(idText(it.ID), msg)
		case skip != "":
			w.skip(skip)
			return nil
		}
		item.Index = lr.n
		res.add(item)
		return nil
	}
}

// message is one of a message list's messages.
type message struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

// messagesLine reads the suite's message lists, one a line; nil ends.
// Unlike the formats of other tools it refuses keys it does not know, so
// that a misspelt "max_tokens" or a setting it would not send is said.
func (w *Workload) messagesLine(lr *lineReader, res *reservoir) func([]byte) error {
	return func(line []byte) error {
		if line == nil {
			w.Items = res.sample()
			return nil
		}
		fail := func(msg string, args ...any) error {
			return &Error{What: "workload", Path: w.Path, Line: lr.n, Item: -1, Msg: fmt.Sprintf(msg, args...)}
		}
		var v struct {
			Messages  *[]message `json:"messages"`
			MaxTokens *int       `json:"max_tokens"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			msg := jsonMsg(err)
			if strings.HasPrefix(msg, "unknown key") {
				msg += ` (a line has "messages" and, if it sets its own, "max_tokens")`
			}
			return fail("%s", msg)
		}
		if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
			return fail("more after the JSON object: a line holds one")
		}
		w.Total++
		if v.Messages == nil {
			return fail(`no "messages"`)
		}
		item := Item{Index: lr.n}
		if v.MaxTokens != nil {
			if *v.MaxTokens < 1 {
				return fail("max_tokens %d: must be 1 or more", *v.MaxTokens)
			}
			item.MaxTokens = *v.MaxTokens
		}
		var err error
		if item.System, item.Turns, err = conversationOf(*v.Messages); err != nil {
			return fail("%s", err)
		}
		res.add(item)
		return nil
	}
}

// conversationOf reads a message list as a conversation: the system
// messages that open it, joined, and its user turns, each the user
// messages between two assistant ones, joined (the assistant's replies
// are the server's to write).
func conversationOf(msgs []message) (system string, turns []string, err error) {
	var systems, pending []string
	started := false
	for i, m := range msgs {
		content := ""
		if m.Content != nil {
			content = *m.Content
		}
		switch m.Role {
		case "system":
			if started {
				return "", nil, fmt.Errorf("messages[%d]: a system message after the first user message (only the first messages may be system messages)", i)
			}
			if m.Content == nil {
				return "", nil, fmt.Errorf("messages[%d]: no content", i)
			}
			systems = append(systems, content)
		case "user":
			if strings.TrimSpace(content) == "" {
				return "", nil, fmt.Errorf("messages[%d]: a user message without content", i)
			}
			pending = append(pending, content)
			started = true
		case "assistant":
			if !started {
				return "", nil, fmt.Errorf("messages[%d]: an assistant message before the first user message", i)
			}
			if len(pending) > 0 {
				turns = append(turns, strings.Join(pending, "\n\n"))
				pending = pending[:0]
			}
		case "":
			return "", nil, fmt.Errorf("messages[%d]: no role", i)
		default:
			return "", nil, fmt.Errorf("messages[%d]: role %q: want system, user or assistant", i, m.Role)
		}
	}
	if len(pending) > 0 {
		turns = append(turns, strings.Join(pending, "\n\n"))
	}
	if len(turns) == 0 {
		return "", nil, errors.New("no user message")
	}
	return strings.Join(systems, "\n\n"), turns, nil
}

// missing marks a field a line did not set.
const missing = math.MinInt

// traceLine reads a trace's requests, one a line; nil ends.
func (w *Workload) traceLine(lr *lineReader, opts Options) func([]byte) error {
	var (
		all     []TraceRequest
		spans   [][2]int // each request's hash ids in arena
		arena   []int
		scratch []int
		maxHash int
	)
	return func(line []byte) error {
		fail := func(msg string, args ...any) error {
			return &Error{What: "workload", Path: w.Path, Line: lr.n, Item: -1, Msg: fmt.Sprintf(msg, args...)}
		}
		if line == nil {
			w.Total = len(all)
			if len(all) == 0 {
				return nil
			}
			for i := range all {
				all[i].HashIDs = arena[spans[i][0]:spans[i][1]:spans[i][1]]
			}
			w.maxKey = max(2*uint64(maxHash), 2*uint64(lr.n)+1)
			reqs, err := w.window(all, opts.N, opts.Seed)
			w.Requests = reqs
			return err
		}
		v := traceFields{math.NaN(), missing, missing, scratch[:0]}
		if !parseTraceFast(line, &v) {
			v = traceFields{math.NaN(), missing, missing, v.HashIDs[:0]}
			if err := json.Unmarshal(line, &v); err != nil {
				return fail("%s", jsonMsg(err))
			}
		}
		scratch = v.HashIDs
		switch {
		case math.IsNaN(v.Timestamp):
			return fail("no timestamp (milliseconds from the trace's start)")
		case v.Timestamp < 0:
			return fail("timestamp %v: must be 0 or more", v.Timestamp)
		case len(all) > 0 && v.Timestamp < all[len(all)-1].Timestamp:
			prev := all[len(all)-1]
			return fail("timestamp %v is before line %d's, %v: a trace's requests must be in time order", v.Timestamp, prev.Line, prev.Timestamp)
		case v.InputLength == missing:
			return fail("no input_length")
		case v.InputLength < 1:
			return fail("input_length %d: must be 1 or more", v.InputLength)
		case v.OutputLength == missing:
			return fail("no output_length")
		case v.OutputLength < 1:
			return fail("output_length %d: must be 1 or more", v.OutputLength)
		}
		most := (v.InputLength + w.BlockTokens - 1) / w.BlockTokens
		if len(v.HashIDs) > most {
			return fail("%d hash_ids of %d tokens are more than input_length %d holds (at most %d): is the trace's block size %d tokens?",
				len(v.HashIDs), w.BlockTokens, v.InputLength, most, w.BlockTokens)
		}
		for i, h := range v.HashIDs {
			if h < 0 {
				return fail("hash_ids[%d] %d: must be 0 or more", i, h)
			}
			maxHash = max(maxHash, h)
		}
		spans = append(spans, [2]int{len(arena), len(arena) + len(v.HashIDs)})
		arena = append(arena, v.HashIDs...)
		all = append(all, TraceRequest{Line: lr.n, Timestamp: v.Timestamp, InputTokens: v.InputLength, OutputTokens: v.OutputLength})
		return nil
	}
}
