package driver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// ClassSizing is the class of a leaf run that could not run because its
// in<N> prompt could not be sized for its runtime, counted once per leaf
// run in its row (see summary.Run.AddNotRun).
const ClassSizing runtimes.Class = "sizing"

// maxCalibrations bounds the requests that size one in<N> prompt for one
// runtime.
const maxCalibrations = 6

// size is how an in<N> prompt was sized for a runtime: the words of the
// generated text (prompts.Words) whose request the server counts as N
// prompt tokens, chat template and cold marker included.
type size struct {
	Words int
	// Tokens is the server's count of the last request sent at Words
	// (tokenize: its count plus the template's overhead).
	Tokens int
	// Method is "tokenize" (the server's tokenize endpoint, and one
	// request for the template's overhead) or "requests" (calibration
	// requests, max_tokens 1, and the counts they report).
	Method   string
	Requests int // calibration requests sent
	err      error
}

// tolerance is how far a sized prompt's count may be from n: 1% or 4
// tokens, whichever is larger.
func tolerance(n int) int { return max(4, n/100) }

// SharedPrefixName is the name the shared prefix (BENCH_SHARED_PREFIX) is
// sized under, in runtimes[].input_sizes and in its calibration records.
const SharedPrefixName = "shared-prefix"

// prefixPrompt is the user message of the requests that size the shared
// prefix: a real, short one, as an empty message may get an empty reply.
const prefixPrompt = "Go on."

// inputText returns the text of prompt p for rt: p's text, or for an
// in<N> prompt the generated text sized for rt, sizing it on first use.
func (d *Driver) inputText(ctx context.Context, rt *runtimes.Runtime, p prompts.Prompt) (string, error) {
	if p.InputTokens == 0 {
		return p.Text, nil
	}
	return d.sized(ctx, rt, p, false)
}

// sharedPrefix returns the system message every request on rt begins
// with: the generated text sized so that a request of it and a short
// user message (prefixPrompt) counts BENCH_SHARED_PREFIX tokens; "" for
// none.
func (d *Driver) sharedPrefix(ctx context.Context, rt *runtimes.Runtime) (string, error) {
	if d.Settings.SharedPrefix == 0 {
		return "", nil
	}
	return d.sized(ctx, rt, prompts.Prompt{Name: SharedPrefixName, InputTokens: d.Settings.SharedPrefix}, true)
}

// sized returns the generated text of p sized for rt, sizing it on first
// use: as a prompt, or (system) as a system message.
func (d *Driver) sized(ctx context.Context, rt *runtimes.Runtime, p prompts.Prompt, system bool) (string, error) {
	if d.sizes == nil {
		d.sizes = map[string]map[string]*size{}
	}
	byPrompt := d.sizes[rt.Name]
	if byPrompt == nil {
		byPrompt = map[string]*size{}
		d.sizes[rt.Name] = byPrompt
	}
	s := byPrompt[p.Name]
	if s == nil {
		s = d.size(ctx, rt, p, system)
		byPrompt[p.Name] = s
		if s.err == nil {
			d.logf("%s: %s sized to %d words of generated text, %d prompt tokens by the server's count (%s, %d calibration requests)",
				rt.Name, p.Name, s.Words, s.Tokens, s.Method, s.Requests)
			d.Run.SetInputSize(rt.Name, p.Name, summary.InputSize{Words: s.Words, PromptTokens: s.Tokens, Method: s.Method, CalibrationRequests: s.Requests})
		}
	}
	if s.err != nil {
		return "", s.err
	}
	return prompts.Words(s.Words), nil
}

