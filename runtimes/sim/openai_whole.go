package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// The OpenAI chat with "stream": false: one chat.completion object when
// the reply's last token is due, its whole text in choices[0].message
// (the reasoning in the flavor's reasoning field), its log-probabilities,
// if asked for, in choices[0].logprobs.content, and the usage. As
// mlx_lm.server 0.32, which gives log-probabilities in such a reply only,
// never in a stream. A request with tools must stream; of the faults only
// the HTTP statuses apply (admit answers them).

// errWholeTools refuses an unstreamed chat request with tools.
var errWholeTools = errors.New(`the simulator streams replies to requests with tools: set "stream": true`)

// openaiWhole answers an admitted "stream": false chat request with rep,
// at its end.
func (s *Server) openaiWhole(w http.ResponseWriter, r *http.Request, rep *reply) {
	if s.begin(r, rep) != nil {
		s.abort()
		return
	}
	defer s.finish(rep)
	due := rep.pace.due(rep.m)
	if err := s.clock.sleepUntil(r.Context(), newSleeper(), due); err != nil {
		s.abort()
		return
	}
	rep.endDue = due
	writeJSON(w, http.StatusOK, s.wholeBody(rep))
	if http.NewResponseController(w).Flush() == nil {
		rep.ended, rep.end = true, time.Now()
		if rep.m > 0 {
			rep.sent, rep.first = rep.m, rep.pace.due(0)
		}
	}
}

// wholeBody is the chat.completion object of rep.
func (s *Server) wholeBody(rep *reply) []byte {
	b := fmt.Appendf(nil, `{"id":"chatcmpl-%016x","object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,"message":{"role":"assistant","content":`,
		rand.Uint64(), rep.arrival.Unix(), mustJSON(rep.model))
	b = appendTokens(b, rep, rep.think, rep.m, -1)
	if rep.think > 0 {
		b = append(b, `,"`...)
		b = append(b, s.cfg.reasoningField()...)
		b = append(b, `":`...)
		b = appendTokens(b, rep, 0, rep.think, -1)
	}
	b = append(b, `},"logprobs":`...)
	if rep.top >= 0 {
		b = append(b, `{"content":`...)
		b = rep.appendLogprobs(b, 0, rep.m, rep.top)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"finish_reason":"`...)
	b = append(b, rep.reason...)
	b = append(b, `"}],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(rep.p), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(rep.m), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(rep.p+rep.m), 10)
	return append(b, "}}"...)
}
