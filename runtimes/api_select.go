package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// BENCH_API: the APIs a request can go through besides the chat
// (api_completions.go, api_responses.go, api_messages.go,
// api_embeddings.go). Each builds its own request and reads its own reply
// into the same Result; Runtime.Do picks them with apiExchange, the one
// selection point.

// API names the API a benchmark request goes through.
type API string

const (
	// APIChat is the chat: /v1/chat/completions, or Ollama's /api/chat
	// for Ollama's protocol (the default).
	APIChat API = "chat"
	// APICompletions is OpenAI's text completions, POST /v1/completions
	// (SSE, choices[].text).
	APICompletions API = "completions"
	// APIResponses is OpenAI's Responses API, POST /v1/responses (SSE
	// events, response.output_text.delta … response.completed).
	APIResponses API = "responses"
	// APIMessages is Anthropic's Messages API, POST /v1/messages (SSE
	// events, message_start … content_block_delta … message_stop).
	APIMessages API = "messages"
	// APIEmbeddings is embeddings, not streamed: POST /v1/embeddings, or
	// the protocol's Embed (Ollama's /api/embed).
	APIEmbeddings API = "embeddings"
)

// APIs are the APIs, the default first.
var APIs = []API{APIChat, APICompletions, APIResponses, APIMessages, APIEmbeddings}

// Path is the endpoint a request of api goes to on a server of kind k.
func (api API) Path(k Kind) string {
	switch api {
	case APICompletions:
		return "/v1/completions"
	case APIResponses:
		return "/v1/responses"
	case APIMessages:
		return "/v1/messages"
	}
	p, ok := ProtocolOf(k)
	if !ok {
		p = &OpenAI
	}
	if api == APIEmbeddings {
		return p.Embed
	}
	return p.Chat
}

// apiExchange is the request builder and reply reader of rt's API for
// req, or nil ones for the chat, whose are the Kind's.
func (rt *Runtime) apiExchange(req Request) (func(context.Context, Request) (*http.Request, error), streamReader) {
	switch rt.API {
	case APICompletions:
		return rt.completionsRequest, readCompletions
	case APIResponses:
		return rt.responsesRequest, readResponses
	case APIMessages:
		return rt.messagesRequest, readMessages
	case APIEmbeddings:
		return rt.embeddingsRequest, readEmbeddings(req.EmbedBatch, req.KeepText)
	}
	return nil, nil
}

// postJSON builds a POST of v, encoded, to path.
func (rt *Runtime) postJSON(ctx context.Context, path string, v any, accept string) (*http.Request, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	hreq, err := rt.newRequest(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", accept)
	return hreq, nil
}

// CheckAPI asks the server whether it serves rt's API, without making it
// generate anything: a POST of a JSON array (no request of any API is
// one) to the API's path, which a server that has the route refuses as a
// bad request (400, 422) and one that has not answers 404, 405 or 501.
// Embeddings get a real one-word request instead, as llama-server
// routes /v1/embeddings for every model and refuses only a valid
// request (501 without --embeddings); vLLM 0.32.0 has no such route for
// a generating model (404 {"detail":"Not Found"}, seen on the real
// server), which either request finds. nil for the chat, and for a server that
// serves the API; else an error naming the API, the path and the answer.
func (rt *Runtime) CheckAPI(ctx context.Context) error {
	if rt.API == "" || rt.API == APIChat {
		return nil
	}
	var body []byte = []byte("[]")
	if rt.API == APIEmbeddings {
		b, err := json.Marshal(rt.newEmbeddingsBody(Request{Prompt: "probe", EmbedBatch: 1}))
		if err != nil {
			return err
		}
		body = b
	}
	path := rt.API.Path(rt.Kind)
	hreq, err := rt.newRequest(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	resp, err := rt.client.Do(hreq)
	if err != nil {
		return fmt.Errorf("asking %s whether it serves %s: %s", rt.Name, path, rt.redact(err.Error()))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	said := serverMessage(msg)
	if unserved(resp.StatusCode, said) {
		if said != "" {
			said = ": " + said
		}
		return fmt.Errorf("%s (%s) does not serve the %s API: POST %s answered HTTP %d%s", rt.Name, rt.BaseURL, rt.API, path, resp.StatusCode, said)
	}
	return nil
}

// unserved reports whether an answer of status saying msg to a probe
// means the route or the API is not there.
func unserved(status int, msg string) bool {
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	}
	m := strings.ToLower(msg)
	return status == http.StatusBadRequest && (strings.Contains(m, "does not support") || strings.Contains(m, "not supported"))
}

// flatPrompt is req's conversation as one text, for the APIs that take
// no messages (completions): the system message, the history's texts and
// the prompt, a blank line apart.
func flatPrompt(req Request) string {
	if req.System == "" && len(req.History) == 0 {
		return req.Prompt
	}
	var b strings.Builder
	if req.System != "" {
		b.WriteString(req.System)
		b.WriteString("\n\n")
	}
	for _, m := range req.History {
		b.WriteString(m.Content)
		b.WriteString("\n\n")
	}
	b.WriteString(req.Prompt)
	return b.String()
}

// apiSSE is the SSE framing the streamed APIs share: data: lines, each
// handed to data; comments, event: lines (the data's "type" says the
// same) and blank lines skipped; data: [DONE] ends the reply; a bare JSON
// error document is an error.
type apiSSE struct {
	res   *Result
	start time.Time
	data  func(data []byte, t time.Time, partial bool) (done bool, err error)
	end   string // what a reply that stops early lacks
}

func (p *apiSSE) feed(line []byte, t time.Time, partial bool) (bool, error) {
	if len(line) == 0 || line[0] == ':' {
		return false, nil
	}
	if bytes.HasPrefix(line, sseData) {
		data := bytes.TrimSpace(line[len(sseData):])
		switch {
		case len(data) == 0:
			return false, nil
		case bytes.Equal(data, sseDone):
			return true, nil
		}
		return p.data(data, t, partial)
	}
	if line[0] == '{' {
		var eb errorBody
		if json.Unmarshal(line, &eb) == nil && (eb.Error.set || eb.Object == "error") {
			return false, fail(ClassStreamError, "error in stream: "+serverMessage(line))
		}
	}
	return false, nil
}

func (p *apiSSE) missingEnd() string { return p.end }

// decodeEvent decodes one data: line's JSON into v, with the classes the
// chat's parser gives a cut or a broken one.
func decodeEvent(data []byte, v any, partial bool, end string) error {
	if err := json.Unmarshal(data, v); err != nil {
		if partial {
			return fail(ClassTruncated, fmt.Sprintf("stream ended %s (cut in the middle of a line: %s)", end, quote(data)))
		}
		return fail(ClassMalformed, fmt.Sprintf("bad event %s: %s", quote(data), jsonError(err)))
	}
	return nil
}

// textEvent counts an event that carried text s at t: answer text, or
// reasoning.
func textEvent(res *Result, start, t time.Time, s string, answer bool) {
	if s == "" {
		return
	}
	if answer {
		answerText(res, s)
	}
	textChunk(res, start, t, answer)
}
