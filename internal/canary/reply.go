package canary

import (
	"crypto/sha256"
	"encoding/hex"
)

// New is the canary of a reply's whole text and output tokens: the
// text's SHA-256 and its first TextMax characters (runes), cut on a
// character, never inside one.
func New(text string, outputTokens int) *Reply {
	sum := sha256.Sum256([]byte(text))
	kept := text
	n := 0
	for i := range text {
		if n == TextMax {
			kept = text[:i]
			break
		}
		n++
	}
	return &Reply{TextSHA256: hex.EncodeToString(sum[:]), OutputTokens: outputTokens, Text: kept}
}

// Reply is a canary request's reply, so that a run whose answers
// changed is seen: the SHA-256 of its whole text (hex), its output
// tokens, and its first TextMax characters; of an embeddings reply, its
// vector (OfEmbedding).
type Reply struct {
	TextSHA256   string `json:"text_sha256"`
	OutputTokens int    `json:"output_tokens"`
	Text         string `json:"text"`
	// Embedding is the canary of an embeddings reply, which has no text
	// (its TextSHA256 and Text are empty): its vector; absent for the
	// other APIs.
	Embedding *Embedding `json:"embedding,omitempty"`
}

// TextMax is how many characters of a canary's reply a row keeps.
const TextMax = 2000