// size finds the words of generated text that make p's requests N prompt
// tokens on rt (system: requests of the text as a system message and
// prefixPrompt). With a tokenize endpoint it searches by the server's
// token counts, and one request gives what the chat template adds;
// elsewhere each step is a calibration request of max_tokens 1, at most
// maxCalibrations. Either way the count is a line through the last two
// points, (words, tokens), solved for N (a secant search): the count grows
// with the words about linearly.
func (d *Driver) size(ctx context.Context, rt *runtimes.Runtime, p prompts.Prompt, system bool) *size {
	n := p.InputTokens
	s := &size{Method: "requests"}
	// A calibration request is a real request of the leaf's shape (the
	// marker in cold mode) with one output token; each is recorded.
	seq := 0
	count := func(words int) (int, error) {
		seq++
		s.Requests++
		req := d.request(prompts.Prompt{Name: p.Name, Text: prompts.Words(words)})
		if system {
			req.System, req.Prompt = req.Prompt, prefixPrompt
		}
		// An in<N> prompt is N tokens of text: the images (BENCH_IMAGES)
		// come on top, so they are not sent to count it.
		req.MaxTokens, req.Images = 1, nil
		if req.NumCtx > 0 {
			// Room to count N tokens, even when BENCH_NUM_CTX is
			// smaller: then the leaf's requests are cut, and counted so.
			req.NumCtx = max(req.NumCtx, n+d.Settings.MaxTokens)
		}
		if d.cold() && !system {
			m := prompts.Marker{Run: d.Run.ID, Salt: d.Run.CreatedAt.UnixNano(), Leaf: 0, Round: seq, Request: 0}
			req.Prompt = prompts.Cold(req.Prompt, m)
		}
		res := rt.Do(ctx, req)
		res.Conversation, res.Turn = d.nextConversation(), 1
		k := bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p.Name}
		recs := records.OfRound(k, 0, seq, false, d.Run.CreatedAt, []runtimes.Result{res}, records.Keep{})
		recs[0].Calibration = true
		if err := d.files.appendRecords(recs); err != nil {
			d.logf("writing request records to "+envOutputDir+"=%q: %v", d.Settings.OutputDir, err)
		}
		switch {
		case res.Err != nil:
			return 0, res.Err
		case res.PromptTokens <= 0:
			return 0, fmt.Errorf("it reports no prompt token count")
		}
		return res.PromptTokens, nil
	}
	// With a tokenize endpoint: the template's overhead from one
	// request, then the text's tokens from the endpoint.
	probe := max(16, n/8)
	marker := ""
	if d.cold() && !system {
		marker = prompts.Marker{Run: d.Run.ID, Salt: d.Run.CreatedAt.UnixNano()}.String() + "\n"
	}
	if t, err := rt.Tokenize(ctx, marker+prompts.Words(probe)); err == nil {
		got, err := count(probe)
		if err != nil {
			s.err = sizingError(rt, p, s, err)
			return s
		}
		overhead := got - t
		s.Method = "tokenize"
		tokens := func(words int) (int, error) {
			t, err := rt.Tokenize(ctx, marker+prompts.Words(words))
			return t + overhead, err
		}
		s.Words, s.Tokens, s.err = secant(n, probe, got, tokens, 12)
		if s.err != nil {
			s.err = sizingError(rt, p, s, s.err)
		}
		return s
	} else if !errors.Is(err, runtimes.ErrNoTokenize) {
		d.logf("%v; sizing %s with calibration requests instead", err, p.Name)
	}
	first, err := count(probe)
	if err != nil {
		s.err = sizingError(rt, p, s, err)
		return s
	}
	s.Words, s.Tokens, err = secant(n, probe, first, count, maxCalibrations-1)
	if err != nil {
		s.err = sizingError(rt, p, s, err)
	}
	return s
}

// secant searches for the words w whose count(w) is n, from a first
// point (w0, c0), with at most steps more counts; it returns the words and
// their count. It stops at a count within half the tolerance: the leaf's
// requests, whose cold markers differ from the calibration's, may count a
// token or two more or less, and a size at the tolerance's edge would then
// fall outside it (a tokenizer that makes several tokens of a word may
// leave no closer count). When no count comes that close, or the search
// comes back to words it tried (the count jumps over n between two
// neighbours), it returns the closest count within the tolerance.
func secant(n, w0, c0 int, count func(int) (int, error), steps int) (int, int, error) {
	if c0 <= 0 {
		return 0, 0, errors.New("a count of 0 tokens")
	}
	tol := tolerance(n)
	aim := tol / 2
	bestW, bestC := w0, c0
	if abs(c0-n) <= aim {
		return w0, c0, nil
	}
	// The first step assumes the count is proportional to the words: the
	// template's overhead then makes it too short, which is safe (never
	// past a context the run was checked against).
	w1 := min(max(1, int(math.Round(float64(w0)*float64(n)/float64(c0)))), n)
	tried := map[int]bool{w0: true}
	said := []string{fmt.Sprintf("%d words: %d tokens", w0, c0)}
	for range steps {
		if tried[w1] {
			break
		}
		tried[w1] = true
		c1, err := count(w1)
		if err != nil {
			return 0, 0, err
		}
		said = append(said, fmt.Sprintf("%d words: %d tokens", w1, c1))
		if abs(c1-n) < abs(bestC-n) {
			bestW, bestC = w1, c1
		}
		if abs(c1-n) <= aim {
			return w1, c1, nil
		}
		var next int
		if c1 != c0 && w1 != w0 {
			slope := float64(c1-c0) / float64(w1-w0)
			next = int(math.Round(float64(w1) + float64(n-c1)/slope))
		} else {
			next = int(math.Round(float64(w1) * float64(n) / float64(c1)))
		}
		// A step at most doubles or halves the words, and no text has
		// more words than tokens: a count that stopped growing (a server
		// that cuts the prompt) must not send the search off to millions
		// of words.
		next = min(max(next, w1/2, 1), 2*w1, n)
		if next == w1 {
			// A word more or less: the count moved by more than the
			// aim per word.
			if c1 < n {
				next++
			} else {
				next--
			}
		}
		w0, c0, w1 = w1, c1, next
	}
	if abs(bestC-n) <= tol {
		return bestW, bestC, nil
	}
	return 0, 0, fmt.Errorf("the count did not come within %d tokens (%s)", tol, strings.Join(said, "; "))
}

func sizingError(rt *runtimes.Runtime, p prompts.Prompt, s *size, err error) error {
	if p.Name == SharedPrefixName {
		return fmt.Errorf("%s (%s): cannot size the shared prefix to "+envSharedPrefix+"=%d tokens after %d calibration requests (%s): %w; no leaf runs on %s",
			rt.Name, rt.BaseURL, p.InputTokens, s.Requests, s.Method, err, rt.Name)
	}
	return fmt.Errorf("%s (%s): cannot size prompt %s to %d tokens after %d calibration requests (%s): %w; no leaf of it runs on %s",
		rt.Name, rt.BaseURL, p.Name, p.InputTokens, s.Requests, s.Method, err, rt.Name)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
