package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a running simulator. Close it when done.
type Server struct {
	// URL is the server's root, http://127.0.0.1:port (no trailing slash).
	URL string

	cfg     Config
	started time.Time
	clock   *clock
	srv     *http.Server
	ln      net.Listener

	ctx    context.Context // parent of every request's context
	cancel context.CancelFunc

	mu        sync.Mutex
	closing   bool
	handlers  sync.WaitGroup
	active    atomic.Int64 // handlers running
	conns     atomic.Int64 // client connections open
	chats     atomic.Int64 // chat requests counted for FaultEvery
	toolCalls atomic.Int64 // tool calls made, counted for ToolArgsInvalid
	cache     *promptCache
	slots     *slots
	metrics   *metrics
	state     *state

	// Connections to close after their streamed reply
	// (Config.CloseAfterStream), with the timer that will, once idle.
	doomMu sync.Mutex
	doomed map[net.Conn]*time.Timer

	hooks

	serveDone chan struct{}
	closeOnce sync.Once

	// Precomputed bodies of the fixed metadata endpoints; /api/ps's with
	// the model loaded and without.
	versionBody, showBody, tagsBody, psBody, psEmptyBody, modelsBody []byte
	// vllmUsageEnd closes the vllm flavor's usage chunk, with its
	// fingerprint.
	vllmUsageEnd string
}

// hooks let tests watch a server; all are optional.
type hooks struct {
	// trace is called after each write of a stream: t0, the last chunk
	// written (n for the final one), when the write began and when its
	// flush returned.
	trace func(t0 time.Time, i int, began, flushed time.Time)
	// onStart is Tap.Start.
	onStart func(r *http.Request, t0 time.Time)
	// onBody is Tap.Body.
	onBody func(r *http.Request, body []byte)
}

// Start validates cfg and serves on 127.0.0.1 on a free port.
func Start(cfg Config) (*Server, error) { return start(cfg, "127.0.0.1:0", hooks{}) }

// StartAt is Start serving on addr, a host and port ("127.0.0.1:8081";
// port 0 is a free one), as cmd/sim does.
func StartAt(cfg Config, addr string) (*Server, error) { return start(cfg, addr, hooks{}) }

// Tap watches a server from inside, for tests that check a client against
// the server's own clock: when each stream started (t0) and when each write
// of it was flushed to the connection. Both are called on the stream's
// handler or the clock goroutine: keep them short.
type Tap struct {
	// Start is called when a chat request's schedule starts, with its t0:
	// when its handler starts or, with Config.Slots, when it gets a slot
	// (so, with slots, not for requests turned away before that).
	Start func(r *http.Request, t0 time.Time)
	// Flush is called after each write of a stream started at t0: last
	// is the index of the last chunk written (n for the final one), began
	// when the write began and flushed when its flush returned.
	Flush func(t0 time.Time, last int, began, flushed time.Time)
	// Body is called with the body of every POST to a chat endpoint
	// (/api/chat, load and unload requests included, and
	// /v1/chat/completions) once it has been read, before it is parsed:
	// what the server was sent. It must not modify body.
	Body func(r *http.Request, body []byte)
}

// StartTapped is Start with a Tap.
func StartTapped(cfg Config, tap Tap) (*Server, error) {
	return start(cfg, "127.0.0.1:0", hooks{onStart: tap.Start, trace: tap.Flush, onBody: tap.Body})
}

func start(cfg Config, addr string, h hooks) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	clk, err := newClock()
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{
		URL:       "http://" + ln.Addr().String(),
		cfg:       cfg,
		started:   time.Now(),
		clock:     clk,
		ln:        ln,
		serveDone: make(chan struct{}),
		hooks:     h,
		cache:     newPromptCache(cacheCap, cfg.prefixCacheMode() == PrefixCacheOff),
		slots:     newSlots(cfg.Slots),
		metrics:   newMetrics(cfg.listed(), cfg.ctxLen()),
		state:     newState(cfg),
		doomed:    make(map[net.Conn]*time.Timer),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.precompute()

	mux := s.routes()

	s.srv = &http.Server{
		Handler:           s.track(mux),
		ReadHeaderTimeout: 10 * time.Second,
		// No ReadTimeout or WriteTimeout: they would cut long streams.
		IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return s.ctx },
		ConnContext: withConn,
		ConnState:   s.connState,
	}
	if n := cfg.HTTPThreads; n > 0 {
		ln = newThreadListener(ln, n) // threads.go
		s.ln = ln
		s.srv.IdleTimeout = httpKeepAlive
	}
	go func() {
		defer close(s.serveDone)
		s.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return s, nil
}

