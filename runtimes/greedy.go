package runtimes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Greedy replies: one untimed request at temperature 0 whose reply is
// kept with, where the server gives them, each token's log-probability
// and its top alternatives, for comparing a runtime's answers with a
// reference's (issue 49). They are streamed, as every request of the
// suite is: the same readers then classify a broken stream, and
// Config.IdleTimeout bounds a server that stops in the middle; but not
// to a server that gives log-probabilities only unstreamed
// (mlx_lm.server: greedy_whole.go), where Config.Timeout alone bounds
// the wait. Token texts written as a tokenizer's pieces ("▁by") are
// decoded into text where that makes the reply's text (decodePieces).
//
// What is asked, in each API:
//   - OpenAI chat completions (the chat of an OpenAI-kind runtime, and
//     BENCH_API=responses or messages, whose servers give no
//     log-probabilities there): "logprobs": true, "top_logprobs": k; the
//     reply's choices[].logprobs.content[] per chunk.
//   - OpenAI completions (BENCH_API=completions): "logprobs": k (at least
//     1, as Ollama's /v1 turns log-probabilities on only for k > 0); the
//     reply's choices[].logprobs in the legacy shape (tokens,
//     token_logprobs, top_logprobs as objects: vLLM, llama-server) or the
//     chat's content[] (the field of Ollama's completion chunks, which
//     0.17.4 never fills: its /v1/completions drops them, seen on the
//     real server).
//   - Ollama's /api/chat: "logprobs": true, "top_logprobs": k; a top-level
//     "logprobs" array in each line (Ollama ≥ 0.12.11; earlier versions
//     ignore the fields and answer without it).
//
// A server that ignores the fields (LM Studio, Ollama before 0.12.11)
// answers with the text alone: Greedy.Logprobs is false, no error. The
// log-probabilities of reasoning tokens are left out: Tokens are the
// answer's, as Text is.

// Greedy is one untimed temperature-0 reply with, where the server gives
// them, each token's log-probability and its top alternatives.
type Greedy struct {
	Text string // the whole reply text (the answer; reasoning left out)
	// Tokens are one per generated token, in order; empty when Logprobs
	// is false. Their texts are the server's token texts: they
	// concatenate to Text where the server's token texts are whole
	// characters (a token cut inside a UTF-8 character is the server's
	// own rendering of it).
	Tokens []TokenProb
	// Logprobs: the server returned log-probabilities (false: it ignored
	// the request's fields, e.g. Ollama < 0.12.11, LM Studio).
	Logprobs bool
	Finish   string // the server's finish reason where stated ("stop", "length")
	// TopK is the number of alternatives asked for: the caller's topK,
	// capped at TopLogprobsCap.
	TopK int
	// NotTop counts the tokens that are not the first of their own Top:
	// the server's sampler chose another word than its most likely, as
	// its penalties do (the log-probabilities are the model's, before
	// them). Greedy turns Ollama's repeat_penalty off on its native API;
	// elsewhere a server's default or configured penalties apply (on
	// Ollama 0.17.4's /v1 with a Modelfile's repeat_penalty 1.5, 10 of 32
	// tokens; at 1, none). 0 without alternatives.
	NotTop int
}

// TokenProb is one generated token: its text, its log-probability and
// the server's top-k at its position, most likely first (which may
// include the token itself). Top has at most Greedy.TopK entries.
type TokenProb struct {
	Text    string
	LogProb float64
	Top     []TopProb
}

// TopProb is one of the alternatives at a position.
type TopProb struct {
	Text    string
	LogProb float64
}

// GreedySeed is the seed a greedy request sends where the API takes one,
// so that a server that samples even at temperature 0 answers alike.
const GreedySeed = 1

// MaxTopLogprobs is the most alternatives a greedy request asks of a
// server that states no lower bound: vLLM's default --max-logprobs and
// Ollama's upper bound (it refuses top_logprobs above 20).
const MaxTopLogprobs = 20

// topLogprobsCaps are the servers that refuse fewer than MaxTopLogprobs:
// mlx_lm.server 0.32.2 takes at most 11 ("top_logprobs must be at most
// 11", seen on the real server), TGI at most its --max-top-n-tokens (5
// by default).
var topLogprobsCaps = map[string]int{ServerMLX: 11, ServerTGI: 5}

