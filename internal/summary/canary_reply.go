package summary

import (
	"crypto/sha256"
	"encoding/hex"
)

// NewCanary is the canary of a reply's whole text and output tokens: the
// text's SHA-256 and its first CanaryTextMax characters (runes), cut on a
// character, never inside one.
func NewCanary(text string, outputTokens int) *Canary {
	sum := sha256.Sum256([]byte(text))
	kept := text
	n := 0
	for i := range text {
		if n == CanaryTextMax {
			kept = text[:i]
			break
		}
		n++
	}
	return &Canary{TextSHA256: hex.EncodeToString(sum[:]), OutputTokens: outputTokens, Text: kept}
}
