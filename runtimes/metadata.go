package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Info is what a server tells about itself, for the summary JSON.
type Info struct {
	// Version is the server's version, or nil where its API has none.
	Version *string
	// Models is the raw reply of GET /v1/models; for Ollama it also carries
	// the model's POST /api/show reply under "show", for llama-server its
	// GET /props under "props", for LM Studio the model's GET
	// /api/v0/models entry under "lmstudio". Nil if unavailable.
	Models json.RawMessage
	// Served is what those say of the model, normalized (see Served).
	Served Served
	// Unread are the metadata GETs whose facts were lost, each "GET
	// /path: why" (no answer in time, even asked again alone; no
	// connection; HTTP 5xx): the caller says them. An endpoint the server
	// does not have (HTTP 4xx) is not one.
	Unread []string
}

// ErrNoModel is Describe's error for a server that lists no model while
// Config.Model is empty.
var ErrNoModel = errors.New("the server lists no model")

// metaTimeout bounds each metadata request: a server that answers
// completions answers these quickly.
const metaTimeout = 10 * time.Second

// optTimeout bounds each request for a server's other metadata (version,
// settings, the model's details): endpoints that many servers lack, asked
// all at once, whose failure only leaves facts unknown.
const optTimeout = 3 * time.Second

// Describe reads the server's version, model list and what it says of
// the model. If Model is empty it becomes the first listed model; with
// none listed that is an error naming the runtime, as is a server that
// does not answer. The other endpoints (see Info) are asked a few at a
// time (metaParallel: a server of few HTTP threads answers them all),
// each within optTimeout, one that timed out again alone; one that fails
// or is missing leaves its facts unknown, never an error, and one whose
// facts were lost is named in Info.Unread.
func (rt *Runtime) Describe(ctx context.Context) (Info, error) {
	var info Info
	proto := rt.Protocol()
	lctx, cancel := context.WithTimeout(ctx, metaTimeout)
	models, err := rt.get(lctx, http.MethodGet, "/v1/models", nil)
	if err != nil && proto.Server == "" {
		cancel()
		return info, rt.errorf("listing models: %w", err)
	}
	if err == nil && json.Valid(models) {
		info.Models = models
	}
	asked := rt.Model != ""
	if !asked {
		rt.Model, err = rt.firstModel(lctx, models)
		if err != nil {
			cancel()
			return info, err
		}
	}
	cancel()

	bodies, lostGets := rt.getAll(ctx, describePaths(proto))
	info.Unread = lostGets
	rt.serverAnswered(bodies)
	info.Version = version(bodies)
	ollama := proto.Server == ServerOllama || ollamaAnswers(bodies)
	if ollama {
		// Ollama, or an OpenAI-kind runtime that is Ollama's /v1.
		info.Models = withKey(info.Models, "show", rt.show(ctx))
	}
	for _, s := range KnownServers {
		if s.meta != nil {
			info.Models = withKey(info.Models, s.Meta.Key, s.meta(bodies[s.Meta.Path], rt.Model))
		}
	}
	info.Served = ServedOf(info.Models, rt.Model)
	if asked {
		if err := rt.checkServed(ctx, models, ollama, anyModel(bodies)); err != nil {
			return info, err
		}
	}
	return info, nil
}