// serverIs reports whether rt's server, once known, is one of set's.
func (rt *Runtime) serverIs(set map[string]bool) bool {
	s := rt.server.Load()
	return s != nil && set[s.Name]
}

// TopLogprobsCap is the most alternatives a greedy request asks of rt's
// server: its bound where known (topLogprobsCaps), else MaxTopLogprobs.
// A server that refuses as many, saying how many it takes (topBounds), is
// asked again for those.
func (rt *Runtime) TopLogprobsCap() int {
	if s := rt.server.Load(); s != nil {
		if c, ok := topLogprobsCaps[s.Name]; ok {
			return c
		}
	}
	return MaxTopLogprobs
}

// Greedy asks rt for a greedy reply of at most maxTokens tokens to
// prompt, with the topK most likely alternatives at each position
// (capped at TopLogprobsCap; 0: the chosen token's log-probability
// alone). It is GreedyRequest of a request of the prompt alone.
func (rt *Runtime) Greedy(ctx context.Context, prompt string, maxTokens, topK int) (Greedy, error) {
	return rt.GreedyRequest(ctx, Request{Prompt: prompt, MaxTokens: maxTokens}, topK)
}

// GreedyRequest sends req as a greedy request: req as a timed request
// would be sent (its system message, history, num_ctx, ignore_eos, keep
// alive), at temperature 0 with GreedySeed, asking the topK alternatives
// of each token; on Ollama's API with repeat_penalty 1
// (greedyOllamaOptions). An error is a *RequestError naming the runtime
// and its URL, or one naming the bad argument.
func (rt *Runtime) GreedyRequest(ctx context.Context, req Request, topK int) (Greedy, error) {
	if req.MaxTokens < 1 {
		return Greedy{}, fmt.Errorf("greedy request to %s: maxTokens is %d, want at least 1", rt.Name, req.MaxTokens)
	}
	if topK < 0 {
		return Greedy{}, fmt.Errorf("greedy request to %s: topK is %d, want 0 or more", rt.Name, topK)
	}
	if rt.API == APIEmbeddings {
		return Greedy{}, fmt.Errorf("greedy request to %s: its API is %s, which generates no text", rt.Name, rt.API)
	}
	k := min(topK, rt.TopLogprobsCap())
	kAsk, top := k, rt.serverIs(topIsToken)
	if top {
		kAsk = max(k, 1)
	}
	seed := GreedySeed
	req.Temperature, req.Seed, req.KeepText, req.HTTPTrace = 0, &seed, true, false
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if rt.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, rt.timeout, errRequestTimeout)
		defer stop()
	}
	g := &greedyReader{k: kAsk, completions: rt.API == APICompletions, kind: rt.Kind}
	read, whole := g.read, rt.greedyUnstreamed()
	if whole {
		read = g.readWhole
	}
	var res Result
	if hreq, err := rt.greedyHTTP(ctx, req, kAsk, whole); err != nil {
		res.Err = &failure{class: ClassOther, msg: err.Error(), err: err}
	} else {
		res = rt.stream(ctx, cancel, limits{rt.timeout, rt.idleTimeout}, hreq, read, req)
	}
	if res.Err != nil {
		if most, ok := refusedTop(res.Err); ok && most < k {
			return rt.GreedyRequest(ctx, req, most) // as many as it takes
		}
		if !whole && rt.API == APICompletions && mlxRefusal(res.Err) && rt.becomeMLX() {
			return rt.GreedyRequest(ctx, req, topK) // once more, as mlx_lm.server is asked
		}
		return Greedy{}, &RequestError{Runtime: rt.Name, URL: rt.BaseURL, Class: ErrorClass(res.Err), msg: rt.redact("greedy request: " + res.Err.Error()), err: res.Err}
	}
	if !whole && len(g.tokens) == 0 && rt.learnMLX(res.Fingerprint) {
		return rt.GreedyRequest(ctx, req, topK) // once more, as mlx_lm.server is asked
	}
	return g.greedy(res, k, top), nil
}

