package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// The APIs beside the chat (BENCH_API): OpenAI's text completions
// (api_completions.go), the Responses API (api_responses.go), Anthropic's
// Messages (api_messages.go) and embeddings (api_embeddings.go), each
// served by the flavors whose servers serve it (ServesAPI). The three
// streamed ones go through the chat's machinery, the same schedule,
// slots, prompt cache and faults: only the request's shape and the
// encoder differ.

// ServesAPI reports whether the flavor serves api ("completions",
// "responses", "messages", "embeddings"; "chat" always): as its server
// does, read from their sources (2026-12). vLLM, llama-server (embeddings
// only when started with --embeddings) and Ollama (/v1/responses from
// 0.13.3, /v1/messages from 0.14.0, /v1/completions and /v1/embeddings
// and /api/embed long before) serve all four; LM Studio completions,
// responses and embeddings; mlx_lm.server and a plain server completions
// only.
func (c Config) ServesAPI(api string) bool {
	switch api {
	case "chat":
		return true
	case "completions":
		return true
	case "responses", "embeddings":
		return c.flavor() != FlavorMLX && c.flavor() != FlavorPlain
	case "messages":
		f := c.flavor()
		return f == FlavorVLLM || f == FlavorLlamaCpp || f == FlavorOllama
	}
	return false
}

// routeAPIs adds the endpoints of the APIs the flavor serves to mux.
func (s *Server) routeAPIs(mux *http.ServeMux) {
	if s.cfg.ServesAPI("completions") {
		mux.HandleFunc("POST /v1/completions", s.apiStream(completionsAPI))
	}
	if s.cfg.ServesAPI("responses") {
		mux.HandleFunc("POST /v1/responses", s.apiStream(responsesAPI))
	}
	if s.cfg.ServesAPI("messages") {
		mux.HandleFunc("POST /v1/messages", s.apiStream(messagesAPI))
	}
	if s.cfg.ServesAPI("embeddings") {
		mux.HandleFunc("POST /v1/embeddings", s.embeddings(false))
		if s.cfg.ServesOllama() {
			mux.HandleFunc("POST /api/embed", s.embeddings(true))
		}
	}
}

// apiRequest is what a streamed request of another API asks.
type apiRequest struct {
	model     string
	msgs      []chatMessage
	n         int // tokens asked for
	ignoreEOS bool
	stream    bool
	usage     bool // completions' stream_options.include_usage
	logprobs  *int // completions' logprobs: the alternatives asked for; nil: none
}

// apiEncoder is an API's encoder, with what its stream opens with
// (written at once, before the schedule's first token).
type apiEncoder interface {
	encoder
	head(b []byte) []byte
}

// streamAPI is one streamed API: how its request is read, its encoder,
// and its error replies.
type streamAPI struct {
	read  func(body []byte) (apiRequest, error)
	enc   func(s *Server, arrival time.Time, rep *reply, req *apiRequest) apiEncoder
	fail  func(w http.ResponseWriter, code int, err error)
	limit func(s *Server, w http.ResponseWriter, p, n, limit int) // its context error
}

// apiStream serves a streamed request of api, as openaiChat serves the
// chat's.
func (s *Server) apiStream(api *streamAPI) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		body, err := s.chatBody(w, r)
		if err != nil {
			api.fail(w, http.StatusBadRequest, err)
			return
		}
		f, ok := s.admit(w, r, arrival, true)
		if !ok {
			return
		}
		req, err := api.read(body)
		switch {
		case err != nil:
		case !req.stream:
			err = errors.New(`the simulator only streams: set "stream": true`)
		case len(req.msgs) == 0:
			err = errNoMessages
		case req.logprobs != nil:
			_, err = s.cfg.askLogprobs(true, *req.logprobs)
		}
		if err != nil {
			api.fail(w, http.StatusBadRequest, err)
			return
		}
		if s.cfg.unserved(req.model) {
			api.fail(w, http.StatusNotFound, fmt.Errorf("the model `%s` does not exist", req.model))
			return
		}
		pr := s.cache.measure(req.msgs)
		if limit := s.cfg.ctxLen(); pr.p+req.n > limit {
			api.limit(s, w, pr.p, req.n, limit)
			return
		}
		rep := s.newReply(arrival, req.model, req.n, req.ignoreEOS, pr.p, pr.cached(s.cache.serve(pr)), s.lastSeed(req.msgs))
		enc := api.enc(s, arrival, rep, &req)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.closeAfterReply(r)
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		if _, err := w.Write(enc.head(nil)); err != nil || rc.Flush() != nil {
			return
		}
		if s.begin(r, rep) != nil {
			s.abort()
			return
		}
		defer s.finish(rep)
		s.serve(w, r, rc, rep, enc, f)
	}
}

// textMessages are the messages of a request whose contents are
// strings: role and text.
func textMessages(roles, texts []string) []chatMessage {
	out := make([]chatMessage, len(roles))
	for i := range roles {
		out[i] = chatMessage{role: roles[i], texts: []string{texts[i]}}
	}
	return out
}

// apiID is a random id after prefix, as servers make them.
func apiID(prefix string) string {
	return prefix + strconv.FormatUint(rand.Uint64(), 16) + strconv.FormatUint(rand.Uint64(), 16)
}

// openaiContextError is the context error of the OpenAI-shaped APIs.
func openaiContextError(s *Server, w http.ResponseWriter, p, n, limit int) {
	s.contextError(w, p, n, limit)
}

// openaiFail is an OpenAI-shaped error reply with status code.
func openaiFail(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, mustJSON(map[string]any{
		"object": "error", "message": err.Error(), "type": "BadRequestError", "param": nil, "code": code,
	}))
}
