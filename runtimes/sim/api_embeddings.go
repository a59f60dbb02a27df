package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Embeddings, not streamed: POST /v1/embeddings {"model","input"} (a
// string or a list of them) answers {"object":"list","data":[{"object":
// "embedding","embedding":[…],"index":i},…],"model","usage":{
// "prompt_tokens","total_tokens"}}; Ollama's POST /api/embed answers
// {"model","embeddings":[[…],…],"total_duration","load_duration",
// "prompt_eval_count"}. Each embedding has EmbedDims numbers drawn from
// its input's text and SIM_TEXT_SEED (another seed is another model: every
// vector changes). The reply goes out SIM_TTFT after the request
// arrived, plus its inputs' tokens at SIM_PREFILL_TPS when that is set;
// embeddings take no slot.

// EmbedDims is the length of the simulator's embeddings.
const EmbedDims = 8

func (s *Server) embeddings(ollama bool) http.HandlerFunc {
	fail := openaiFail
	if ollama {
		fail = func(w http.ResponseWriter, code int, err error) {
			writeJSON(w, code, mustJSON(map[string]string{"error": err.Error()}))
		}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		var req struct {
			Model string          `json:"model"`
			Input json.RawMessage `json:"input"`
		}
		if err := readJSON(w, r, &req); err != nil {
			fail(w, http.StatusBadRequest, err)
			return
		}
		inputs, err := embedInputs(req.Input)
		if err != nil {
			fail(w, http.StatusBadRequest, err)
			return
		}
		if s.cfg.unserved(req.Model) {
			fail(w, http.StatusNotFound, fmt.Errorf("model %q not found", req.Model))
			return
		}
		p := 0
		for _, in := range inputs {
			p += Tokens(in)
		}
		due := arrival.Add(s.cfg.TTFT)
		if rate := s.cfg.PrefillTPS; rate > 0 {
			due = due.Add(time.Duration(math.Min(float64(p)*1e9/rate, float64(maxOffset))))
		}
		if s.clock.sleepUntil(r.Context(), newSleeper(), due) != nil {
			return
		}
		writeJSON(w, http.StatusOK, embedReply(s.cfg.replyModel(req.Model), inputs, s.cfg.TextSeed, p, ollama, time.Since(arrival)))
	}
}

// embedInputs are the texts of an "input": a string, or a non-empty list
// of them.
func embedInputs(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, errors.New(`"input" must be a string or a non-empty list of strings`)
	}
	return list, nil
}

// embedReply is the body of the reply to inputs, p tokens in all, their
// vectors seeded by each input's text and textSeed (SIM_TEXT_SEED), as
// replies' words are (lastSeed).
func embedReply(model string, inputs []string, textSeed uint64, p int, ollama bool, took time.Duration) []byte {
	b := []byte(`{"model":`)
	b = append(b, mustJSON(model)...)
	if ollama {
		b = append(b, `,"embeddings":[`...)
	} else {
		b = append(b, `,"object":"list","data":[`...)
	}
	for i, in := range inputs {
		if i > 0 {
			b = append(b, ',')
		}
		if !ollama {
			b = append(b, `{"object":"embedding","index":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"embedding":`...)
		}
		b = appendVector(b, replySeed(in)^textSeed*0x9e3779b97f4a7c15)
		if !ollama {
			b = append(b, '}')
		}
	}
	if ollama {
		return fmt.Appendf(b, `],"total_duration":%d,"load_duration":0,"prompt_eval_count":%d}`, took.Nanoseconds(), p)
	}
	return fmt.Appendf(b, `],"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, p, p)
}

// appendVector appends the embedding of the text seeded seed: EmbedDims
// numbers in [-1, 1).
func appendVector(b []byte, seed uint64) []byte {
	b = append(b, '[')
	for i := range EmbedDims {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(mix(seed, i)>>11)/(1<<52)-1, 'g', 6, 64)
	}
	return append(b, ']')
}
