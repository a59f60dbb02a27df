package runtimes

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// This file holds what both protocol kinds share: sending the request and
// stamping Start, reading the reply line by line, turning HTTP statuses,
// server error bodies and context expiry into messages, and returning the
// connection to the pool.

const (
	// lineBufSize is the reader's buffer: a stream's text chunks are a few
	// hundred bytes, and a stream holds its buffer while it is open, so at
	// hundreds of streams its size is most of the client's memory. Lines
	// longer than this (llama.cpp's last chunk with its timings can be,
	// Ollama's /api/generate context array is) are gathered in a side
	// buffer that grows as far as they need, so it is not a line limit.
	lineBufSize = 4 << 10
	// maxLineSize bounds one line so a broken server cannot make us grow
	// without end. Ollama's /api/generate final line (the context array)
	// is the biggest legitimate line we know of: a few MiB at most.
	maxLineSize = 64 << 20
	// maxErrorBody is how much of an error reply we read for its message.
	maxErrorBody = 64 << 10
	// errorSnippet is how much of an unrecognised error body is quoted.
	errorSnippet = 512
	// drainLimit and drainTimeout bound reading what follows the end of a
	// stream (the chunked terminator, a trailing blank line) so that the
	// connection goes back to the pool instead of being closed.
	drainLimit   = 256 << 10
	drainTimeout = 500 * time.Millisecond
	// gapsRoom is the most gaps a Result has room for from the start,
	// 4 KiB of them: at hundreds of streams, room for the 65536 tokens a
	// request may ask for would be 256 KiB each, held whether or not they
	// come.
	gapsRoom = 1024
)

// lineReader returns a stream's lines one at a time. It does not allocate
// per line: a line is a slice of the bufio.Reader's buffer, or, for a line
// longer than that buffer, of a side buffer that grows as needed and is
// reused.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	// partial is set when the line just returned was the stream's last and
	// had no newline: the stream was most likely cut in the middle of it.
	partial bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, lineBufSize)}
}

// next returns the next line without its "\n" or "\r\n". The slice is valid
// until the next call. At the end of the stream it returns io.EOF; a last
// line without a newline is returned first (with partial set). Any other
// error is the underlying reader's (a cancelled request, a reset
// connection).
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(lr.long) > maxLineSize {
				return nil, fail(ClassMalformed, fmt.Sprintf("line longer than %d MiB", maxLineSize>>20))
			}
			line, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			lr.partial = true
			return trimEOL(line), nil
		}
		return nil, err
	}
	return trimEOL(line), nil
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// streamReader is readOllama or readOpenAI: it reads a whole reply, stamping
// each line with now() as it arrives, and fills res (TTFT, Total, counts).
// It returns the failure, if any, with res.Total set to its time.
type streamReader func(r io.Reader, start time.Time, now func() time.Time, res *Result) error

// lineParser turns the lines of one protocol's reply into a Result.
type lineParser interface {
	// feed handles one line that arrived at t. It reports whether the
	// line was the reply's last. partial says the stream ended in the
	// middle of the line.
	feed(line []byte, t time.Time, partial bool) (done bool, err error)
	// finish moves what the reply said (counts, the server's timings)
	// into the Result, whatever the outcome.
	finish()
	// missingEnd says what a reply that stops early lacks, for messages.
	missingEnd() string
}

// readStream is the read loop both protocols share: each line is stamped
// with now() as soon as it is read, before it is parsed.
func readStream(r io.Reader, start time.Time, now func() time.Time, res *Result, p lineParser) error {
	lr := newLineReader(r)
	defer p.finish()
	for {
		b, err := lr.next()
		if err != nil {
			res.Total = now().Sub(start)
			if err == io.EOF {
				return fail(ClassTruncated, fmt.Sprintf("stream ended %s (%s)", p.missingEnd(), received(res.Chunks)))
			}
			return err // stream() says "reading the stream"
		}
		t := now()
		done, err := p.feed(b, t, lr.partial)
		if err != nil || done {
			res.Total = t.Sub(start)
			return err
		}
	}
}

