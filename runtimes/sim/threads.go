package sim

import (
	"net"
	"sync"
	"time"
)

// A server with few HTTP threads (SIM_HTTP_THREADS=N), as llama-server's
// thread pool (--threads-http N): a thread serves one connection for as
// long as it is open, its requests one after another and the waits
// between them, until the client closes it or it has been idle for the
// keep-alive timeout (llama-server's 5 s: httpKeepAlive). A connection
// beyond N is held, accepted by the kernel but unread, its request
// unanswered, until a thread is free; so is every request sent on it.
// A client that keeps N idle connections in its pool while it opens
// another waits keep-alive long for that one's answer.

// httpKeepAlive is how long llama-server keeps an idle connection (and
// its thread) before closing it: its Keep-Alive "timeout=5".
const httpKeepAlive = 5 * time.Second

// threadListener accepts a connection only when one of its threads is
// free; the connection's Close frees it.
type threadListener struct {
	net.Listener
	threads   chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newThreadListener(ln net.Listener, n int) *threadListener {
	return &threadListener{Listener: ln, threads: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *threadListener) Accept() (net.Conn, error) {
	select {
	case l.threads <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.threads
		return nil, err
	}
	return &threadConn{Conn: c, free: func() { <-l.threads }}, nil
}

func (l *threadListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// threadConn is a connection holding one of the listener's threads until
// it is closed.
type threadConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *threadConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
