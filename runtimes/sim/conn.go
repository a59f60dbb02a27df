package sim

import (
	"context"
	"net"
	"net/http"
	"time"
)

// closeDelay is how long after a streamed reply has been written
// (net/http's StateIdle) the server closes its connection with
// Config.CloseAfterStream: long enough for a client that took the
// connection back into its pool to send its next request on it, as it
// does on llama-server.
const closeDelay = time.Millisecond

// keepAliveHeader is what llama-server's responses say while it closes the
// connection after every streamed reply.
const keepAliveHeader = "timeout=5, max=100"

type connKey struct{}

// withConn puts a request's connection in its context.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// closeAfterReply marks r's connection to be closed once the response has
// been written (Config.CloseAfterStream).
func (s *Server) closeAfterReply(r *http.Request) {
	if !s.cfg.CloseAfterStream {
		return
	}
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return
	}
	s.doomMu.Lock()
	if _, ok := s.doomed[c]; !ok {
		s.doomed[c] = nil
	}
	s.doomMu.Unlock()
}

// onDoomed runs the connection states of a connection marked by
// closeAfterReply: idle (its reply written), it is closed closeDelay later;
// active again (a request arrived before that), it is closed at once, or
// Config.LostAttempt later by track, and the request is not served (see
// isDoomed); closed, it is forgotten.
func (s *Server) onDoomed(c net.Conn, st http.ConnState) {
	s.doomMu.Lock()
	defer s.doomMu.Unlock()
	t, ok := s.doomed[c]
	if !ok {
		return
	}
	switch st {
	case http.StateIdle:
		if t == nil {
			s.doomed[c] = time.AfterFunc(closeDelay, func() { c.Close() })
		}
	case http.StateActive:
		if s.cfg.LostAttempt > 0 {
			// track holds the request for LostAttempt before it aborts.
			if t != nil {
				t.Stop()
			}
			return
		}
		c.Close()
	case http.StateClosed, http.StateHijacked:
		if t != nil {
			t.Stop()
		}
		delete(s.doomed, c)
	}
}

// isDoomed reports whether r came on a connection closed after a streamed
// reply: it gets no response.
func (s *Server) isDoomed(r *http.Request) bool {
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return false
	}
	s.doomMu.Lock()
	_, doomed := s.doomed[c]
	s.doomMu.Unlock()
	return doomed
}

// stopDooming cancels the pending closes (Close closes every connection).
func (s *Server) stopDooming() {
	s.doomMu.Lock()
	for _, t := range s.doomed {
		if t != nil {
			t.Stop()
		}
	}
	s.doomMu.Unlock()
}
