package sim

import "net/http"

// FlavorTGI plays Hugging Face's text-generation-inference through its
// OpenAI-compatible chat (its Messages API): GET /info (model_id,
// version, max_input_tokens, max_total_tokens, …), GET /v1/models in its
// shape (owned_by the model's id), GET /metrics in its names
// (metrics_tgi.go); no Ollama endpoints, no reset, no tokenize of vLLM's
// or llama-server's shape.
const FlavorTGI Flavor = "tgi"

func init() {
	addFlavor(FlavorTGI, flavorSpec{
		noOllama: true,
		routes: func(s *Server, mux *http.ServeMux) {
			mux.HandleFunc("GET /info", s.fixed(s.tgiInfoBody()))
		},
		modelsEntry: func(s *Server) map[string]any {
			model := s.cfg.listed()
			return map[string]any{"id": model, "object": "model", "created": s.started.Unix(), "owned_by": model}
		},
		metrics: func(s *Server) http.HandlerFunc { return s.serveTGIMetrics },
	})
}

// tgiInfoBody is text-generation-inference's GET /info: the router's
// settings and version (SIM_VERSION), the context as max_total_tokens
// (SIM_CONTEXT) and, as its launcher sets it by default, one token less
// for the input.
func (s *Server) tgiInfoBody() []byte {
	n := s.cfg.ctxLen()
	return mustJSON(map[string]any{
		"model_id": s.cfg.listed(), "model_sha": nil, "model_pipeline_tag": "text-generation",
		"max_concurrent_requests": 128, "max_best_of": 2, "max_stop_sequences": 4,
		"max_input_tokens": n - 1, "max_total_tokens": n,
		"validation_workers": 2, "max_client_batch_size": 4,
		"router": "text-generation-router", "version": s.cfg.version(), "sha": nil, "docker_label": nil,
	})
}
