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
	last int // prompt tokens of the last prompt remembered since clear
}

func newPromptCache() *promptCache {
	return &promptCache{seed: maphash.MakeSeed(), seen: make(map[uint64]struct{})}
}

// prompt is a chat request's prompt as the server counts it: its tokens,
// with the chat template's, and its words, for the cache.
type prompt struct {
	p        int      // tokens (P): PromptTokens of its messages
	prefixes []uint64 // the hash of each word prefix, words 1..j
	// ends[j] is how many of the template's tokens come up to the end of
	// word j+1: the words' tokens and MessageTokens for every message up
	// to the one it is in.
	ends []int
}

// measure counts the prompt whose messages' texts are msgs (one list of
// texts a message) and hashes its word prefixes, without touching the
// cache. Prefix j's hash is the hash of words 1..j, each preceded by its
// length (so that no two word sequences hash the same bytes), whatever
// messages they are in.
func (c *promptCache) measure(msgs [][]string) *prompt {
	var h maphash.Hash
	h.SetSeed(c.seed)
	pr := &prompt{p: ReplyTokens}
	var n [binary.MaxVarintLen64]byte
	for _, texts := range msgs {
		pr.p += MessageTokens
		for _, s := range texts {
			for w := range words(s) {
				h.Write(binary.AppendUvarint(n[:0], uint64(len(w))))
				h.WriteString(w)
				pr.p += wordTokens(w)
				pr.prefixes = append(pr.prefixes, h.Sum64())
				pr.ends = append(pr.ends, pr.p-ReplyTokens)
			}
		}
	}
	return pr
}

// cached is C for a prompt whose first shared words an earlier prompt
// also began with: 0 when none, the template's tokens up to the end of
// the last shared word when some, P-1 when all (the server has seen the
// whole prompt and evaluates only its last token); at most P-1.
func (pr *prompt) cached(shared int) int {
	switch {
	case shared == 0:
		return 0
	case shared == len(pr.prefixes):
		return pr.p - 1
	}
	return min(pr.ends[shared-1], pr.p-1)
}

// serve returns how many of the prompt's first words an earlier prompt
// also began with, and remembers the prompt. When remembering it would
// take the cache past cacheCap prefixes, the cache is emptied first
// (after the look-up); of a prompt longer than that, the first cacheCap
// prefixes are remembered.
func (c *promptCache) serve(pr *prompt) (shared int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Every prefix of a remembered prompt is remembered, so the shared ones
	// are the first few, and the others are new.
	for _, x := range pr.prefixes {
		if _, ok := c.seen[x]; !ok {
			break
		}
		shared++
	}
	if len(c.seen)+len(pr.prefixes)-shared > cacheCap {
		clear(c.seen)
	}
	for _, x := range pr.prefixes[:min(len(pr.prefixes), cacheCap)] {
		c.seen[x] = struct{}{}
	}
	c.last = pr.p
	return shared
}

// clear forgets every prompt, and returns the tokens of the last one
// remembered since it was last cleared (0 if none).
func (c *promptCache) clear() (last int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.seen)
	last, c.last = c.last, 0
	return last
}

// evaluated is ttft * (p-cached)/p, rounded down: the time a server spends
// on the prompt tokens it had to evaluate (p >= 1, 0 <= cached < p).
func evaluated(ttft time.Duration, p, cached int) time.Duration {
	hi, lo := bits.Mul64(uint64(ttft), uint64(p-cached))
	q, _ := bits.Div64(hi, lo, uint64(p)) // q <= ttft: no overflow
	return time.Duration(q)
}
