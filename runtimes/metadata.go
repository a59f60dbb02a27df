package runtimes

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
// does not answer. The other endpoints (see Info) are asked at once, each
// within optTimeout; one that fails or is missing leaves its facts
// unknown, never an error.
func (rt *Runtime) Describe(ctx context.Context) (Info, error) {
	var info Info
	lctx, cancel := context.WithTimeout(ctx, metaTimeout)
	models, err := rt.get(lctx, http.MethodGet, "/v1/models", nil)
	if err != nil && rt.Kind != KindOllama {
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

	paths := []string{"/version", pathProps, pathOllamaVersion, pathLMStudioModels}
	if rt.Kind == KindOllama {
		paths = []string{pathOllamaVersion}
	}
	bodies := rt.getAll(ctx, paths)
	info.Version = version(bodies)
	if rt.Kind == KindOllama || bodies[pathOllamaVersion] != nil {
		// Ollama, or an OpenAI-kind runtime that is Ollama's /v1.
		info.Models = withKey(info.Models, "show", rt.show(ctx))
	}
	info.Models = withKey(info.Models, "props", props(bodies[pathProps]))
	info.Models = withKey(info.Models, "lmstudio", lmstudioEntry(bodies[pathLMStudioModels], rt.Model))
	info.Served = ServedOf(info.Models, rt.Model)
	if asked {
		ollama := rt.Kind == KindOllama || bodies[pathOllamaVersion] != nil
		if err := rt.checkServed(ctx, models, ollama, bodies[pathProps] != nil); err != nil {
			return info, err
		}
	}
	return info, nil
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
// started with. A server that answers any name (llama-server: llama,
// its /props, its entries' meta or owned_by "llamacpp") or lists none
// (mlx_lm.server without its Hugging Face cache folder) is not checked.
func (rt *Runtime) checkServed(ctx context.Context, models json.RawMessage, ollama, llama bool) error {
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
			llama = true
		}
		if d.OwnedBy == nil && rt.Model == "default_model" {
			return nil // mlx_lm.server's name of its model
		}
		if d.ID != "" {
			ids = append(ids, d.ID)
		}
	}
	if llama {
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

// getAll GETs paths at once, each within optTimeout, and returns the
// bodies that came back as a JSON object without an "error" key (LM
// Studio answers an unknown endpoint 200 {"error":…}), by path.
func (rt *Runtime) getAll(ctx context.Context, paths []string) map[string]json.RawMessage {
	bodies := make([]json.RawMessage, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, optTimeout)
			defer cancel()
			body, err := rt.get(ctx, http.MethodGet, path, nil)
			var m map[string]json.RawMessage
			if err != nil || json.Unmarshal(body, &m) != nil || m == nil || has(m, "error") {
				return
			}
			bodies[i] = body
		})
	}
	wg.Wait()
	out := map[string]json.RawMessage{}
	for i, b := range bodies {
		if b != nil {
			out[paths[i]] = b
		}
	}
	return out
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
	if len(bytes.TrimSpace(models)) == 0 && rt.Kind == KindOpenAI {
		// mlx_lm.server 0.32 sends its 200 and headers, then fails to
		// scan the Hugging Face cache where that folder is missing and
		// ends the reply without a body.
		return "", rt.errorf("%w: GET /v1/models answered 200 with an empty body (mlx_lm.server does so where its Hugging Face cache folder, ~/.cache/huggingface/hub or $HF_HOME/hub, does not exist; it takes \"default_model\" for the model it was started with)", ErrNoModel)
	}
	return "", rt.errorf("%w", ErrNoModel)
}