// routes are the endpoints s serves: the chat and models of every
// flavor, the APIs beside the chat, and its flavor's own.
func (s *Server) routes() *http.ServeMux {
	cfg := s.cfg
	mux := http.NewServeMux()
	if cfg.ServesOllama() {
		mux.HandleFunc("POST /api/chat", s.ollamaChat)
		mux.HandleFunc("GET /api/version", s.fixed(s.versionBody))
		mux.HandleFunc("POST /api/show", s.ollamaShow)
		mux.HandleFunc("GET /api/tags", s.fixed(s.tagsBody))
		mux.HandleFunc("GET /api/ps", s.ollamaPS)
	}
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	s.routeAPIs(mux) // the APIs beside the chat: api_routes.go
	if cfg.modelsMode() == ModelsEmpty {
		mux.HandleFunc("GET /v1/models", emptyModels)
	} else {
		mux.HandleFunc("GET /v1/models", s.fixed(s.modelsBody))
	}
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	switch cfg.flavor() {
	case FlavorVLLM:
		mux.HandleFunc("GET /version", s.fixed(s.versionBody))
		mux.HandleFunc("POST /reset_prefix_cache", s.resetPrefixCache)
		mux.HandleFunc("POST /tokenize", s.vllmTokenize)
	case FlavorLlamaCpp:
		mux.HandleFunc("GET /props", s.props)
		mux.HandleFunc("GET /slots", s.listSlots)
		mux.HandleFunc("POST /slots/{id}", s.slotAction)
		mux.HandleFunc("POST /tokenize", s.llamaTokenize)
	case FlavorLMStudio:
		mux.HandleFunc("GET /api/v0/models", s.fixed(s.lmstudioModelsBody()))
	}
	if spec, ok := flavorSpecs[cfg.flavor()]; ok && spec.routes != nil {
		spec.routes(s, mux)
	}
	switch {
	case cfg.flavor() == FlavorLlamaCpp && cfg.NoMetrics:
		mux.HandleFunc("GET /metrics", noLlamaMetrics)
	case cfg.flavor() == FlavorLlamaCpp:
		mux.HandleFunc("GET /metrics", s.serveLlamaMetrics)
	case !cfg.NoMetrics && flavorSpecs[cfg.flavor()].metrics != nil:
		mux.HandleFunc("GET /metrics", flavorSpecs[cfg.flavor()].metrics(s))
	case !cfg.NoMetrics:
		mux.HandleFunc("GET /metrics", s.serveMetrics)
	}
	return mux
}

// Active is the number of requests being handled (streams in flight,
// mostly).
func (s *Server) Active() int { return int(s.active.Load()) }

// OpenConns is the number of client TCP connections open now: accepted and
// not yet closed by either side. A connection the simulator resets
// (FaultReset) counts as closed.
func (s *Server) OpenConns() int { return int(s.conns.Load()) }

func (s *Server) connState(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		// Only FaultReset and SIM_MODELS=empty hijack, and they close
		// the connection at once.
		s.conns.Add(-1)
	}
	if s.cfg.CloseAfterStream {
		s.onDoomed(c, st)
	}
}

// Config is the schedule the server keeps.
func (s *Server) Config() Config { return s.cfg }

// Close stops the server and waits for its handlers. Streams in flight end
// at once with their connection closed mid-response (the client reads an
// unexpected EOF, never a clean end). Close is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.cancel() // every stream's context: they abort their connections
		// Shutdown closes the listener and idle connections and waits for
		// the rest; streams end within microseconds of the cancel, but a
		// handler blocked writing to a client that does not read never
		// looks at its context: closing the connections unblocks it.
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		err := s.srv.Shutdown(ctx)
		cancel()
		if err != nil {
			s.srv.Close()
		}
		s.handlers.Wait()
		<-s.serveDone
		s.stopDooming()
		s.clock.stop()
	})
}

