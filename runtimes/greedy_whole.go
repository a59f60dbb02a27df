package runtimes

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Greedy replies of the servers that give log-probabilities only in a
// reply that is not streamed (mlx_lm.server 0.32: its streamed chunks
// carry none, server.py), and the token texts of the servers that write
// a tokenizer's pieces rather than text.

// unstreamedLogprobs are the servers whose greedy requests go
// unstreamed, as only such replies carry log-probabilities.
var unstreamedLogprobs = map[string]bool{ServerMLX: true}

// topIsToken are the servers whose entries' own token and logprob are
// not the token's: mlx_lm.server 0.32.2 writes as each entry the first
// of its top_logprobs (server.py, generate_response: dict(i[0],
// top_logprobs=i)), which are in argpartition's order, not sorted (seen
// on the real server: the entries said "@", "aa", "▁", "▁from" for the
// text "blaa  all"). Its token is taken as the most likely of its
// alternatives instead, the greedy choice (mlx_lm applies no penalty
// unless asked), so at least one alternative is asked for.
var topIsToken = map[string]bool{ServerMLX: true}

// topTokens sets each token as the first of its alternatives (sorted).
func topTokens(toks []TokenProb) {
	for i := range toks {
		if len(toks[i].Top) > 0 {
			toks[i].Text, toks[i].LogProb = toks[i].Top[0].Text, toks[i].Top[0].LogProb
		}
	}
}

// greedyUnstreamed reports whether rt's greedy requests go unstreamed.
func (rt *Runtime) greedyUnstreamed() bool {
	return rt.serverIs(unstreamedLogprobs) && rt.Kind == KindOpenAI
}

// wholeCompletions is an unstreamed greedy completions request, as
// mlx_lm.server takes it: "logprobs" a boolean (it refuses a number,
// "logprobs must be of type bool") and "top_logprobs" k, as in its chat.
type wholeCompletions struct {
	completionsRequest
	StreamOptions *struct{} `json:"stream_options,omitempty"` // none
	Logprobs      bool      `json:"logprobs"`
	TopLogprobs   int       `json:"top_logprobs"`
}

// wholeReply is the fields of an unstreamed chat completion, or
// completion, we use.
type wholeReply struct {
	Object  string   `json:"object"`
	Message string   `json:"message"`
	Error   apiError `json:"error"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		Text         string          `json:"text"` // a completion's
		Logprobs     *legacyLogprobs `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
	} `json:"choices"`
}

// readWhole reads an unstreamed chat completion, at most maxLineSize
// bytes, into res (its text, one chunk, its finish reason) and g's
// tokens.
func (g *greedyReader) readWhole(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	body, err := io.ReadAll(io.LimitReader(r, maxLineSize+1))
	t := now()
	res.Total = t.Sub(start)
	switch {
	case err != nil:
		return err // stream() says "reading the stream"
	case len(body) > maxLineSize:
		return fail(ClassMalformed, fmt.Sprintf("reply longer than %d MiB", maxLineSize>>20))
	}
	var w wholeReply
	if err := json.Unmarshal(body, &w); err != nil {
		return fail(ClassMalformed, fmt.Sprintf("bad reply %s: %s", quote(body), jsonError(err)))
	}
	if w.Error.set || w.Object == "error" {
		return fail(ClassStreamError, "error in reply: "+serverMessage(body))
	}
	for _, c := range w.Choices {
		c.Message.Content += c.Text
		answerText(res, c.Message.Content)
		if c.FinishReason != "" {
			res.FinishReason = c.FinishReason
		}
		if c.Logprobs != nil {
			if g.tokens, err = g.entries(g.tokens, c.Logprobs.Content); err != nil {
				return err
			}
		}
		if c.Message.Content != "" {
			textChunk(res, start, t, true)
		}
	}
	approxTokens(res)
	return nil
}

// The renderings of token texts other than text that servers write:
// SentencePiece's pieces ("▁" for a space, "<0x0A>" for a byte) and
// byte-level BPE's (GPT-2's: each byte a printable character, "Ġ" for a
// space, "Ċ" for a newline), as mlx_lm.server writes them
// (convert_ids_to_tokens). A greedy reply's tokens and their
// alternatives are decoded by a rendering that changes some of them
// (SentencePiece: any text, as an alternative may be the only one with a
// space; byte-level: a chosen token, as its characters are also text's)
// and whose decoded tokens make the reply's text, the first token's
// leading spaces aside, which a SentencePiece detokenizer drops; else
// they are left as written.
var pieceDecoders = []struct {
	decode func(string) string
	top    bool // a change in an alternative's text counts
}{{decodeSentencePiece, true}, {decodeByteLevel, false}}

// decodePieces rewrites toks' texts, and their alternatives', as text
// when they are a rendering's pieces (pieceDecoders).
func decodePieces(toks []TokenProb, text string) {
	for _, d := range pieceDecoders {
		if !changes(toks, d.decode, d.top) || !sameText(toks, text, d.decode) {
			continue
		}
		for i := range toks {
			toks[i].Text = d.decode(toks[i].Text)
			for j := range toks[i].Top {
				toks[i].Top[j].Text = d.decode(toks[i].Top[j].Text)
			}
		}
		return
	}
}

// changes reports whether dec changes the text of a token of toks, or
// with top of an alternative.
func changes(toks []TokenProb, dec func(string) string, top bool) bool {
	for _, t := range toks {
		if dec(t.Text) != t.Text {
			return true
		}
		for _, a := range t.Top {
			if top && dec(a.Text) != a.Text {
				return true
			}
		}
	}
	return false
}

// sameText reports whether toks' texts, decoded by dec, make text,
// leading spaces aside.
func sameText(toks []TokenProb, text string, dec func(string) string) bool {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(dec(t.Text))
	}
	return strings.TrimLeft(b.String(), " ") == strings.TrimLeft(text, " ")
}

// decodeSentencePiece is a SentencePiece piece as text: "▁" a space, a
// byte piece "<0xNN>" its byte.
func decodeSentencePiece(s string) string {
	var n int
	if len(s) == 6 && strings.HasPrefix(s, "<0x") && s[5] == '>' {
		if _, err := fmt.Sscanf(s[3:5], "%02X", &n); err == nil {
			return string([]byte{byte(n)})
		}
	}
	return strings.ReplaceAll(s, "▁", " ")
}

// byteLevel maps byte-level BPE's characters back to their bytes: the
// printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves,
// the others, in order, for U+0100 on.
var byteLevel = func() map[rune]byte {
	m := make(map[rune]byte, 256)
	next := rune(256)
	for b := 0; b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			m[rune(b)] = byte(b)
		} else {
			m[next] = byte(b)
			next++
		}
	}
	return m
}()

// decodeByteLevel is a byte-level BPE token as text; one with a
// character outside the map is left as it is.
func decodeByteLevel(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		b, ok := byteLevel[r]
		if !ok {
			return s
		}
		out = append(out, b)
	}
	return string(out)
}