// version is the first the servers state of: vLLM's and SGLang's
// /version, llama.cpp's /props build_info, Ollama's /api/version (also
// for an OpenAI-kind runtime that is Ollama's /v1); nil where none does
// (LM Studio, mlx_lm.server).
func version(bodies map[string]json.RawMessage) *string {
	for _, t := range []struct{ path, field string }{{"/version", "version"}, {pathProps, "build_info"}, {pathOllamaVersion, "version"}} {
		var m map[string]any
		if json.Unmarshal(bodies[t.path], &m) != nil {
			continue
		}
		if v, ok := m[t.field].(string); ok && v != "" {
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
// build_info, the default generation settings and the model's file; nil
// where there is no such endpoint. (Its chat template, often kilobytes,
// is left out.)
func props(body json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if body == nil || json.Unmarshal(body, &p) != nil {
		return nil
	}
	keep := map[string]json.RawMessage{}
	for _, k := range []string{"total_slots", "n_ctx", "build_info", "default_generation_settings", "model_path", "model_alias"} {
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

// Served is what a server says of the model it serves, normalized across
// servers; a nil field is one it does not say. It is the summary's
// model_metadata.<runtime>.served.
type Served struct {
	// Family is the model's architecture as the server names it, lower
	// case: Ollama's details.family, LM Studio's arch.
	Family *string `json:"family"`
	// Parameters is the model's size: Ollama's parameter_size ("8.2B"),
	// llama.cpp's /v1/models meta.n_params written the same way.
	Parameters *string `json:"parameters"`
	// Quantization is the weights' type: Ollama's quantization_level, LM
	// Studio's quantization, else read from the model's file or name
	// (GGUF types as Q4_K_M, MLX bits as "4-bit", NVFP4, AWQ, …).
	Quantization *string `json:"quantization"`
	// Format is the weights' format: "GGUF", "MLX" or "safetensors".
	Format *string `json:"format"`
	// Context is the context length in tokens the server states (see
	// Info.ContextLimit; LM Studio's loaded or max_context_length;
	// llama.cpp's n_ctx_train).
	Context *int `json:"context"`
}

// The formats of Served.Format.
const (
	FormatGGUF        = "GGUF"
	FormatMLX         = "MLX"
	FormatSafetensors = "safetensors"
)

// ServedOf reads Served for model from what Describe fetched (models:
// Info.Models). Each server says it its own way:
//
//   - Ollama: /api/show details (family, parameter_size,
//     quantization_level, format) and model_info <arch>.context_length;
//   - llama.cpp: /props model_path (the GGUF file, whose name carries the
//     quantization) and n_ctx, /v1/models meta (n_params, n_ctx_train);
//   - LM Studio: its /api/v0/models entry (arch, quantization,
//     compatibility_type "gguf" or "mlx", max_context_length);
//   - vLLM: /v1/models max_model_len, and the model's name (root);
//   - mlx_lm.server: /v1/models lists ids only (no owned_by): the format
//     and quantization only as the name states them (mlx-community's
//     "-4bit" is MLX 4-bit); a folder of Hugging Face safetensors, or a
//     generic OpenAI server that also leaves owned_by out, is of a format
//     not stated.
func ServedOf(models json.RawMessage, model string) Served {
	var m servedSources
	var s Served
	if len(models) == 0 || json.Unmarshal(models, &m) != nil {
		return s
	}
	entry := m.entry(model)
	s.fromShow(m.Show)
	s.fromLMStudio(m.LMStudio)
	if m.fromEntry(&s, entry) {
		setOnce(&s.Format, FormatGGUF)
	}
	names := m.names(entry, model)
	for _, n := range names {
		setOnce(&s.Quantization, QuantizationInName(n))
	}
	for _, n := range names {
		setOnce(&s.Format, formatInName(n))
	}
	if limit, _ := (Info{Models: models}).ContextLimit(model); limit > 0 && (s.Context == nil || m.LMStudio == nil) {
		s.Context = &limit
	}
	return s
}

// servedSources is what ServedOf reads of Info.Models: the /v1/models
// entries, and what Describe added beside them.
type servedSources struct {
	Data []struct {
		ID      string          `json:"id"`
		Root    string          `json:"root"`
		OwnedBy json.RawMessage `json:"owned_by"`
		Meta    *struct {
			NParams   float64 `json:"n_params"`
			NCtxTrain int     `json:"n_ctx_train"`
		} `json:"meta"`
	} `json:"data"`
	Props *struct {
		ModelPath string `json:"model_path"`
	} `json:"props"`
	Show     *ollamaShow     `json:"show"`
	LMStudio *lmstudioServed `json:"lmstudio"`
}

// ollamaShow is what ServedOf reads of Ollama's /api/show.
type ollamaShow struct {
	Details struct {
		Family            string `json:"family"`
		ParameterSize     string `json:"parameter_size"`
		QuantizationLevel string `json:"quantization_level"`
		Format            string `json:"format"`
	} `json:"details"`
	ModelInfo map[string]json.RawMessage `json:"model_info"`
}

// lmstudioServed is what ServedOf reads of LM Studio's /api/v0/models
// entry.
type lmstudioServed struct {
	Arch                string `json:"arch"`
	Quantization        string `json:"quantization"`
	CompatibilityType   string `json:"compatibility_type"`
	MaxContextLength    int    `json:"max_context_length"`
	LoadedContextLength int    `json:"loaded_context_length"`
}

// setOnce sets *p to v, trimmed, unless *p is set or v is blank: the
// first source to say a fact wins.
func setOnce(p **string, v string) {
	if v = strings.TrimSpace(v); *p == nil && v != "" {
		*p = &v
	}
}

// entry is the index of the model's /v1/models entry: by id, or the only
// one; -1 where there is none.
func (m servedSources) entry(model string) int {
	entry := -1
	for i, d := range m.Data {
		if d.ID == model || (entry < 0 && len(m.Data) == 1) {
			entry = i
		}
	}
	return entry
}

// names are the model's names, the most telling first: llama-server's
// model file, the entry's root and id, and the model as asked for.
func (m servedSources) names(entry int, model string) []string {
	var names []string
	if p := m.Props; p != nil && p.ModelPath != "" {
		names = append(names, p.ModelPath)
	}
	if entry >= 0 {
		names = append(names, m.Data[entry].Root, m.Data[entry].ID)
	}
	return append(names, model)
}

// fromShow sets what Ollama's /api/show says: family (or the
// architecture), parameters, quantization and format.
func (s *Served) fromShow(sh *ollamaShow) {
	if sh == nil {
		return
	}
	d := sh.Details
	setOnce(&s.Family, strings.ToLower(d.Family))
	if n, ok := ParseParameters(d.ParameterSize); ok && n > 0 {
		setOnce(&s.Parameters, strings.ToUpper(d.ParameterSize))
	}
	setOnce(&s.Quantization, NormalizeQuantization(d.QuantizationLevel))
	setOnce(&s.Format, normalizeFormat(d.Format))
	if a, ok := sh.ModelInfo["general.architecture"]; ok && s.Family == nil {
		var arch string
		if json.Unmarshal(a, &arch) == nil {
			setOnce(&s.Family, strings.ToLower(arch))
		}
	}
}

// fromLMStudio sets what LM Studio's entry says: architecture,
// quantization, format and context (loaded, else the most).
func (s *Served) fromLMStudio(l *lmstudioServed) {
	if l == nil {
		return
	}
	setOnce(&s.Family, strings.ToLower(l.Arch))
	setOnce(&s.Quantization, NormalizeQuantization(l.Quantization))
	setOnce(&s.Format, normalizeFormat(l.CompatibilityType))
	if n := cmp.Or(l.LoadedContextLength, l.MaxContextLength); n > 0 {
		s.Context = &n
	}
}

// fromEntry sets what the model's /v1/models entry says (llama.cpp's
// meta: parameters, and the training context where there is no /props),
// and reports whether the server is llama.cpp's: /props, meta
// or owned_by llamacpp.
func (m servedSources) fromEntry(s *Served, entry int) (llama bool) {
	llama = m.Props != nil
	if entry < 0 {
		return llama
	}
	d := m.Data[entry]
	if meta := d.Meta; meta != nil {
		llama = true
		if meta.NParams > 0 {
			setOnce(&s.Parameters, FormatParameters(meta.NParams))
		}
		if s.Context == nil && meta.NCtxTrain > 0 && m.Props == nil {
			n := meta.NCtxTrain
			s.Context = &n
		}
	}
	var owner string
	if json.Unmarshal(d.OwnedBy, &owner) == nil && owner == ServerLlamaCpp {
		llama = true
	}
	// No owned_by (mlx_lm.server's entries, but also other servers')
	// says nothing of the weights: mlx_lm.server also serves a Hugging
	// Face safetensors folder. Their format is the name's, or unknown.
	return llama
}

// quantInName finds a quantization in a model's name or file: a GGUF type
// (Q4_K_M, IQ4_XS, Q8_0, F16), MLX bits (4bit), or a scheme (NVFP4, AWQ,
// GPTQ, FP8), between separators.
var quantInName = regexp.MustCompile(`(?i)(?:^|[-.:/_ ])(I?Q[1-8](?:_[A-Z0-9]{1,2})*|BF16|FP16|F16|F32|FP8|NVFP4|MXFP4|AWQ|GPTQ(?:-INT[348])?|[2-8]-?BITS?)(?:$|[-.:/ ])`)

// QuantizationInName returns the quantization a model's name or file
// states, normalized (see NormalizeQuantization), or "".
func QuantizationInName(name string) string {
	all := quantInName.FindAllStringSubmatch(name, -1)
	if len(all) == 0 {
		return ""
	}
	return NormalizeQuantization(all[len(all)-1][1])
}

var bitsRE = regexp.MustCompile(`(?i)^([1-8])[-_ ]?bits?$`)

// NormalizeQuantization writes a quantization one way whatever the server:
// GGUF types and schemes upper case (q4_k_m → Q4_K_M, FP16 → F16), bits as
// "4-bit" (LM Studio's and mlx-community's "4bit"). "" and "unknown" are
// "".
func NormalizeQuantization(q string) string {
	q = strings.TrimSpace(q)
	switch strings.ToLower(q) {
	case "", "unknown", "n/a":
		return ""
	}
	if b := bitsRE.FindStringSubmatch(q); b != nil {
		return b[1] + "-bit"
	}
	q = strings.ToUpper(q)
	if q == "FP16" {
		q = "F16"
	}
	return q
}

// normalizeFormat names a format as Served.Format does.
func normalizeFormat(f string) string {
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "":
		return ""
	case "gguf":
		return FormatGGUF
	case "mlx":
		return FormatMLX
	case "safetensors":
		return FormatSafetensors
	}
	return strings.TrimSpace(f)
}

// formatInName is the format a model's name or file states: a .gguf file
// or a -GGUF repository, an mlx-community or -MLX one; else "".
func formatInName(name string) string {
	l := strings.ToLower(name)
	// The file's or repository's own name: a folder above it ("/tmp/
	// e2e-vllm-mlx.X/model") says nothing of the format.
	base := l[strings.LastIndex(l, "/")+1:]
	switch {
	case strings.HasSuffix(base, ".gguf") || strings.Contains(base, "-gguf") || strings.Contains(base, "_gguf"):
		return FormatGGUF
	case strings.HasPrefix(l, "mlx-community/") || strings.Contains(base, "-mlx"):
		return FormatMLX
	}
	return ""
}

// ParseParameters reads a parameter count written as Ollama writes it
// ("8.2B", "494.03M", "1.5T", or a plain number).
func ParseParameters(s string) (float64, bool) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "T"):
		mult, s = 1e12, strings.TrimSuffix(s, "T")
	case strings.HasSuffix(s, "B"):
		mult, s = 1e9, strings.TrimSuffix(s, "B")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1e3, strings.TrimSuffix(s, "K")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v * mult, true
}

// FormatParameters writes a parameter count as Ollama does: "8.2B",
// "494.03M".
func FormatParameters(n float64) string {
	switch {
	case n >= 1e12:
		return strconv.FormatFloat(n/1e12, 'f', 1, 64) + "T"
	case n >= 1e9:
		return strconv.FormatFloat(n/1e9, 'f', 1, 64) + "B"
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', 2, 64) + "M"
	}
	return strconv.FormatFloat(n, 'f', 0, 64)
}