// topBounds are the servers' words when they refuse too many
// alternatives, the most they take in the group: mlx_lm.server's
// "top_logprobs must be at most 11", Ollama's "top_logprobs must be
// between 0 and 20", vLLM's "… greater than max allowed: 20", the
// simulator's "top_logprobs=21: must be from 0 to 20".
var topBounds = regexp.MustCompile(`(?:logprobs must be at most|top_logprobs must be between 0 and|logprobs.* max allowed:|top_logprobs=\d+: must be from 0 to) (\d+)`)

// refusedTop is the most alternatives a server that refused a request
// for too many (an HTTP 400) says it takes.
func refusedTop(err error) (int, bool) {
	if ErrorClass(err) != ClassHTTP4xx {
		return 0, false
	}
	m := topBounds.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, false
	}
	n, convErr := strconv.Atoi(m[1])
	return n, convErr == nil && n >= 0
}

// learnMLX makes rt's server mlx_lm.server when it is not known yet and
// fp, a reply's system_fingerprint, is mlx_lm.server's (a runtime of
// another name, or the simulator's mlx flavor): true if it did.
func (rt *Runtime) learnMLX(fp string) bool {
	return FingerprintVersion(fp) != "" && rt.becomeMLX()
}

// becomeMLX makes rt's server mlx_lm.server if it is not known yet: true
// if it did.
func (rt *Runtime) becomeMLX() bool {
	s, ok := KnownServer(ServerMLX)
	return ok && rt.server.CompareAndSwap(nil, &s)
}

// mlxRefusal: a 400 in mlx_lm.server's words for a completions request's
// "logprobs": k ("logprobs must be of type bool", seen on the real
// server), which it takes as a boolean.
func mlxRefusal(err error) bool {
	return ErrorClass(err) == ClassHTTP4xx && strings.Contains(err.Error(), "logprobs must be of type bool")
}

// greedy is the Greedy of a reply read into res and g, k alternatives
// asked; top: each token is the first of its alternatives (topIsToken).
func (g *greedyReader) greedy(res Result, k int, top bool) Greedy {
	if top {
		topTokens(g.tokens)
	}
	decodePieces(g.tokens, res.Text)
	out := Greedy{Text: res.Text, Tokens: g.tokens, Logprobs: len(g.tokens) > 0, Finish: res.FinishReason, TopK: k}
	for i, t := range out.Tokens {
		if len(t.Top) > k {
			out.Tokens[i].Top = t.Top[:k]
		}
		if len(t.Top) > 0 && t.Top[0].Text != t.Text {
			out.NotTop++
		}
	}
	return out
}

// greedyHTTP builds the greedy request of req in rt's API, asking k
// alternatives; whole: not streamed (an OpenAI chat).
func (rt *Runtime) greedyHTTP(ctx context.Context, req Request, k int, whole bool) (*http.Request, error) {
	switch {
	case rt.API == APICompletions:
		if len(req.Tools) > 0 {
			return nil, errNoToolsAPI(APICompletions)
		}
		if whole {
			body := wholeCompletions{completionsRequest: rt.newCompletionsBody(req), Logprobs: true, TopLogprobs: k}
			body.Stream = false
			return rt.postJSON(ctx, APICompletions.Path(rt.Kind), body, "application/json")
		}
		body := struct {
			completionsRequest
			Logprobs int `json:"logprobs"`
		}{rt.newCompletionsBody(req), max(k, 1)}
		return rt.postJSON(ctx, APICompletions.Path(rt.Kind), body, "text/event-stream")
	case rt.Kind == KindOllama:
		if err := checkTools(req.Tools); err != nil {
			return nil, err
		}
		chat := newOllamaChatRequest(rt.Model, req)
		body := struct {
			ollamaChatRequest
			Options     greedyOllamaOptions `json:"options"` // chat.Options, shadowed
			Logprobs    bool                `json:"logprobs"`
			TopLogprobs int                 `json:"top_logprobs,omitempty"`
		}{chat, greedyOllamaOptions{chat.Options, 1}, true, k}
		return rt.postJSON(ctx, Ollama.Chat, body, "application/x-ndjson")
	}
	if err := checkTools(req.Tools); err != nil {
		return nil, err
	}
	body := newOpenAIChatRequest(rt.Model, req)
	body.LogProbs, body.TopLogProbs = true, k
	if whole {
		body.Stream, body.StreamOptions = false, nil
		return rt.postJSON(ctx, OpenAI.Chat, body, "application/json")
	}
	return rt.postJSON(ctx, OpenAI.Chat, body, "text/event-stream")
}

