package sim

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is a way for the simulator to misbehave, for testing clients. See
// the package documentation for what each mode writes.
type Fault string

const (
	// FaultNone: no fault, every response as usual.
	FaultNone Fault = ""
	// FaultReset: after half the tokens the connection is reset (TCP RST).
	FaultReset Fault = "reset"
	// FaultTruncate: after half the tokens the HTTP response ends cleanly
	// with no final chunk (no done:true line; no finish, usage or [DONE]).
	FaultTruncate Fault = "truncate"
	// FaultMalformed: after half the tokens one line of broken JSON (a
	// chunk cut in the middle), then the rest of the stream as usual.
	FaultMalformed Fault = "malformed"
	// FaultError: after half the tokens an in-stream error in the
	// protocol's own shape, then the end.
	FaultError Fault = "error"
	// FaultObjectError: as FaultError, but OpenAI's error is older vLLM's
	// {"object":"error",…}. The Ollama protocol has one shape: FaultError's.
	FaultObjectError Fault = "object-error"
	// FaultStall: after half the tokens nothing more is written; the
	// connection stays open until the client goes away or the server
	// closes.
	FaultStall Fault = "stall"
	// FaultEmpty: no generated text at all, on schedule otherwise.
	FaultEmpty Fault = "empty"
	// FaultBigLine: the token at index half is one chunk whose text is
	// 1 MiB + 1 bytes of 'x'; everything else as usual.
	FaultBigLine Fault = "big-line"
	// FaultKeepAlive: keep-alive lines, one right after the headers and
	// one before every token chunk; everything else as usual.
	FaultKeepAlive Fault = "keepalive"
	// FaultBurst: nothing until the last token is due, then every token
	// chunk at once, and the final chunk on schedule: a stream held back
	// and let go, whose tokens all reach the client together (Ollama's
	// eval_duration still says the scheduled decode time).
	FaultBurst Fault = "burst"
)

// Besides the modes above a Fault can be "http-NNN", NNN an HTTP status
// from 400 to 599: the chat request is answered at once with that status
// and the protocol's error body.
const (
	httpFaultPrefix = "http-"
	minFaultStatus  = 400
	maxFaultStatus  = 599
)

// faults lists the named modes, in the order error messages list them.
var faults = []Fault{FaultReset, FaultTruncate, FaultMalformed, FaultError, FaultObjectError,
	FaultStall, FaultEmpty, FaultBigLine, FaultKeepAlive, FaultBurst}

// check reports whether f is a fault the server knows.
func (f Fault) check() error {
	if f == FaultNone {
		return nil
	}
	for _, g := range faults {
		if f == g {
			return nil
		}
	}
	rest, ok := strings.CutPrefix(string(f), httpFaultPrefix)
	if !ok {
		names := make([]string, 0, len(faults)+1)
		for _, g := range faults {
			names = append(names, string(g))
		}
		names = append(names, fmt.Sprintf("http-NNN (%d-%d)", minFaultStatus, maxFaultStatus))
		return fmt.Errorf("SIM_FAULT=%q: unknown fault; one of %s", f, strings.Join(names, ", "))
	}
	code, err := strconv.Atoi(rest)
	if err != nil || strconv.Itoa(code) != rest {
		return fmt.Errorf("SIM_FAULT=%q: %q is not an HTTP status (want http-NNN, NNN from %d to %d)", f, rest, minFaultStatus, maxFaultStatus)
	}
	if code < minFaultStatus || code > maxFaultStatus {
		return fmt.Errorf("SIM_FAULT=%q: HTTP status %d out of range (want http-NNN, NNN from %d to %d)", f, code, minFaultStatus, maxFaultStatus)
	}
	return nil
}

// httpStatus is the status of an http-NNN fault; 0 for any other.
func (f Fault) httpStatus() int {
	rest, ok := strings.CutPrefix(string(f), httpFaultPrefix)
	if !ok {
		return 0
	}
	code, err := strconv.Atoi(rest)
	if err != nil || code < minFaultStatus || code > maxFaultStatus {
		return 0
	}
	return code
}

// half is k, the number of tokens sent before a fault: n/2, at least 1.
func half(n int) int { return max(n/2, 1) }

// faultFor counts a chat request and returns the fault it gets: the
// configured one for every FaultEvery-th, FaultNone for the others. The
// count is kept only when a fault is configured.
func (s *Server) faultFor() Fault {
	if s.cfg.Fault == FaultNone {
		return FaultNone
	}
	if s.chats.Add(1)%int64(s.cfg.every()) != 0 {
		return FaultNone
	}
	return s.cfg.Fault
}

// faultMessage is the text of an in-stream error.
func faultMessage(f Fault, k, n int) string {
	return fmt.Sprintf("simulated fault: %s after %d of %d tokens", f, k, n)
}

// httpFault answers a chat request with the status of an http-NNN fault and
// the protocol's error body.
func httpFault(w http.ResponseWriter, r *http.Request, code int, openai bool) {
	// Read the request (it is small) so that the connection can be reused.
	io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, maxBody))
	msg := fmt.Sprintf("simulated fault: HTTP %d", code)
	var body []byte
	if openai {
		body = mustJSON(map[string]any{
			"object": "error", "message": msg, "type": errorType(code), "param": nil, "code": code,
		})
	} else {
		body = mustJSON(map[string]string{"error": msg})
	}
	writeJSON(w, code, body)
}