// stream sends hreq, stamps Start right before it goes out, checks the
// status and hands the body to read. With l.idle set, an idleWatch
// cancels ctx (through cancel) when the reply's lines stop coming.
//
// A server may close a kept-alive connection after a reply without saying
// so (llama-server closes it after every streamed reply, while its
// headers promise keep-alive): the next request sent on it fails before
// any byte of its reply, having never reached the server. Go's transport
// sends such a request again, on another connection, only if it is
// idempotent; the Idempotency-Key entry with no value marks it so without
// sending the header. A resent request's clock starts again when it gets
// its new connection, so the lost attempt costs nothing in its TTFT. A
// failure after the reply began, or on a fresh connection, is not retried.
func (rt *Runtime) stream(ctx context.Context, cancel context.CancelCauseFunc, l limits, hreq *http.Request, read streamReader, req Request) (res Result) {
	// The gaps between chunks are kept for every request: room for the
	// tokens asked for, up to gapsRoom, so that keeping them costs no
	// allocation per chunk; a longer reply's grow by doubling, a handful
	// of allocations, each after the stamp of the chunk that needs it.
	res = Result{Gaps: make([]float32, 0, min(max(req.MaxTokens, 16), gapsRoom)), keep: req.KeepText}
	defer func() {
		res.pickCached(rt.CachedOrder()) // the server's order of what the reply stated
		if res.keep {
			// The builder's bytes become the string, uncopied; the
			// Result keeps the string alone.
			res.Text = res.text.String()
			res.text = strings.Builder{}
		}
	}()
	attempts := 0
	trace := &httptrace.ClientTrace{GetConn: func(string) {
		// Called on this goroutine, before each attempt gets its
		// connection (dialling one if need be).
		if attempts > 0 {
			res.Start = time.Now()
			res.Resent++
		}
		attempts++
	}}
	hreq = hreq.WithContext(httptrace.WithClientTrace(hreq.Context(), trace))
	hreq.Header["Idempotency-Key"] = nil
	res.Start = time.Now()
	resp, err := rt.client.Do(hreq)
	if err != nil {
		res.Total = time.Since(res.Start)
		res.Err = l.classify(ctx, err, "waiting for the response", res)
		return res
	}
	if resp.StatusCode >= 400 {
		res.Total = time.Since(res.Start)
		res.Err = statusError(resp)
		resp.Body.Close()
		return res
	}
	now := time.Now
	var idle *idleWatch
	if l.idle > 0 {
		idle = &idleWatch{d: l.idle, base: res.Start, cancel: cancel}
		now = idle.now
	}
	err = read(resp.Body, res.Start, now, &res)
	idle.stop() // the stream is over; draining it is not idle time
	if err != nil {
		res.Err = l.classify(ctx, err, "reading the stream", res)
		resp.Body.Close()
		return res
	}
	if res.Chunks == 0 {
		res.Err = noOutput(res)
	}
	drainClose(resp.Body)
	return res
}

// answerText keeps s, a chunk's answer text, when the request asked for it.
func answerText(res *Result, s string) {
	if res.keep {
		res.text.WriteString(s)
	}
}

// textChunk counts a chunk that carried generated text that arrived at t:
// answer text (counts for TTFC), reasoning text, or both.
func textChunk(res *Result, start, t time.Time, answer bool) {
	d := t.Sub(start)
	if res.Chunks == 0 {
		res.TTFT = d
	} else {
		if len(res.Gaps) == cap(res.Gaps) {
			// Doubled, not grown by append's quarter: a reply longer
			// than gapsRoom costs a handful of allocations.
			res.Gaps = slices.Grow(res.Gaps, max(cap(res.Gaps), 16))
		}
		res.Gaps = append(res.Gaps, float32((d - res.last).Seconds()))
	}
	if answer && !res.answered {
		res.TTFC, res.answered = d, true
	}
	res.last = d
	res.Chunks++
}

// idleWatch cancels a request, with errIdleTimeout, when no line of its
// reply arrives for d after the first one. Before the first line only the
// request timeout applies: a server may send its headers at once and its
// first line after a long queue and prefill (vLLM does).
//
// Its now is the reader's clock. It costs one atomic store per line: the
// timer is not reset per line but, when it fires, re-armed for what is
// left of d since the last line.
type idleWatch struct {
	d      time.Duration
	base   time.Time
	cancel context.CancelCauseFunc

	timer   *time.Timer  // set on the first line, by the reader's goroutine
	last    atomic.Int64 // when the last line arrived, as an offset from base
	stopped atomic.Bool
}

func (w *idleWatch) now() time.Time {
	t := time.Now() // the stamp comes first
	w.last.Store(int64(t.Sub(w.base)))
	if w.timer == nil {
		// Set before it can fire: fire uses it.
		w.timer = time.AfterFunc(time.Hour, w.fire)
		w.timer.Stop()
		w.timer.Reset(w.d)
	}
	return t
}