// greedyOllamaOptions are a greedy request's options on Ollama's API:
// the timed request's, and repeat_penalty 1, no penalty. Ollama applies
// its default 1.1 (or the Modelfile's) otherwise, and a reply then says
// other words than the model's most likely, which no other server does
// by default: on the project's random-weight model, llama-server's and
// Ollama 0.17.4's greedy replies to 20 prompts were the same 64 tokens
// at repeat_penalty 1 and none the same at the Modelfile's 1.5 (the first
// difference after 3.9 tokens on average). Ollama's /v1 takes no
// repeat_penalty: there Greedy.NotTop shows the penalty at work.
type greedyOllamaOptions struct {
	ollamaOptions
	RepeatPenalty float64 `json:"repeat_penalty"`
}

// greedyReader reads a greedy reply: the protocol's own parser fills the
// Result (text, finish reason, errors), and each line is decoded once
// more for its log-probabilities.
type greedyReader struct {
	k           int
	completions bool
	kind        Kind
	tokens      []TokenProb
}

func (g *greedyReader) read(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	var inner lineParser
	switch {
	case g.completions:
		p := &completionsParser{o: openAIParser{res: res, start: start}}
		p.apiSSE = apiSSE{res: res, start: start, data: p.event, end: "before data: [DONE]"}
		inner = p
	case g.kind == KindOllama:
		inner = &ollamaParser{res: res, start: start}
	default:
		inner = &openAIParser{res: res, start: start}
	}
	return readStream(r, start, now, res, &greedyParser{lineParser: inner, g: g})
}

// greedyParser is a protocol's parser that also keeps the
// log-probabilities of each line it accepted.
type greedyParser struct {
	lineParser
	g *greedyReader
}

func (p *greedyParser) feed(line []byte, t time.Time, partial bool) (bool, error) {
	done, err := p.lineParser.feed(line, t, partial)
	if err != nil {
		return done, err
	}
	data := line
	if p.g.kind != KindOllama || p.g.completions {
		d, ok := sseJSON(line)
		if !ok {
			return done, nil
		}
		data = d
	}
	toks, err := p.g.logprobs(data)
	if err != nil {
		return done, err
	}
	p.g.tokens = append(p.g.tokens, toks...)
	return done, nil
}

// sseJSON is the JSON of an SSE data: line, false for any other line and
// for data: [DONE].
func sseJSON(line []byte) ([]byte, bool) {
	if len(line) < len(sseData) || string(line[:len(sseData)]) != string(sseData) {
		return nil, false
	}
	data := trimSpace(line[len(sseData):])
	if len(data) == 0 || string(data) == string(sseDone) {
		return nil, false
	}
	return data, true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// logprobEntry is one token's log-probabilities in the chat's shape
// (OpenAI's choices[].logprobs.content[], Ollama's logprobs[]).
type logprobEntry struct {
	Token       string   `json:"token"`
	Logprob     *float64 `json:"logprob"`
	TopLogprobs []struct {
		Token   string   `json:"token"`
		Logprob *float64 `json:"logprob"`
	} `json:"top_logprobs"`
}

// legacyLogprobs is the completions API's older shape: parallel lists,
// each position's alternatives an object of token to log-probability.
type legacyLogprobs struct {
	Content       []logprobEntry       `json:"content"` // Ollama's /v1/completions
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// greedyLine is what a greedy reply's line may carry, in any of the
// three shapes.
type greedyLine struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			Reasoning        string `json:"reasoning"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"delta"`
		Logprobs *legacyLogprobs `json:"logprobs"`
	} `json:"choices"`
	Message struct {
		Content  string `json:"content"`
		Thinking string `json:"thinking"`
	} `json:"message"`
	Response string         `json:"response"`
	Thinking string         `json:"thinking"`
	Logprobs []logprobEntry `json:"logprobs"`
}

