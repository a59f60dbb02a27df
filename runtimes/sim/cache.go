package sim

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync"
	"time"
)

// cacheCap bounds the prompt cache: the word prefixes it remembers, 8 bytes
// each and the map's overhead (a few MiB in all).
const cacheCap = 1 << 18

// promptCache remembers the prompts the server has been sent, as the hash
// of every word prefix of each, to tell how long a prefix of a new prompt
// an earlier one shared: what a server's prefix cache would have kept.
type promptCache struct {
	seed maphash.Seed

	mu   sync.Mutex
	seen map[uint64]struct{}
}

func newPromptCache() *promptCache {
	return &promptCache{seed: maphash.MakeSeed(), seen: make(map[uint64]struct{})}
}

// serve returns P, the number of words of the prompt made of texts (at
// least 1), and C, the length in words of its longest prefix that an
// earlier prompt shared, at most P-1 (a server evaluates at least the last
// token); and remembers the prompt. When remembering it would take the
// cache past cacheCap prefixes, the cache is emptied first (after the
// look-up); of a prompt longer than that, the first cacheCap prefixes are
// remembered.
func (c *promptCache) serve(texts []string) (p, cached int) {
	// The hashes of every prefix, outside the lock: prefix j's hash is the
	// hash of words 1..j, each preceded by its length (so that no two word
	// sequences hash the same bytes).
	var h maphash.Hash
	h.SetSeed(c.seed)
	var prefixes []uint64
	var n [binary.MaxVarintLen64]byte
	for _, s := range texts {
		for w := range words(s) {
			h.Write(binary.AppendUvarint(n[:0], uint64(len(w))))
			h.WriteString(w)
			prefixes = append(prefixes, h.Sum64())
		}
	}
	p = max(len(prefixes), 1)

	c.mu.Lock()
	defer c.mu.Unlock()
	// Every prefix of a remembered prompt is remembered, so the shared ones
	// are the first few, and the others are new.
	for _, x := range prefixes {
		if _, ok := c.seen[x]; !ok {
			break
		}
		cached++
	}
	if len(c.seen)+len(prefixes)-cached > cacheCap {
		clear(c.seen)
	}
	for _, x := range prefixes[:min(len(prefixes), cacheCap)] {
		c.seen[x] = struct{}{}
	}
	return p, min(cached, p-1)
}

// evaluated is ttft * (p-cached)/p, rounded down: the time a server spends
// on the prompt tokens it had to evaluate (p >= 1, 0 <= cached < p).
func evaluated(ttft time.Duration, p, cached int) time.Duration {
	hi, lo := bits.Mul64(uint64(ttft), uint64(p-cached))
	q, _ := bits.Div64(hi, lo, uint64(p)) // q <= ttft: no overflow
	return time.Duration(q)
}
