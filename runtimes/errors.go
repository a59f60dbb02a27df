package runtimes

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Class is the kind of a failed request. The names are keys of the summary
// JSON (a row's "errors" object) and are never renamed.
type Class string

const (
	// ClassConnect: no connection (refused, no route, unknown host).
	ClassConnect Class = "connect"
	// ClassHTTP4xx and ClassHTTP5xx: the server answered with an HTTP
	// error status; the message has the server's own words.
	ClassHTTP4xx Class = "http_4xx"
	ClassHTTP5xx Class = "http_5xx"
	// ClassReset: the connection broke before the reply ended (reset,
	// closed in the middle of the body or before the headers).
	ClassReset Class = "reset"
	// ClassTruncated: the reply ended cleanly but without its final chunk
	// (Ollama's "done": true, OpenAI's data: [DONE]).
	ClassTruncated Class = "truncated"
	// ClassMalformed: a line that is not valid JSON, or longer than the
	// line limit.
	ClassMalformed Class = "malformed"
	// ClassStreamError: the server sent an error object in the stream.
	ClassStreamError Class = "stream_error"
	// ClassNoOutput: the stream completed without any generated text, so
	// there is no first token to time.
	ClassNoOutput Class = "no_output"
	// ClassTimeout: the request took longer than Config.Timeout.
	ClassTimeout Class = "timeout"
	// ClassIdleTimeout: no new line of the reply arrived for
	// Config.IdleTimeout, once the first had.
	ClassIdleTimeout Class = "idle_timeout"
	// ClassCancelled: the caller's context ended while the request was
	// under way (the benchmark was stopped). Ctrl-C ends the process, so
	// it does not show there.
	ClassCancelled Class = "cancelled"
	// ClassContext: the server refused the request as too long for its
	// context (HTTP 400 with vLLM's "maximum context length", llama.cpp's
	// "exceeds the available context size", or the like); the message
	// has the server's own words.
	ClassContext Class = "context"
	// ClassOther: anything else.
	ClassOther Class = "other"
)

// contextRefusal reports whether a server's error message says the
// request does not fit its context.
func contextRefusal(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"maximum context length", "exceeds the available context size", "context length", "context size", "context window", "too many tokens"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// ErrorClass returns the class of a request's error: "" for nil, and
// ClassOther for an error that did not come from this package.
func ErrorClass(err error) Class {
	if err == nil {
		return ""
	}
	var f *failure
	if errors.As(err, &f) {
		return f.class
	}
	return ClassOther
}

// failure is a classified error. The request's context is never blamed for
// one: classify returns it unchanged.
type failure struct {
	class Class
	msg   string
	err   error // wrapped; may be nil
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// fail returns a failure of class with a message.
func fail(class Class, msg string) error { return &failure{class: class, msg: msg} }

// The causes with which Do's context is cancelled.
var (
	errRequestTimeout = errors.New("request timeout")
	errIdleTimeout    = errors.New("idle timeout")
)

// limits are the request's time limits, for messages.
type limits struct{ timeout, idle time.Duration }

// classify turns err, which happened during (waiting for the response,
// reading the stream), into a failure. A failure already classified is
// returned as it is; one caused by the request's context says "timed out"
// or "cancelled" and keeps the context's error unwrappable; anything else
// is a broken or refused connection.
func (l limits) classify(ctx context.Context, err error, during string, res Result) error {
	var f *failure
	if errors.As(err, &f) {
		return err
	}
	if ctx.Err() == nil {
		return &failure{class: connClass(err), msg: during + ": " + err.Error(), err: err}
	}
	at := res.Total.Round(time.Millisecond).String()
	var class Class
	var msg string
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdleTimeout):
		class = ClassIdleTimeout
		msg = fmt.Sprintf("no new line for %v %s, at %s (idle timeout %v", l.idle, during, at, l.idle)
	case errors.Is(cause, errRequestTimeout), errors.Is(cause, context.DeadlineExceeded):
		class = ClassTimeout
		msg = fmt.Sprintf("timed out after %s %s (request timeout %v", at, during, l.timeout)
		if l.timeout == 0 {
			msg = fmt.Sprintf("timed out after %s %s (a deadline of the caller", at, during)
		}
	default:
		class = ClassCancelled
		msg = fmt.Sprintf("cancelled after %s %s (the benchmark was stopped", at, during)
	}
	if res.Chunks > 0 {
		msg += "; " + received(res.Chunks)
	}
	return &failure{class: class, msg: msg + ")", err: errors.Join(err, ctx.Err())}
}

// connClass is the class of an error from the connection, not caused by
// the request's context: no connection at all (refused, unknown host, a
// TLS handshake that failed), a connection that broke (reset, closed
// before the reply ended), or something else (a reply that is not HTTP).
func connClass(err error) Class {
	var (
		op     *net.OpError
		verify *tls.CertificateVerificationError
		record tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &op) && op.Op == "dial", errors.As(err, &verify), errors.As(err, &record),
		// net/http turns the RecordHeaderError of an https:// URL to a
		// plain HTTP server into a plain error with this text.
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return ClassConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return ClassReset
	}
	return ClassOther
}

// received says how many text chunks arrived, for messages.
func received(n int) string {
	if n == 1 {
		return "1 text chunk received"
	}
	return strconv.Itoa(n) + " text chunks received"
}

// noOutput is the failure of a stream that completed without generated
// text.
func noOutput(res Result) error {
	msg := "stream completed without any generated text"
	if !res.TokensApprox && res.OutputTokens > 0 {
		msg += fmt.Sprintf(" (the server counted %d output tokens: text in a field this client does not read?)", res.OutputTokens)
	} else if res.FinishReason != "" {
		msg += " (finish reason " + strconv.Quote(res.FinishReason) + ")"
	}
	return fail(ClassNoOutput, msg)
}

// statusError reads an HTTP error reply into a message with the status and
// the server's own words.
func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	status := resp.Status
	if status == "" {
		status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	class := ClassHTTP4xx
	if resp.StatusCode >= 500 {
		class = ClassHTTP5xx
	}
	msg := serverMessage(body)
	if msg == "" {
		return fail(class, "HTTP "+status)
	}
	if resp.StatusCode < 500 && contextRefusal(msg) {
		class = ClassContext
	}
	return fail(class, "HTTP "+status+": "+msg)
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
		err := json.Unmarshal(b, &e.msg)
		e.msg = clip(e.msg)
		return err
	case '{':
		var o struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(b, &o) == nil && o.Message != "" {
			e.msg = clip(o.Message)
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
			return clip(eb.Message)
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

// clip is s cut to errorSnippet bytes as valid UTF-8: a server's message,
// however long, takes a bounded place in an error.
func clip(s string) string {
	if len(s) <= errorSnippet && utf8.ValidString(s) {
		return s
	}
	return snippet([]byte(s))
}

// jsonError is a decoder's message, cut short: encoding/json quotes a whole
// number literal, which a broken server can make megabytes long.
func jsonError(err error) string {
	const n = 160
	msg := err.Error()
	if len(msg) > n {
		msg = snippet([]byte(msg[:n])) + "…"
	}
	return msg
}

// quote is a short, printable excerpt of a bad line for a message.
func quote(b []byte) string {
	const n = 120
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// NewError returns an error of class c with message msg, for code that
// fails a request itself, and for tests.
func NewError(c Class, msg string) error { return fail(c, msg) }