// errorType is vLLM's error type for an HTTP status, e.g.
// "ServiceUnavailableError" for 503.
func errorType(code int) string {
	t := strings.ReplaceAll(http.StatusText(code), " ", "")
	t = strings.ReplaceAll(t, "-", "")
	switch {
	case t == "" && code < 500:
		return "ClientError"
	case t == "":
		return "ServerError"
	case strings.HasSuffix(t, "Error"):
		return t
	}
	return t + "Error"
}

// resetConn resets the request's connection: it takes it over from
// net/http and closes it with a zero linger time, so that the kernel sends
// a TCP RST instead of a FIN. Whatever was written before was flushed.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (never so for this server): dropping the
		// connection is the nearest thing.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// stall holds a stream until the client goes away or the server closes: it
// parks on the context, no polling.
func stall(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// serve writes one streamed response after its headers (and, for OpenAI,
// the role chunk): the tokens and the final chunk(s) on the schedule,
// changed by fault f.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, rep *reply, enc encoder, f Fault) {
	ctx := r.Context()
	n := rep.m
	var err error
	switch f {
	case FaultNone:
		err = s.stream(ctx, w, rc, rep, n, true, enc)
	case FaultMalformed:
		rep.split = half(n) // the broken line comes before a chunk
		err = s.stream(ctx, w, rc, rep, n, true, &faultEncoder{encoder: enc, f: f, rep: rep, at: half(n)})
	case FaultBigLine:
		err = s.stream(ctx, w, rc, rep, n, true, &faultEncoder{encoder: enc, f: f, rep: rep, at: min(half(n), n-1)})
	case FaultKeepAlive:
		err = s.stream(ctx, w, rc, rep, n, true, &faultEncoder{encoder: enc, f: f, rep: rep})
	case FaultBurst:
		// Held until the last token is due: the chunks, all overdue
		// then, go out together, the final one on schedule.
		if err = s.clock.sleepUntil(ctx, newSleeper(), rep.pace.due(max(n-1, 0))); err == nil {
			err = s.stream(ctx, w, rc, rep, n, true, enc)
		}
	case FaultEmpty:
		due := rep.pace.due(n)
		if err = s.clock.sleepUntil(ctx, newSleeper(), due); err == nil {
			err = s.write(w, rc, rep, n, enc.empty(nil, time.Now()))
			rep.endDue = due
			rep.ended, rep.end = err == nil, time.Now()
		}
	default: // the faults that cut the stream after k tokens
		k := half(n)
		if err = s.stream(ctx, w, rc, rep, k, false, enc); err == nil {
			// The fault comes when token k would have.
			err = s.clock.sleepUntil(ctx, newSleeper(), rep.pace.due(k))
		}
		if err != nil {
			break
		}
		if f != FaultStall {
			rep.endDue = rep.pace.due(k)
		}
		switch f {
		case FaultReset:
			resetConn(w)
		case FaultTruncate:
			// Returning ends the chunked body properly.
		case FaultError, FaultObjectError:
			err = s.write(w, rc, rep, k, enc.failure(nil, f, faultMessage(f, k, n)))
		case FaultStall:
			err = stall(ctx)
		}
	}
	if err != nil {
		s.abort()
	}
}

// write writes and flushes b, whose last chunk is last (rep.m for the
// final one).
func (s *Server) write(w io.Writer, rc *http.ResponseController, rep *reply, last int, b []byte) error {
	began := time.Now()
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	if rep.trace != nil {
		rep.trace(rep.t0, last, began, time.Now())
	}
	return nil
}

// faultEncoder changes some chunks of a stream that otherwise goes as
// usual.
type faultEncoder struct {
	encoder
	f   Fault // FaultMalformed, FaultBigLine or FaultKeepAlive
	rep *reply
	at  int // the token the fault touches, of 0..m (m: the final chunk)
	q   []byte
}

func (e *faultEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	switch e.f {
	case FaultKeepAlive:
		b = e.keepAlive(b)
	case FaultMalformed:
		if a == e.at {
			b = e.broken(b, now)
		}
	case FaultBigLine:
		if a <= e.at && e.at < end {
			e.q = appendTokens(e.q[:0], e.rep, a, end, e.at)
			return e.text(b, e.q, a < e.rep.think, now)
		}
	}
	return e.encoder.chunk(b, a, end, now)
}

func (e *faultEncoder) final(b []byte, now time.Time) []byte {
	if e.f == FaultMalformed && e.at == e.rep.m {
		b = e.broken(b, now)
	}
	return e.encoder.final(b, now)
}

// bigTextLen is the length of the FaultBigLine token: one line longer than
// 1 MiB whatever the protocol's framing.
const bigTextLen = 1<<20 + 1

// bigText is the FaultBigLine token's text, made once, when first needed.
var bigText = sync.OnceValue(func() []byte { return []byte(strings.Repeat("x", bigTextLen)) })

// brokenText opens the broken line of FaultMalformed, which ends right
// after it, in the middle of a JSON string.
const brokenText = `"simulated fault: malformed chunk, cut here`
