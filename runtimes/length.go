package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// ContextLimit is the longest request, prompt and reply together in
// tokens, that the server says its model takes, read from what Describe
// fetched (Info.Models): vLLM's /v1/models max_model_len, llama-server's
// /props n_ctx of a slot, Ollama's /api/show model_info
// <architecture>.context_length (what the model was trained for; what
// Ollama uses is the num_ctx it is sent). Source names where the figure
// came from; 0 and "" where no server said.
func (info Info) ContextLimit(model string) (limit int, source string) {
	var m map[string]json.RawMessage
	if len(info.Models) == 0 || json.Unmarshal(info.Models, &m) != nil {
		return 0, ""
	}
	for _, s := range byOwnFirst() {
		if s.context == nil {
			continue
		}
		if n, src := s.context(m, model); n > 0 {
			return n, src
		}
	}
	return 0, ""
}

// propsContext is llama-server's context limit: n_ctx of /props is the
// total, shared among the slots; a request gets a slot's.
func propsContext(m map[string]json.RawMessage, _ string) (int, string) {
	var p struct {
		NCtx     int `json:"n_ctx"`
		Defaults struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if json.Unmarshal(m["props"], &p) != nil {
		return 0, ""
	}
	if p.Defaults.NCtx > 0 {
		return p.Defaults.NCtx, "/props default_generation_settings.n_ctx"
	}
	return p.NCtx, "/props n_ctx"
}

// showContext is Ollama's /api/show model_info <arch>.context_length.
func showContext(m map[string]json.RawMessage, _ string) (int, string) {
	var s struct {
		ModelInfo map[string]json.RawMessage `json:"model_info"`
	}
	if json.Unmarshal(m["show"], &s) != nil {
		return 0, ""
	}
	for k, v := range s.ModelInfo {
		var n int
		if strings.HasSuffix(k, ".context_length") && json.Unmarshal(v, &n) == nil && n > 0 {
			return n, "/api/show model_info " + k
		}
	}
	return 0, ""
}

// listContext is vLLM's /v1/models max_model_len of the model's entry
// (or the only one).
func listContext(m map[string]json.RawMessage, model string) (int, string) {
	var data []struct {
		ID          string `json:"id"`
		MaxModelLen int    `json:"max_model_len"`
	}
	_ = json.Unmarshal(m["data"], &data)
	for _, d := range data {
		if d.MaxModelLen > 0 && (d.ID == model || len(data) == 1) {
			return d.MaxModelLen, "/v1/models max_model_len"
		}
	}
	return 0, ""
}

// ErrNoTokenize is Tokenize's error for a server without a tokenize
// endpoint (Ollama, LM Studio, mlx_lm.server).
var ErrNoTokenize = errors.New("the server has no tokenize endpoint")

// Tokenize returns how many tokens the server's tokenizer makes of text,
// without special tokens or a chat template: llama-server's POST /tokenize
// {"content"} or vLLM's and SGLang's POST /tokenize {"model","prompt"}.
// ErrNoTokenize where the server has neither.
func (rt *Runtime) Tokenize(ctx context.Context, text string) (int, error) {
	if !rt.Protocol().Tokenize {
		return 0, ErrNoTokenize
	}
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	var body []byte
	llama := rt.slotCount(ctx) > 0
	if llama {
		body, _ = json.Marshal(map[string]any{"content": text, "add_special": false})
	} else {
		body, _ = json.Marshal(map[string]any{"model": rt.Model, "prompt": text, "add_special_tokens": false})
	}
	reply, err := rt.get(ctx, http.MethodPost, "/tokenize", body)
	if err != nil {
		if notServed(err) {
			return 0, ErrNoTokenize
		}
		return 0, rt.errorf("%w", err)
	}
	var r struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if json.Unmarshal(reply, &r) != nil || (r.Count == nil && r.Tokens == nil) {
		return 0, ErrNoTokenize
	}
	if r.Count != nil {
		return *r.Count, nil
	}
	return len(r.Tokens), nil
}
