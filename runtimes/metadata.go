package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Info is what a server tells about itself, for the summary JSON.
type Info struct {
	// Version is the server's version, or nil where its API has none.
	Version *string
	// Models is the raw reply of GET /v1/models; for Ollama it also carries
	// the model's POST /api/show reply under "show". Nil if unavailable.
	Models json.RawMessage
}

// ErrNoModel is Describe's error for a server that lists no model while
// Config.Model is empty.
var ErrNoModel = errors.New("the server lists no model")

// metaTimeout bounds each metadata request: a server that answers
// completions answers these quickly.
const metaTimeout = 10 * time.Second

// Ping checks that the server answers at all, within ctx's deadline.
func (rt *Runtime) Ping(ctx context.Context) error {
	path := "/v1/models"
	if rt.Kind == KindOllama {
		path = "/api/version"
	}
	_, err := rt.get(ctx, http.MethodGet, path, nil)
	return err
}

// Describe reads the server's version and model list. If Model is empty it
// becomes the first listed model; with none listed that is an error naming
// the runtime, as is a server that does not answer.
func (rt *Runtime) Describe(ctx context.Context) (Info, error) {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	var info Info
	models, err := rt.get(ctx, http.MethodGet, "/v1/models", nil)
	if err != nil && rt.Kind != KindOllama {
		return info, rt.errorf("listing models: %w", err)
	}
	if err == nil && json.Valid(models) {
		info.Models = models
	}
	if rt.Model == "" {
		rt.Model, err = rt.firstModel(ctx, models)
		if err != nil {
			return info, err
		}
	}
	info.Version = rt.version(ctx)
	if rt.Kind == KindOllama {
		info.Models = withKey(info.Models, "show", rt.show(ctx))
	} else {
		info.Models = withKey(info.Models, "props", rt.props(ctx))
	}
	return info, nil
}

// Loaded returns what an Ollama server says of the model it has loaded
// (its /api/ps entry: size, size_vram, context_length, expires_at), or nil
// where there is no such endpoint or the model is not loaded.
func (rt *Runtime) Loaded(ctx context.Context) json.RawMessage {
	if rt.Kind != KindOllama {
		return nil
	}
	return rt.ps(ctx)
}

// ps is the model's /api/ps entry, asked whatever the runtime's kind (an
// OpenAI-kind runtime may be Ollama's /v1), or nil.
func (rt *Runtime) ps(ctx context.Context) json.RawMessage {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	body, err := rt.get(ctx, http.MethodGet, "/api/ps", nil)
	if err != nil {
		return nil
	}
	var ps struct {
		Models []json.RawMessage `json:"models"`
	}
	if json.Unmarshal(body, &ps) != nil {
		return nil
	}
	for _, m := range ps.Models {
		var id struct{ Name, Model string }
		if json.Unmarshal(m, &id) == nil && (SameOllamaModel(id.Name, rt.Model) || SameOllamaModel(id.Model, rt.Model)) {
			return m
		}
	}
	return nil
}

// SameOllamaModel reports whether name, as Ollama lists it (/api/ps,
// /api/tags), is model as a user gives it: Ollama lists a model asked
// for without a tag under ":latest" ("tiny" is "tiny:latest").
func SameOllamaModel(name, model string) bool {
	return name == model || (!strings.Contains(model, ":") && name == model+":latest")
}

func (rt *Runtime) firstModel(ctx context.Context, models []byte) (string, error) {
	var list openai.ModelsList
	if len(models) > 0 && json.Unmarshal(models, &list) == nil && len(list.Models) > 0 && list.Models[0].ID != "" {
		return list.Models[0].ID, nil
	}
	if rt.Kind == KindOllama {
		tags, err := rt.get(ctx, http.MethodGet, "/api/tags", nil)
		if err != nil {
			return "", rt.errorf("listing models: %w", err)
		}
		var t struct {
			Models []struct {
				Name string `json:"name"`
			} `json:"models"`
		}
		if json.Unmarshal(tags, &t) == nil && len(t.Models) > 0 && t.Models[0].Name != "" {
			return t.Models[0].Name, nil
		}
	}
	return "", rt.errorf("%w", ErrNoModel)
}

