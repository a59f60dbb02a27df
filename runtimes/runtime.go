package runtimes

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what a Runtime needs to talk to one server.
type Config struct {
	Name string // how messages and files name it, e.g. "vllm-metal"
	Kind Kind
	// URL is the server root, with or without /v1. A user:pass@ in it is
	// sent as basic auth and never printed.
	URL string
	// Model is the model to request; empty: the first one the server
	// lists, resolved by Describe.
	Model string
	// APIKey, if set, is sent as a bearer token and never printed.
	APIKey string
	// Timeout bounds one whole request; zero means none.
	Timeout time.Duration
	// IdleTimeout, if set, fails a request when no line of its reply
	// arrives for that long once the first has. Keep-alive lines count:
	// they show the server is alive. The wait for the first line
	// (queueing, a model load, a long prefill) is bounded by Timeout only.
	IdleTimeout time.Duration
	// Client sends the requests. Nil: a client of its own on
	// NewTransport(1). Runtimes that share a client share its pool.
	Client *http.Client
	// API is the API requests go through (BENCH_API): empty or APIChat
	// for the chat of Kind.
	API API
}

// Runtime is one configured server. Its exported fields are safe to print:
// BaseURL carries no credentials.
type Runtime struct {
	Name    string
	Kind    Kind
	BaseURL string // server root without /v1 and without user:pass@
	Model   string // empty until Describe resolves it
	API     API    // BENCH_API; empty: the chat

	apiKey               string
	user                 *url.Userinfo
	timeout, idleTimeout time.Duration
	client               *http.Client

	freshOnce sync.Once
	fresh     FreshWay // found by FreshWay
	// server is the known server this runtime is, once known (by its
	// name, its protocol or Describe's answers): its descriptor orders
	// the sources of cached tokens (CachedOrder).
	server atomic.Pointer[Server]
}

// New returns the Runtime of c, or an error if c.URL is not a server root
// (see ParseURL).
func New(c Config) (*Runtime, error) {
	clean, user, err := splitURL(c.URL)
	if err != nil {
		return nil, err
	}
	client := c.Client
	if client == nil {
		client = &http.Client{Transport: NewTransport(1)}
	}
	rt := &Runtime{
		Name: c.Name, Kind: c.Kind, BaseURL: clean, Model: c.Model, API: c.API,
		apiKey: c.APIKey, user: user, timeout: c.Timeout, idleTimeout: c.IdleTimeout, client: client,
	}
	rt.knownFrom(c.Name)
	return rt, nil
}

// ParseURL checks that raw is an http or https server root and returns it
// as BaseURL would be: without credentials, query, trailing slash or /v1.
// Its errors never contain the password.
func ParseURL(raw string) (string, error) {
	clean, _, err := splitURL(raw)
	return clean, err
}

// NewTransport returns the transport every runtime uses: it keeps enough
// idle connections per host for the highest concurrency, so a round does
// not re-dial, and it never asks for compression (a gzip layer would buffer
// chunks and skew their arrival times).
func NewTransport(maxConc int) *http.Transport {
	if maxConc < 1 {
		maxConc = 1
	}
	return &http.Transport{
		Proxy:                 nil, // a benchmark talks to the server directly
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0,
		MaxIdleConnsPerHost:   maxConc + 4,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: 0, // prefill can be long; Config.Timeout bounds the request
		ForceAttemptHTTP2:     false,
	}
}

// newRequest builds a request to path under BaseURL with credentials set.
func (rt *Runtime) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rt.BaseURL+path, bytesReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if rt.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+rt.apiKey)
	} else if rt.user != nil {
		pass, _ := rt.user.Password()
		req.SetBasicAuth(rt.user.Username(), pass)
	}
	return req, nil
}

// Do sends one streaming request and measures it. It always returns a
// Result; a failure is in Result.Err (a *RequestError, with its Class),
// and what was measured before it is kept.
func (rt *Runtime) Do(ctx context.Context, req Request) Result {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if rt.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, rt.timeout, errRequestTimeout)
		defer stop()
	}
	proto := rt.Protocol()
	build := func(ctx context.Context, req Request) (*http.Request, error) {
		return proto.build(rt, ctx, proto.Chat, req)
	}
	read := proto.read
	if b, r := rt.apiExchange(req); b != nil { // BENCH_API other than chat: api_select.go
		build, read = b, r
	}
	var tracer *httpTracer
	if req.HTTPTrace {
		tracer = &httpTracer{}
		ctx = tracer.traceHTTP(ctx)
	}
	var res Result
	if hreq, err := build(ctx, req); err != nil {
		res.Err = &failure{class: ClassOther, msg: err.Error(), err: err}
	} else {
		res = rt.stream(ctx, cancel, limits{rt.timeout, rt.idleTimeout}, hreq, read, req)
	}
	if tracer != nil && !res.Start.IsZero() {
		res.HTTP = tracer.result(res.Start)
	}
	if res.Err != nil {
		res.Err = &RequestError{Runtime: rt.Name, URL: rt.BaseURL, Class: ErrorClass(res.Err), msg: rt.redact(res.Err.Error()), err: res.Err}
	}
	return res
}

// RequestError is a failed request, with the runtime's name and URL and
// secrets removed from its message.
type RequestError struct {
	Runtime, URL string
	Class        Class
	msg          string
	err          error
}

func (e *RequestError) Error() string { return e.Runtime + " (" + e.URL + "): " + e.msg }
func (e *RequestError) Unwrap() error { return e.err }
