package runtimes

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"
)

// HTTPTrace is where a request's time went before its reply's first
// byte, stamped by net/http/httptrace (Request.HTTPTrace). The phases of
// opening a connection (DNS, Connect, TLS) are their lengths, zero when
// the request did not go through them (a reused connection, an IP
// address, plain http); the milestones (GotConn, Wrote, FirstByte) are
// times from Result.Start. A request sent again (Result.Resent) keeps its
// last attempt's.
type HTTPTrace struct {
	// DNS, Connect and TLS are the lengths of the name lookup, the TCP
	// connect and the TLS handshake of the connection opened for the
	// request.
	DNS, Connect, TLS time.Duration
	// GotConn is when the request had its connection (opened, or taken
	// from the pool), Wrote when it had written the whole request, and
	// FirstByte when the first byte of the response (its status line)
	// arrived; zero if that never happened.
	GotConn, Wrote, FirstByte time.Duration
	// Reused is set when the connection had served an earlier request.
	Reused bool
}

// Setup is the time spent opening the request's connection: DNS, TCP
// connect and TLS handshake.
func (h HTTPTrace) Setup() time.Duration { return h.DNS + h.Connect + h.TLS }

// httpTracer collects a request's stamps. Its hooks run on the
// transport's goroutines (a dial runs on one of its own), hence the lock.
type httpTracer struct {
	mu                   sync.Mutex
	dnsStart, dnsDone    time.Time
	connStart, connDone  time.Time
	tlsStart, tlsDone    time.Time
	got, wrote, response time.Time
	reused               bool
}

// traceHTTP returns ctx with t's hooks on it.
func (t *httpTracer) traceHTTP(ctx context.Context) context.Context {
	stamp := func(at *time.Time) {
		now := time.Now()
		t.mu.Lock()
		*at = now
		t.mu.Unlock()
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { stamp(&t.dnsStart) },
		DNSDone:  func(httptrace.DNSDoneInfo) { stamp(&t.dnsDone) },
		// A dial may try several addresses: its first start and its
		// last end.
		ConnectStart: func(string, string) {
			now := time.Now()
			t.mu.Lock()
			// A start after a connection was had is a later attempt's.
			if t.connStart.IsZero() || t.got.After(t.connStart) {
				t.connStart = now
			}
			t.mu.Unlock()
		},
		ConnectDone:       func(string, string, error) { stamp(&t.connDone) },
		TLSHandshakeStart: func() { stamp(&t.tlsStart) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { stamp(&t.tlsDone) },
		GotConn: func(info httptrace.GotConnInfo) {
			now := time.Now()
			t.mu.Lock()
			t.got, t.reused = now, info.Reused
			t.mu.Unlock()
		},
		WroteRequest:         func(httptrace.WroteRequestInfo) { stamp(&t.wrote) },
		GotFirstResponseByte: func() { stamp(&t.response) },
	})
}

// result is the stamps as an HTTPTrace of the request that started at
// start: a stamp before start (an earlier attempt's) counts as none.
func (t *httpTracer) result(start time.Time) *HTTPTrace {
	t.mu.Lock()
	defer t.mu.Unlock()
	since := func(at time.Time) time.Duration {
		if at.IsZero() || at.Before(start) {
			return 0
		}
		return at.Sub(start)
	}
	span := func(from, to time.Time) time.Duration {
		if from.IsZero() || to.Before(from) || from.Before(start) {
			return 0
		}
		return to.Sub(from)
	}
	h := &HTTPTrace{GotConn: since(t.got), Wrote: since(t.wrote), FirstByte: since(t.response), Reused: t.reused}
	if !t.reused {
		// A reused connection's request opened none: a dial it started
		// may have gone to the pool for another.
		h.DNS, h.Connect, h.TLS = span(t.dnsStart, t.dnsDone), span(t.connStart, t.connDone), span(t.tlsStart, t.tlsDone)
	}
	return h
}