// describePaths are the GETs Describe asks beside the model list: every
// known server's version, own endpoint and Meta, or, for a protocol that
// is one server's own API, that server's.
func describePaths(proto *Protocol) []string {
	var paths []string
	for _, s := range KnownServers {
		if proto.Server != "" && s.Name != proto.Server {
			continue
		}
		for _, p := range []string{s.Version.Path, s.Endpoint, s.Meta.Path} {
			if p != "" && !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// anyModel reports whether bodies hold an answer of the own endpoint of
// a server that serves its one model whatever a request names
// (Server.AnyModel: llama-server's /props, text-generation-inference's
// /info).
func anyModel(bodies map[string]json.RawMessage) bool {
	for _, s := range KnownServers {
		if s.AnyModel && s.Endpoint != "" && bodies[s.Endpoint] != nil {
			return true
		}
	}
	return false
}

// ollamaAnswers reports whether bodies hold an answer of Ollama's own
// endpoint: an OpenAI-kind runtime that is Ollama's /v1.
func ollamaAnswers(bodies map[string]json.RawMessage) bool {
	s, _ := KnownServer(ServerOllama)
	return bodies[s.Endpoint] != nil
}

// ErrNotServed is Describe's error for a model asked for (Config.Model)
// that the server's list of models does not hold: every request for it
// would fail (vLLM, SGLang, LM Studio: HTTP 404 "The model … does not
// exist"; Ollama: 404 "model … not found").
var ErrNotServed = errors.New("the server does not serve the model")

// checkServed returns ErrNotServed, naming what the server serves, where
// the server lists its models (GET /v1/models, or Ollama's GET /api/tags
// where that lists none) and rt.Model is not among them, as each server
// matches names: Ollama lists a model asked for without a tag under
// ":latest"; mlx_lm.server takes "default_model" for the model it was
// started with. A server that answers any name (anyName: a Server.AnyModel
// answered its endpoint, llama-server's /props or TGI's /info; or the
// list's entries have llama-server's meta or owned_by "llamacpp") or lists none
// (mlx_lm.server without its Hugging Face cache folder) is not checked.
func (rt *Runtime) checkServed(ctx context.Context, models json.RawMessage, ollama, anyName bool) error {
	var list struct {
		Data []struct {
			ID      string          `json:"id"`
			OwnedBy json.RawMessage `json:"owned_by"`
			Meta    json.RawMessage `json:"meta"`
		} `json:"data"`
	}
	_ = json.Unmarshal(models, &list)
	var ids []string
	for _, d := range list.Data {
		var owner string
		_ = json.Unmarshal(d.OwnedBy, &owner)
		if d.Meta != nil || owner == ServerLlamaCpp {
			anyName = true
		}
		if d.OwnedBy == nil && rt.Model == "default_model" {
			return nil // mlx_lm.server's name of its model
		}
		if d.ID != "" {
			ids = append(ids, d.ID)
		}
	}
	if anyName {
		return nil
	}
	if len(ids) == 0 && ollama {
		ids = rt.tags(ctx)
	}
	if len(ids) == 0 {
		return nil
	}
	for _, id := range ids {
		if id == rt.Model || ollama && SameOllamaModel(id, rt.Model) {
			return nil
		}
	}
	return rt.errorf("%w %q: it serves %s", ErrNotServed, rt.Model, listNames(ids))
}

// tags are the names Ollama's GET /api/tags lists, or none.
func (rt *Runtime) tags(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	body, err := rt.get(ctx, http.MethodGet, "/api/tags", nil)
	if err != nil {
		return nil
	}
	var t struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	_ = json.Unmarshal(body, &t)
	var names []string
	for _, m := range t.Models {
		if m.Name != "" {
			names = append(names, m.Name)
		}
	}
	return names
}

// maxListed bounds the names a message lists.
const maxListed = 10

// listNames writes names for a message: quoted, the first maxListed of
// them, and how many there are in all if more.
func listNames(names []string) string {
	var q []string
	for i, n := range names {
		if i == maxListed {
			q = append(q, fmt.Sprintf("… (%d in all)", len(names)))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// getAll GETs paths, a few at a time (getEach), each within optTimeout,
// those that timed out again alone (retryAlone), and returns the bodies
// that came back as a JSON object without an "error" key (LM Studio
// answers an unknown endpoint 200 {"error":…}), by path, and the GETs
// whose facts were lost, with why (unread).
func (rt *Runtime) getAll(ctx context.Context, paths []string) (map[string]json.RawMessage, []string) {
	return rt.getAllWithin(ctx, paths, optTimeout)
}

func (rt *Runtime) getAllWithin(ctx context.Context, paths []string, timeout time.Duration) (map[string]json.RawMessage, []string) {
	got := rt.getEach(ctx, paths, timeout)
	rt.retryAlone(ctx, paths, got)
	out := map[string]json.RawMessage{}
	for i, g := range got {
		var m map[string]json.RawMessage
		if g.err != nil || json.Unmarshal(g.body, &m) != nil || m == nil || has(m, "error") {
			continue
		}
		out[paths[i]] = g.body
	}
	return out, unread(paths, got, timeout)
}

// Loaded returns what an Ollama server says of the model it has loaded
// (its /api/ps entry: size, size_vram, context_length, expires_at), or nil
// where there is no such endpoint or the model is not loaded.
func (rt *Runtime) Loaded(ctx context.Context) json.RawMessage {
	if rt.Protocol().Server != ServerOllama {
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
	if proto := rt.Protocol(); proto.Server == ServerOllama {
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
	if len(bytes.TrimSpace(models)) == 0 && rt.Protocol().Server == "" {
		// mlx_lm.server 0.32 sends its 200 and headers, then fails to
		// scan the Hugging Face cache where that folder is missing and
		// ends the reply without a body.
		return "", rt.errorf("%w: GET /v1/models answered 200 with an empty body (mlx_lm.server does so where its Hugging Face cache folder, ~/.cache/huggingface/hub or $HF_HOME/hub, does not exist; it takes \"default_model\" for the model it was started with)", ErrNoModel)
	}
	return "", rt.errorf("%w", ErrNoModel)
}

// version is the first the known servers state of (their Version, a
// server's own endpoint before Ollama's, which an OpenAI-kind runtime
// that is Ollama's /v1 answers too, before vLLM's and SGLang's /version);
// nil where none does (LM Studio, mlx_lm.server).
func version(bodies map[string]json.RawMessage) *string {
	for _, s := range byOwnFirst() {
		var m map[string]any
		if s.Version.Path == "" || json.Unmarshal(bodies[s.Version.Path], &m) != nil {
			continue
		}
		if v, ok := m[s.Version.Key].(string); ok && v != "" {
			return &v
		}
	}
	return nil
}

// mlxFingerprint is mlx_lm.server's system_fingerprint: mlx_lm's version,
// MLX's, then the platform ("0.32.2-0.32.4-Linux-6.1-x86_64-with-glibc2.36").
var mlxFingerprint = regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+]*)-([0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+]*)-(Darwin|Linux|Windows|macOS)`)

// FingerprintVersion is the version a reply's system_fingerprint states
// for a server whose API has no version endpoint: mlx_lm.server's gives
// "0.32.2 (mlx 0.32.4)". "" for any other fingerprint (vLLM's and
// llama-server's versions come from their endpoints).
func FingerprintVersion(fp string) string {
	m := mlxFingerprint.FindStringSubmatch(fp)
	if m == nil {
		return ""
	}
	return m[1] + " (mlx " + m[2] + ")"
}

// show is Ollama's POST /api/show reply for the model, or nil.
func (rt *Runtime) show(ctx context.Context) json.RawMessage {
	ctx, cancel := context.WithTimeout(ctx, optTimeout)
	defer cancel()
	req, _ := json.Marshal(map[string]string{"model": rt.Model})
	show, err := rt.get(ctx, http.MethodPost, "/api/show", req)
	if err != nil || !json.Valid(show) {
		return nil
	}
	return show
}

// props is what llama-server's GET /props (body) says of the settings
// that change results: total_slots (parallel sequences), n_ctx,
// build_info, the default generation settings, the model's file, and
// modalities ({"vision","audio"}: what its model takes, vision only when
// started with --mmproj; Info.TakesImages); nil where there is no such
// endpoint. (Its chat template, often kilobytes, is left out.)
func props(body json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if body == nil || json.Unmarshal(body, &p) != nil {
		return nil
	}
	keep := map[string]json.RawMessage{}
	for _, k := range []string{"total_slots", "n_ctx", "build_info", "default_generation_settings", "model_path", "model_alias", "modalities"} {
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

// lmstudioEntry is the model's entry in LM Studio's GET /api/v0/models
// (body), which lists every model it has, loaded or not; nil where there
// is none.
func lmstudioEntry(body json.RawMessage, model string) json.RawMessage {
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if body == nil || json.Unmarshal(body, &list) != nil {
		return nil
	}
	for _, e := range list.Data {
		var id struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(e, &id) == nil && id.ID == model {
			return e
		}
	}
	return nil
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
