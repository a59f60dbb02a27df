package runtimes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds what both protocol kinds share: sending the request and
// stamping Start, reading the reply line by line, turning HTTP statuses,
// server error bodies and context expiry into messages, and returning the
// connection to the pool.

const (
	// lineBufSize is the reader's buffer. Lines longer than this are
	// gathered in a growing side buffer, so it is not a line limit.
	lineBufSize = 64 << 10
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
				return nil, fmt.Errorf("line longer than %d MiB", maxLineSize>>20)
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

// stream sends hreq, stamps Start right before it goes out, checks the
// status and hands the body to read.
func (rt *Runtime) stream(ctx context.Context, hreq *http.Request, read streamReader) Result {
	client := rt.client
	if client == nil {
		client = http.DefaultClient
	}
	var res Result
	res.Start = time.Now()
	resp, err := client.Do(hreq)
	if err != nil {
		res.Total = time.Since(res.Start)
		res.Err = contextError(ctx, err, "waiting for the response", res)
		return res
	}
	if resp.StatusCode >= 400 {
		res.Total = time.Since(res.Start)
		res.Err = statusError(resp)
		resp.Body.Close()
		return res
	}
	err = read(resp.Body, res.Start, time.Now, &res)
	if err != nil {
		res.Err = contextError(ctx, err, "reading the stream", res)
		resp.Body.Close()
		return res
	}
	drainClose(resp.Body)
	return res
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

// serverError is an error the server reported (in the stream or as an HTTP
// status), as opposed to a transport failure.
type serverError struct{ msg string }

func (e *serverError) Error() string { return e.msg }

// contextError says "timed out" or "cancelled" for a failure caused by the
// request's context, keeping err (and the context's error) unwrappable.
func contextError(ctx context.Context, err error, during string, res Result) error {
	cerr := ctx.Err()
	var se *serverError
	if cerr == nil || errors.As(err, &se) {
		return err
	}
	what := "cancelled"
	if errors.Is(cerr, context.DeadlineExceeded) {
		what = "timed out"
	}
	got := ""
	if res.Chunks > 0 {
		got = fmt.Sprintf(", %d text chunks received", res.Chunks)
	}
	msg := fmt.Sprintf("%s after %s %s%s", what, res.Total.Round(time.Millisecond), during, got)
	if errors.Is(err, cerr) {
		return fmt.Errorf("%s: %w", msg, err)
	}
	return fmt.Errorf("%s: %w (%w)", msg, err, cerr)
}

// statusError reads an HTTP error reply into a message with the status and
// the server's own words.
func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	status := resp.Status
	if status == "" {
		status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	msg := serverMessage(body)
	if msg == "" {
		return &serverError{"HTTP " + status}
	}
	return &serverError{"HTTP " + status + ": " + msg}
}

// apiError is an "error" member in any of the shapes servers use: a string
// (Ollama), an object with a message (OpenAI, vLLM ≥ 0.12, llama.cpp), or
// null/absent (no error).
type apiError struct {
	set bool
	msg string
}

func (e *apiError) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	e.set = true
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &e.msg)
	case '{':
		var o struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(b, &o) == nil && o.Message != "" {
			e.msg = o.Message
			return nil
		}
	}
	e.msg = snippet(b)
	return nil
}

// errorBody is every error document we know: {"error":"…"},
// {"error":{"message":…}}, vLLM's {"object":"error","message":…} and a bare
// {"message":…} (older llama.cpp's in-stream "error: {…}" lines).
type errorBody struct {
	Error   apiError `json:"error"`
	Object  string   `json:"object"`
	Message string   `json:"message"`
}

// serverMessage returns the message in an error document, or the start of
// the body when it is not one we recognise, or "" for an empty body.
func serverMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		if eb.Error.set && eb.Error.msg != "" {
			return eb.Error.msg
		}
		if eb.Message != "" {
			return eb.Message
		}
	}
	return snippet(body)
}

// snippet is the first errorSnippet bytes of b as valid UTF-8.
func snippet(b []byte) string {
	if len(b) > errorSnippet {
		b = b[:errorSnippet]
		// Do not cut a character in two (invalid bytes elsewhere are
		// replaced below).
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	return strings.ToValidUTF8(string(b), "?")
}

// quote is a short, printable excerpt of a bad line for a message.
func quote(b []byte) string {
	const n = 120
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// The fast path. encoding/json costs a few µs per chunk on a small machine
// (4 µs for a vLLM chunk, 2 µs for an Ollama line, measured), too much at
// hundreds of streams on two cores. Nearly every chunk is a plain text
// delta, though, and for those the only thing to learn is "it has text".
// plainText below recognises them from the bytes and lets every other
// chunk (role-only, finish, usage, timings, errors, anything odd) go to the
// decoder. It leans on one JSON fact: inside a string a quote is always
// escaped, so a quoted key followed by a colon can only be that key.

// findKey returns the index of the value of the first "key": at or after
// from (quotedKey includes the quotes), or -1.
func findKey(b, quotedKey []byte, from int) int {
	for from < len(b) {
		i := bytes.Index(b[from:], quotedKey)
		if i < 0 {
			return -1
		}
		j := skipSpace(b, from+i+len(quotedKey))
		if j < len(b) && b[j] == ':' {
			return skipSpace(b, j+1)
		}
		from += i + 1 // the same bytes as a string value, not a key
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// hasText reports whether some "key" has a non-empty string value.
func hasText(b, quotedKey []byte) bool {
	for v := findKey(b, quotedKey, 0); v >= 0; v = findKey(b, quotedKey, v) {
		if v+1 < len(b) && b[v] == '"' && b[v+1] != '"' {
			return true
		}
	}
	return false
}

// allValues reports whether every "key" in b has a value starting with want
// (true when the key does not occur).
func allValues(b, quotedKey, want []byte) bool {
	for v := findKey(b, quotedKey, 0); v >= 0; v = findKey(b, quotedKey, v) {
		if !bytes.HasPrefix(b[v:], want) {
			return false
		}
	}
	return true
}

var (
	jsonNull  = []byte("null")
	jsonFalse = []byte("false")
	keyError  = []byte(`"error"`)
)