// track counts handlers so that Close can wait for them, and turns away
// requests that arrive while closing or on a connection being closed after
// a streamed reply.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.CloseAfterStream && s.isDoomed(r) {
			// It came on a connection being closed after a streamed reply:
			// the client reads EOF before any byte of a reply.
			if d := s.cfg.LostAttempt; d > 0 {
				select {
				case <-time.After(d):
				case <-r.Context().Done():
				}
			}
			panic(http.ErrAbortHandler)
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			panic(http.ErrAbortHandler)
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		if s.cfg.CloseAfterStream {
			w.Header().Set("Keep-Alive", keepAliveHeader)
		}
		s.active.Add(1)
		defer func() {
			s.active.Add(-1)
			s.handlers.Done()
		}()
		h.ServeHTTP(w, r)
	})
}

// abort ends a stream that failed: if the server is closing, the connection
// is dropped so that the client sees an error rather than a clean end.
func (s *Server) abort() {
	if s.ctx.Err() != nil {
		panic(http.ErrAbortHandler)
	}
}

func (s *Server) fixed(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, body) }
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *Server) precompute() {
	model := s.cfg.listed()
	details := map[string]any{
		"family":             "sim",
		"families":           []string{"sim"},
		"parameter_size":     "500.00M",
		"quantization_level": s.cfg.quantization(),
		"format":             "gguf",
	}
	s.versionBody = mustJSON(map[string]any{"version": s.cfg.version()})
	s.vllmUsageEnd = `},"system_fingerprint":"` + s.cfg.vllmFingerprint() + `"}` + "\n\n"
	// Ollama says a model takes tools where its chat template uses .Tools.
	caps, template := []string{"completion", "tools"}, toolsTemplate
	if s.cfg.modelTools() == ModelToolsOff {
		caps, template = []string{"completion"}, plainTemplate
	}
	if s.cfg.modelVision() == ModelVisionOn {
		caps = append(caps, "vision")
	}
	s.showBody = mustJSON(map[string]any{
		"template":     template,
		"details":      details,
		"model_info":   map[string]any{"general.architecture": "sim", "sim.context_length": s.cfg.ctxLen()},
		"capabilities": caps,
		"modified_at":  s.started.UTC(),
	})
	s.tagsBody = mustJSON(map[string]any{"models": []any{map[string]any{
		"name": model, "model": model, "modified_at": s.started.UTC(), "size": 0,
		"digest": "sim", "details": details,
	}}})
	s.psBody = mustJSON(map[string]any{"models": []any{map[string]any{
		"name": model, "model": model, "size": 0, "size_vram": 0, "digest": "sim",
		"details": details, "expires_at": s.started.Add(100 * 365 * 24 * time.Hour).UTC(),
		"context_length": s.cfg.ctxLen(),
	}}})
	s.psEmptyBody = []byte(`{"models":[]}`)
	s.modelsBody = mustJSON(map[string]any{"object": "list", "data": []any{s.modelsEntry()}})
}

// The chat templates /api/show states: one that renders tools (as
// Ollama's tool-calling models' do), and one that does not.
const (
	toolsTemplate = "{{- if .Tools }}Tools: {{ range .Tools }}{{ json .Function }}{{ end }}\n{{ end }}{{ range .Messages }}{{ .Role }}: {{ .Content }}\n{{ end }}assistant: "
	plainTemplate = "{{ range .Messages }}{{ .Role }}: {{ .Content }}\n{{ end }}assistant: "
)

// noTools is Ollama's error for a chat request with tools to a model
// that takes none, naming the model in full as Ollama does
// ("registry.ollama.ai/library/e2e:latest does not support tools").
func noTools(model string) error {
	name := cmp.Or(model, Model)
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	switch strings.Count(name, "/") {
	case 0:
		name = "registry.ollama.ai/library/" + name
	case 1:
		name = "registry.ollama.ai/" + name
	}
	return fmt.Errorf("%s does not support tools", name)
}

// refusesTools reports whether a chat request with tools (raw, the
// request's "tools") is refused: the model takes none.
func (s *Server) refusesTools(raw json.RawMessage) bool {
	return s.cfg.modelTools() == ModelToolsOff && hasTools(raw)
}

var errNoMessages = errors.New("messages must be a non-empty list")

// ollamaPS answers GET /api/ps: the model, or none while it is unloaded.
func (s *Server) ollamaPS(w http.ResponseWriter, _ *http.Request) {
	if s.state.isLoaded() {
		writeJSON(w, http.StatusOK, s.psBody)
		return
	}
	writeJSON(w, http.StatusOK, s.psEmptyBody)
}

// ollamaShow answers POST /api/show for any model name.
func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"` // older clients
	}
	if err := readJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.showBody)
}
