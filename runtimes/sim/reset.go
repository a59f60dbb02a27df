package sim

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The ways real servers offer to return to a known state: Ollama unloads
// the model, vLLM resets its prefix cache, llama-server erases a slot.

// refusalMessage is what an Ollama-kind refusal says.
const refusalMessage = "simulated refusal: this server does not unload its model (SIM_RESET=refuse)"

// ollamaLoad answers an /api/chat request without messages, as Ollama
// does: with keep_alive under a second it unloads the model (a reset),
// else it loads it. Either way one JSON object, whatever "stream" says.
func (s *Server) ollamaLoad(w http.ResponseWriter, r *http.Request, req *ollamaChatRequest) {
	d, set, err := keepAlive(req.KeepAlive)
	if err != nil {
		ollamaError(w, err)
		return
	}
	reason := "load"
	if set && d < time.Second {
		if s.cfg.refuses() {
			writeJSON(w, http.StatusInternalServerError, mustJSON(map[string]string{"error": refusalMessage}))
			return
		}
		s.reset(true)
		reason = "unload"
	} else {
		// Ollama answers once the model is loaded.
		now := time.Now()
		wait := s.state.use(now, numCtx(req.Options.NumCtx, s.cfg.ctxLen()), s.cfg.numCtxDefault(), s.cfg.LoadTime)
		if wait > 0 && s.clock.sleepUntil(r.Context(), newSleeper(), now.Add(wait)) != nil {
			s.abort()
			return
		}
	}
	b := fmt.Appendf(nil, `{"model":%s,"created_at":"`, mustJSON(s.cfg.replyModel(req.Model)))
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","message":{"role":"assistant","content":""},"done_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","done":true}`...)
	writeJSON(w, http.StatusOK, b)
}

// resetPrefixCache answers vLLM's POST /reset_prefix_cache: 200 with an
// empty body, the prompt cache and the degradation forgotten; with
// SIM_RESET=refuse 404, as vLLM outside its development mode.
func (s *Server) resetPrefixCache(w http.ResponseWriter, _ *http.Request) {
	if s.cfg.refuses() {
		writeJSON(w, http.StatusNotFound, []byte(`{"detail":"Not Found"}`))
		return
	}
	s.reset(false)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// slotAction answers llama-server's POST /slots/{id}?action=…: erase
// forgets the prompt cache and the degradation and says how many tokens
// the slot held; save and restore are refused as they need files. With
// SIM_RESET=refuse every action gets 501, as llama-server without
// --slot-save-path.
func (s *Server) slotAction(w http.ResponseWriter, r *http.Request) {
	if s.cfg.refuses() {
		llamaError(w, http.StatusNotImplemented, "This server does not support slots action. Start it with `--slot-save-path`", "not_supported_error")
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		llamaError(w, http.StatusBadRequest, "Invalid slot ID", "invalid_request_error")
		return
	}
	if r.URL.Query().Get("action") != "erase" {
		llamaError(w, http.StatusBadRequest, "Invalid action", "invalid_request_error")
		return
	}
	if id < 0 || id >= s.cfg.slotCount() {
		llamaError(w, http.StatusBadRequest, "Invalid slot ID", "invalid_request_error")
		return
	}
	n := s.reset(false)
	writeJSON(w, http.StatusOK, fmt.Appendf(nil, `{"id_slot":%d,"n_erased":%d}`, id, n))
}

// llamaError writes llama-server's error body.
func llamaError(w http.ResponseWriter, code int, msg, typ string) {
	writeJSON(w, code, mustJSON(map[string]any{"error": map[string]any{"code": code, "message": msg, "type": typ}}))
}
