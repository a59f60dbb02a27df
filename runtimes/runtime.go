package runtimes

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Runtime is one configured server. Its fields are safe to print: BaseURL
// carries no credentials (they live in unexported fields).
type Runtime struct {
	Name    string // as in BENCH_RUNTIMES, e.g. "vllm-metal"
	Kind    Kind
	BaseURL string // server root without /v1 and without user:pass@
	Model   string // empty until resolved from the server's model list

	apiKey string
	user   *url.Userinfo

	// IdleTimeout, if set, fails a request when no line of its reply
	// arrives for that long once the headers are in (BENCH_IDLE_TIMEOUT).
	// Keep-alive lines count: they show the server is alive. Before the
	// headers only the request timeout applies (Ollama sends its headers
	// with the first token, so a model load or a long prefill is there).
	IdleTimeout time.Duration

	client *http.Client
	// timeout bounds one whole request; zero means none.
	timeout time.Duration
}

// NewTransport returns the transport every runtime uses: it keeps enough
// idle connections per host for the highest concurrency, so a round never
// re-dials, and it never asks for compression (a gzip layer would buffer
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
		ResponseHeaderTimeout: 0, // prefill can be long; BENCH_TIMEOUT bounds the request
		ForceAttemptHTTP2:     false,
	}
}

// New returns a Runtime. baseURL may carry user:pass@, which is moved out of
// the printable BaseURL and sent as basic auth. apiKey, if set, is sent as a
// bearer token.
func New(name string, kind Kind, baseURL, model, apiKey string, timeout time.Duration, client *http.Client) (*Runtime, error) {
	clean, user, err := splitURL(baseURL)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{Transport: NewTransport(1)}
	}
	return &Runtime{
		Name: name, Kind: kind, BaseURL: clean, Model: model,
		apiKey: apiKey, user: user, client: client, timeout: timeout,
	}, nil
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
	build, read := rt.openAIRequest, readOpenAI
	if rt.Kind == KindOllama {
		build, read = rt.ollamaRequest, readOllama
	}
	var res Result
	if hreq, err := build(ctx, req); err != nil {
		res.Err = &failure{class: ClassOther, msg: err.Error(), err: err}
	} else {
		res = rt.stream(ctx, cancel, limits{rt.timeout, rt.IdleTimeout}, hreq, read)
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