// version asks the endpoints the runtimes offer, in turn: Ollama
// /api/version, vLLM and SGLang /version, llama.cpp /props build_info,
// and for an OpenAI-kind runtime that is Ollama's /v1, /api/version.
func (rt *Runtime) version(ctx context.Context) *string {
	type try struct{ path, field string }
	tries := []try{{"/version", "version"}, {"/props", "build_info"}, {"/api/version", "version"}}
	if rt.Kind == KindOllama {
		tries = []try{{"/api/version", "version"}}
	}
	for _, t := range tries {
		body, err := rt.get(ctx, http.MethodGet, t.path, nil)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		if v, ok := m[t.field].(string); ok && v != "" {
			return &v
		}
	}
	return nil
}

// show is Ollama's POST /api/show reply for the model, or nil.
func (rt *Runtime) show(ctx context.Context) json.RawMessage {
	req, _ := json.Marshal(map[string]string{"model": rt.Model})
	show, err := rt.get(ctx, http.MethodPost, "/api/show", req)
	if err != nil || !json.Valid(show) {
		return nil
	}
	return show
}

// props is what llama-server's GET /props says of the settings that change
// results: total_slots (parallel sequences), n_ctx, build_info and the
// default generation settings; nil where there is no such endpoint. (Its
// chat template, often kilobytes, is left out.)
func (rt *Runtime) props(ctx context.Context) json.RawMessage {
	body, err := rt.get(ctx, http.MethodGet, "/props", nil)
	if err != nil {
		return nil
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(body, &p) != nil {
		return nil
	}
	keep := map[string]json.RawMessage{}
	for _, k := range []string{"total_slots", "n_ctx", "build_info", "default_generation_settings", "model_path"} {
		if v, ok := p[k]; ok {
			keep[k] = v
		}
	}
	if len(keep) == 0 {
		return nil
	}
	out, _ := json.Marshal(keep)
	return out
}

// withKey adds raw to the model list under key, so that every kind keeps
// the /v1/models shape; a nil raw changes nothing.
func withKey(models json.RawMessage, key string, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return models
	}
	m := map[string]json.RawMessage{}
	if len(models) > 0 && json.Unmarshal(models, &m) != nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return models
	}
	return out
}

// maxMeta caps a metadata reply; Ollama's /api/show can be large (license,
// template), but not this large.
const maxMeta = 8 << 20

func (rt *Runtime) get(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := rt.newRequest(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	resp, err := rt.client.Do(req)
	if err != nil {
		class := connClass(err)
		if ctx.Err() != nil {
			class = ClassTimeout
		}
		return nil, &failure{class: class, msg: rt.redact(err.Error())}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMeta))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", method, path, rt.redact(err.Error()))
	}
	if resp.StatusCode >= 400 {
		msg := strings.TrimSpace(string(b))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return nil, &httpError{code: resp.StatusCode, msg: fmt.Sprintf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, rt.redact(msg))}
	}
	return b, nil
}

// httpError is a metadata request the server answered with an HTTP
// error.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// notServed reports whether err is a server's answer that it has no such
// endpoint (404 or 405).
func notServed(err error) bool {
	var se *httpError
	return errors.As(err, &se) && (se.code == http.StatusNotFound || se.code == http.StatusMethodNotAllowed)
}

func (rt *Runtime) errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s): %w", rt.Name, rt.BaseURL, fmt.Errorf(format, args...))
}

// ErrNoMetrics is Metrics' error for a server without a Prometheus
// /metrics page (Ollama, LM Studio, mlx_lm).
var ErrNoMetrics = errors.New("the server has no /metrics")

// Metrics returns the server's Prometheus /metrics page in the plain text
// format (vLLM, SGLang, llama-server with --metrics), or ErrNoMetrics
// where there is none.
func (rt *Runtime) Metrics(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	req, err := rt.newRequest(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return nil, err
	}
	// Not OpenMetrics: in it Python's prometheus_client names counters
	// without _total.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := rt.client.Do(req)
	if err != nil {
		return nil, rt.errorf("GET /metrics: %s", rt.redact(err.Error()))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMeta))
	if err != nil {
		return nil, rt.errorf("GET /metrics: %s", rt.redact(err.Error()))
	}
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK || strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/html") {
		return nil, ErrNoMetrics
	}
	return body, nil
}