// logprobs are the answer tokens of one line's JSON, already accepted by
// the protocol's parser.
func (g *greedyReader) logprobs(data []byte) ([]TokenProb, error) {
	var l greedyLine
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fail(ClassMalformed, fmt.Sprintf("bad log-probabilities in %s: %s", quote(data), jsonError(err)))
	}
	var out []TokenProb
	if g.kind == KindOllama && !g.completions {
		if reasoningOnly(l.Message.Content+l.Response, l.Message.Thinking+l.Thinking) {
			return nil, nil
		}
		return g.entries(out, l.Logprobs)
	}
	for _, c := range l.Choices {
		if c.Logprobs == nil || reasoningOnly(c.Delta.Content, c.Delta.Reasoning+c.Delta.ReasoningContent) {
			continue
		}
		var err error
		if out, err = g.entries(out, c.Logprobs.Content); err != nil {
			return nil, err
		}
		if out, err = g.legacy(out, c.Logprobs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reasoningOnly: a chunk that carries reasoning and no answer, whose
// log-probabilities are the reasoning's.
func reasoningOnly(answer, reasoning string) bool { return answer == "" && reasoning != "" }

// entries appends es, in the chat's shape, to out.
func (g *greedyReader) entries(out []TokenProb, es []logprobEntry) ([]TokenProb, error) {
	for _, e := range es {
		lp, err := checkLogprob(e.Logprob, e.Token)
		if err != nil {
			return nil, err
		}
		t := TokenProb{Text: e.Token, LogProb: lp}
		for _, a := range e.TopLogprobs {
			alp, err := checkLogprob(a.Logprob, a.Token)
			if err != nil {
				return nil, err
			}
			t.Top = append(t.Top, TopProb{Text: a.Token, LogProb: alp})
		}
		out = append(out, g.sorted(t))
	}
	return out, nil
}

// legacy appends the legacy shape's tokens to out.
func (g *greedyReader) legacy(out []TokenProb, l *legacyLogprobs) ([]TokenProb, error) {
	if len(l.TokenLogprobs) != len(l.Tokens) || len(l.TopLogprobs) > len(l.Tokens) {
		return nil, fail(ClassMalformed, fmt.Sprintf("log-probabilities of %d tokens with %d values and %d top lists", len(l.Tokens), len(l.TokenLogprobs), len(l.TopLogprobs)))
	}
	for i, tok := range l.Tokens {
		lp, err := checkLogprob(l.TokenLogprobs[i], tok)
		if err != nil {
			return nil, err
		}
		t := TokenProb{Text: tok, LogProb: lp}
		if i < len(l.TopLogprobs) {
			for s, v := range l.TopLogprobs[i] {
				alp, err := checkLogprob(&v, s)
				if err != nil {
					return nil, err
				}
				t.Top = append(t.Top, TopProb{Text: s, LogProb: alp})
			}
		}
		out = append(out, g.sorted(t))
	}
	return out, nil
}

// sorted is t with its alternatives most likely first (ties by text, so
// that an object's order does not matter), at most k of them.
func (g *greedyReader) sorted(t TokenProb) TokenProb {
	slices.SortStableFunc(t.Top, func(a, b TopProb) int {
		if c := -cmpFloat(a.LogProb, b.LogProb); c != 0 {
			return c
		}
		if a.Text < b.Text {
			return -1
		}
		if a.Text > b.Text {
			return 1
		}
		return 0
	})
	if len(t.Top) > g.k {
		t.Top = t.Top[:g.k]
	}
	return t
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// logprobSlack is how far above 0 a log-probability may be and still be
// taken as 0: servers round (a probability of 1 computed in float32).
const logprobSlack = 1e-3

// checkLogprob is a token's log-probability, checked: present, a number,
// at most 0 (up to logprobSlack, then 0).
func checkLogprob(v *float64, token string) (float64, error) {
	switch {
	case v == nil:
		return 0, fail(ClassMalformed, fmt.Sprintf("token %q has no log-probability", token))
	case math.IsNaN(*v) || *v > logprobSlack:
		return 0, fail(ClassMalformed, fmt.Sprintf("token %q has log-probability %v, not a number at most 0", token, *v))
	}
	return min(*v, 0), nil
}