func (w *idleWatch) fire() {
	if w.stopped.Load() {
		return
	}
	quiet := time.Since(w.base) - time.Duration(w.last.Load())
	if quiet < w.d {
		w.timer.Reset(w.d - quiet)
		return
	}
	w.cancel(errIdleTimeout)
}

// stop ends the watch; a nil watch is a no-op.
func (w *idleWatch) stop() {
	if w == nil {
		return
	}
	w.stopped.Store(true)
	if w.timer != nil {
		w.timer.Stop()
	}
}

// drainClose reads what is left of a completed reply, within bounds, and
// closes it, so that the connection is reused: closing a body before its
// end makes the transport drop the connection and the next request re-dial.
func drainClose(body io.ReadCloser) {
	t := time.AfterFunc(drainTimeout, func() { body.Close() })
	_, _ = io.CopyN(io.Discard, body, drainLimit)
	t.Stop()
	body.Close()
}

// The fast path. encoding/json costs a few µs per chunk on a small machine
// (measured: 4-5 µs for an OpenAI chunk, 2.5 µs for an Ollama line), too
// much at hundreds of streams on two cores. Nearly every chunk is a plain
// text delta, though, and for those the only thing to learn is "it has
// text". scanKeys recognises them from the bytes and sends every other
// chunk (role-only, finish, usage, timings, errors, anything odd) to the
// decoder.
//
// It finds the keys of the object (at any depth) by their colons, and
// leans on one JSON fact: inside a string a quote is always escaped, so an
// unescaped quote right before a colon closes a key. Colons inside strings
// (timestamps, text) are preceded by something else or by an escaped quote.
// Keys are matched as servers write them (lowercase, unescaped); the
// decoder would also take "Usage" or "\u0075sage", which no server sends.
// The *FastPath tests and fuzz targets check it against the decoder.

// keyRule is what the fast path requires of a key's value.
type keyRule uint8

const (
	anyValue       keyRule = iota // not looked at
	answerValue                   // a non-empty string here makes the chunk an answer chunk
	reasoningValue                // a non-empty string here makes the chunk a reasoning chunk
	nullValue                     // must be null (finish_reason, usage, timings)
	falseValue                    // must be false (Ollama's done)
	notError                      // must not be the string "error" (vLLM's "object")
	noKey                         // must not occur at all ("error")
	emptyValue                    // must be null or [] (tool_calls)
)

var (
	jsonNull      = []byte("null")
	jsonEmpty     = []byte("[]")
	jsonFalse     = []byte("false")
	jsonErrorWord = []byte(`"error"`)
)

// scanned is what scanKeys found.
type scanned struct {
	answer, reasoning bool // some answerValue / reasoningValue key has a non-empty string
	sawFalse          bool // some falseValue key was seen
}

// scanKeys checks every key of the JSON object b against rule. It reports
// ok if every key's value satisfies its rule, and what it found. ok false
// means "decode it".
func scanKeys(b []byte, rule func(key []byte) keyRule) (found scanned, ok bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return found, false
	}
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			return found, true
		}
		colon := i + j
		i = colon + 1
		q := colon - 1 // the key's closing quote
		for q > 0 && isSpace(b[q]) {
			q--
		}
		if q < 1 || b[q] != '"' || escaped(b, q) {
			continue // a colon inside a string
		}
		open := bytes.LastIndexByte(b[:q], '"')
		if open < 0 {
			continue
		}
		v := skipSpace(b, colon+1)
		nonEmpty := v+1 < len(b) && b[v] == '"' && b[v+1] != '"'
		switch rule(b[open+1 : q]) {
		case answerValue:
			found.answer = found.answer || nonEmpty
		case reasoningValue:
			found.reasoning = found.reasoning || nonEmpty
		case nullValue:
			if !bytes.HasPrefix(b[v:], jsonNull) {
				return found, false
			}
		case falseValue:
			if !bytes.HasPrefix(b[v:], jsonFalse) {
				return found, false
			}
			found.sawFalse = true
		case notError:
			if bytes.HasPrefix(b[v:], jsonErrorWord) {
				return found, false
			}
		case noKey:
			return found, false
		case emptyValue:
			if !bytes.HasPrefix(b[v:], jsonNull) && !bytes.HasPrefix(b[v:], jsonEmpty) {
				return found, false
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// escaped reports whether b[q] is preceded by an odd number of backslashes.
func escaped(b []byte, q int) bool {
	n := 0
	for q--; q >= 0 && b[q] == '\\'; q-- {
		n++
	}
	return n%2 == 1
}
