package sim

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// The endpoints an OpenAI-kind server has beside its chat, by SIM_FLAVOR:
// vLLM's /tokenize and /version, llama-server's /props, /slots and
// /tokenize, LM Studio's /api/v0/models; each one's /v1/models; and each
// one's context error.

// contextError answers an OpenAI-kind chat request whose prompt of p
// tokens and length of n do not fit in the context limit: 400 with vLLM's
// body, or llama-server's.
func (s *Server) contextError(w http.ResponseWriter, p, n, limit int) {
	if s.cfg.flavor() == FlavorLlamaCpp {
		llamaError(w, http.StatusBadRequest, "the request exceeds the available context size, try increasing it", "exceed_context_size_error")
		return
	}
	openaiError(w, fmt.Errorf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", limit, p+n, p, n))
}

// props answers llama-server's GET /props; its modalities say vision
// as llama-server started with --mmproj does (SIM_MODEL_VISION=on).
func (s *Server) props(w http.ResponseWriter, _ *http.Request) {
	n := s.cfg.ctxLen()
	writeJSON(w, http.StatusOK, mustJSON(map[string]any{
		"total_slots":                 s.cfg.slotCount(),
		"n_ctx":                       n,
		"build_info":                  s.cfg.version(),
		"default_generation_settings": map[string]any{"n_ctx": n},
		"model_path":                  s.cfg.listed(),
		"modalities":                  map[string]any{"vision": s.cfg.modelVision() == ModelVisionOn, "video": false, "audio": false},
	}))
}

// listSlots answers llama-server's GET /slots: one object a slot, those
// below the number of requests holding one processing.
func (s *Server) listSlots(w http.ResponseWriter, _ *http.Request) {
	running, _ := s.slots.counts()
	list := make([]any, s.cfg.slotCount())
	for i := range list {
		list[i] = map[string]any{"id": i, "id_task": -1, "n_ctx": s.cfg.ctxLen(), "is_processing": i < running}
	}
	writeJSON(w, http.StatusOK, mustJSON(list))
}

// vllmTokenize answers vLLM's POST /tokenize: {"model","prompt"} counts
// the prompt's tokens, {"model","messages"} the chat's with the template
// applied (what a chat request's prompt_tokens says).
func (s *Server) vllmTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prompt   *string   `json:"prompt"`
		Messages []message `json:"messages"`
	}
	if err := readJSON(w, r, &req); err != nil {
		openaiError(w, err)
		return
	}
	var ids []int
	switch {
	case req.Prompt != nil:
		ids = appendTextIDs([]int{}, *req.Prompt)
	case req.Messages != nil:
		msgs, err := chatMessages(req.Messages)
		if err != nil {
			openaiError(w, err)
			return
		}
		ids = appendChatIDs(nil, msgs)
	default:
		openaiError(w, errors.New(`want "prompt" or "messages"`))
		return
	}
	writeJSON(w, http.StatusOK, mustJSON(map[string]any{"count": len(ids), "max_model_len": s.cfg.ctxLen(), "tokens": ids}))
}

// llamaTokenize answers llama-server's POST /tokenize: the tokens of
// content, after a BOS token when add_special is true.
func (s *Server) llamaTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content    string `json:"content"`
		AddSpecial bool   `json:"add_special"`
	}
	if err := readJSON(w, r, &req); err != nil {
		llamaError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	ids := []int{}
	if req.AddSpecial {
		ids = append(ids, bosID)
	}
	writeJSON(w, http.StatusOK, mustJSON(map[string]any{"tokens": appendTextIDs(ids, req.Content)}))
}

// modelsEntry is the model's entry in GET /v1/models, in the flavor's
// shape: vLLM's (owned_by, root, max_model_len) by default; llama-server's
// with its meta (n_params, n_ctx_train, …); LM Studio's; mlx_lm.server's,
// an id and no owner; Ollama's, owned_by "library".
func (s *Server) modelsEntry() map[string]any {
	model, created := s.cfg.listed(), s.started.Unix()
	if spec := flavorSpecs[s.cfg.flavor()]; spec.modelsEntry != nil {
		return spec.modelsEntry(s)
	}
	switch s.cfg.flavor() {
	case FlavorLlamaCpp:
		return map[string]any{
			"id": model, "object": "model", "created": created, "owned_by": "llamacpp",
			"meta": map[string]any{
				"vocab_type": 2, "n_vocab": 32000, "n_ctx_train": s.cfg.ctxLen(), "n_embd": 1024,
				"n_params": Parameters, "size": Parameters / 2,
			},
		}
	case FlavorLMStudio:
		return map[string]any{"id": model, "object": "model", "owned_by": "organization_owner"}
	case FlavorMLX:
		return map[string]any{"id": model, "object": "model", "created": created}
	case FlavorOllama:
		return map[string]any{"id": model, "object": "model", "created": created, "owned_by": "library"}
	}
	return map[string]any{
		"id": model, "object": "model", "created": created, "owned_by": "sim",
		"root": model, "parent": nil, "max_model_len": s.cfg.ctxLen(),
		"permission": []any{},
	}
}

// emptyModels answers GET /v1/models as mlx_lm.server 0.32 does where its
// Hugging Face cache folder (~/.cache/huggingface/hub) does not exist
// (SIM_MODELS=empty): Python's http.server sends the status line and the
// headers, HTTP/1.0 and no Content-Length, then the scan of the cache
// raises and the connection closes. The client reads a 200 whose body is
// empty.
func emptyModels(w http.ResponseWriter, _ *http.Request) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (never so for this server): no body either way.
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	buf.WriteString("HTTP/1.0 200 OK\r\nServer: BaseHTTP/0.6 Python/3.12 (sim)\r\nDate: " + time.Now().UTC().Format(http.TimeFormat) +
		"\r\nContent-type: application/json\r\nAccess-Control-Allow-Origin: *\r\n\r\n")
	buf.Flush()
}

// lmstudioModelsBody is LM Studio's GET /api/v0/models: every model it
// has, here the one, loaded, with its quantization (SIM_QUANTIZATION) and
// compatibility_type ("mlx" for MLX bits such as "4bit", else "gguf").
func (s *Server) lmstudioModelsBody() []byte {
	q := s.cfg.quantization()
	compat := "gguf"
	if mlxBits.MatchString(q) {
		compat = "mlx"
	}
	return mustJSON(map[string]any{"object": "list", "data": []any{map[string]any{
		"id": s.cfg.listed(), "object": "model", "type": "llm", "publisher": "sim",
		"arch": "sim", "compatibility_type": compat, "quantization": q,
		"state": "loaded", "max_context_length": s.cfg.ctxLen(),
	}}})
}

// mlxBits matches MLX quantizations as LM Studio writes them: "4bit".
var mlxBits = regexp.MustCompile(`^[1-8]bit$`)
