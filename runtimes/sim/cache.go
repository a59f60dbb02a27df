package sim

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync"
	"time"
)

// cacheCap bounds the prompt cache: the prefixes it remembers, in two
// generations of at most cacheCap/2 each. Each generation is a table of
// twice its prefixes' 8 bytes, made whole at the first prompt remembered
// (see prefixSet): 4 MiB in all, whatever the number of requests served.
const cacheCap = 1 << 18

// The chat template, as the cache sees it: a message is its header (its
// role's), its content and its end; the prompt ends with the header of the
// assistant's turn, the same tokens an assistant message starts with.
const (
	headerTokens = ReplyTokens                 // a message's header, of its role
	endTokens    = MessageTokens - ReplyTokens // a message's end
)

// replyRole is the role of the header the prompt ends with.
const replyRole = "assistant"

// promptCache remembers the prompts the server has been sent, as the hash
// of every prefix of each, to tell how long a prefix of a new prompt an
// earlier one shared: what a server's prefix cache would have kept.
//
// A prompt is a sequence of pieces (see measure): a message's header (its
// role), each word of its content, its end, ..., the reply's header.
// Prefix j's hash is the hash of pieces 1..j. The prefixes go into the
// current generation, cur; when a prompt's would not fit, cur becomes old
// and the old old is forgotten. Every prompt's prefixes (its first
// gen of them) are all in cur when it has been served, so cur, old and
// their union each hold every prefix of what they hold: the pieces a new
// prompt shares are its first few, and a look-up stops at the first miss.
type promptCache struct {
	seed maphash.Seed
	gen  int  // the most prefixes a generation holds
	off  bool // Config.PrefixCache off: nothing is remembered

	mu       sync.Mutex
	cur, old prefixSet
	last     int // prompt tokens of the last prompt served since clear
}

// newPromptCache is a cache of capacity prefixes in all; off, it
// remembers nothing.
func newPromptCache(capacity int, off bool) *promptCache {
	gen := max(capacity/2, 1)
	return &promptCache{
		seed: maphash.MakeSeed(), gen: gen, off: off,
		cur: prefixSet{size: gen}, old: prefixSet{size: gen},
	}
}

// prefixSet is a set of at most size prefix hashes: an open-addressed
// table of 8-byte slots, at least twice as many as size (a power of two),
// probed in order from the slot a hash's low bits name. Unlike a Go map,
// which keeps the room it grew to and grows by more than it holds, its
// memory is fixed: the whole table is made at once (ready), before the
// first add, and emptying it keeps it. A slot of 0 is empty; a hash of 0
// is stored as 1, which a hash of 1 then shares (one chance in 2^64).
type prefixSet struct {
	size  int      // the most hashes it holds
	n     int      // the hashes it holds
	slots []uint64 // nil until ready
}

func setKey(x uint64) uint64 { return max(x, 1) }

// has reports whether x is in the set.
func (s *prefixSet) has(x uint64) bool {
	if s.n == 0 {
		return false
	}
	x = setKey(x)
	mask := uint64(len(s.slots) - 1)
	for i := x & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case x:
			return true
		case 0:
			return false
		}
	}
}

// ready makes the table, if it is not made yet.
func (s *prefixSet) ready() {
	if s.slots == nil {
		s.slots = make([]uint64, 1<<bits.Len(uint(2*s.size-1)))
	}
}

// add puts x in the set (made ready), unless it holds size hashes already
// (serve empties it first): then x is not remembered, so that a probe
// always ends at an empty slot.
func (s *prefixSet) add(x uint64) {
	if s.n >= s.size {
		return
	}
	x = setKey(x)
	mask := uint64(len(s.slots) - 1)
	i := x & mask
	for ; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == x {
			return
		}
	}
	s.slots[i] = x
	s.n++
}

// empty forgets every hash, keeping the table.
func (s *prefixSet) empty() {
	if s.n > 0 {
		clear(s.slots)
		s.n = 0
	}
}

// chatMessage is a message of a chat as the server reads it: its role,
// the texts of its content and its images (images.go).
type chatMessage struct {
	role   string
	texts  []string
	images []chatImage
}

// prompt is a chat request's prompt as the server counts it: its tokens,
// with the chat template's, and its pieces, for the cache.
type prompt struct {
	p        int      // tokens (P): PromptTokens of its messages
	prefixes []uint64 // the hash of each piece prefix, pieces 1..j
	// ends[j] is how many tokens come up to the end of piece j+1.
	ends []int
	// text is the index of the first word piece; len(prefixes) if none.
	text int
}

// Pieces' kinds, hashed before each piece so that no two sequences of
// pieces hash the same bytes.
const (
	pieceHeader = 'h'
	pieceWord   = 'w'
	pieceEnd    = 'e'
	pieceImage  = 'i'
)

// measure counts the prompt of msgs and hashes its piece prefixes, without
// touching the cache. Its pieces, in order: for every message its header
// (headerTokens tokens, one piece whatever the role, roles told apart),
// each word of its content (wordTokens tokens), its end (endTokens); then
// the reply's header, an assistant's. So a message shares nothing with one
// of another role at the same place, and a prompt that a later turn of its
// conversation begins with (its messages, the reply as the next assistant
// message) is all shared.
func (c *promptCache) measure(msgs []chatMessage) *prompt {
	var h maphash.Hash
	h.SetSeed(c.seed)
	pr := &prompt{text: -1}
	var n [binary.MaxVarintLen64]byte
	piece := func(kind byte, s string, tokens int) {
		h.WriteByte(kind)
		h.Write(binary.AppendUvarint(n[:0], uint64(len(s))))
		h.WriteString(s)
		pr.p += tokens
		pr.prefixes = append(pr.prefixes, h.Sum64())
		pr.ends = append(pr.ends, pr.p)
	}
	for _, m := range msgs {
		piece(pieceHeader, m.role, headerTokens)
		for _, s := range m.texts {
			for w := range words(s) {
				if pr.text < 0 {
					pr.text = len(pr.prefixes)
				}
				piece(pieceWord, w, wordTokens(w))
			}
		}
		for _, im := range m.images {
			piece(pieceImage, im.key, im.tokens)
		}
		piece(pieceEnd, "", endTokens)
	}
	piece(pieceHeader, replyRole, headerTokens)
	if pr.text < 0 {
		pr.text = len(pr.prefixes)
	}
	return pr
}

// cached is C for a prompt whose first shared pieces an earlier prompt
// also began with: the tokens of those pieces, at most P-1 (a server
// evaluates at least the last token), and 0 when they hold no word (the
// template's tokens alone are no hit).
func (pr *prompt) cached(shared int) int {
	if shared <= pr.text {
		return 0
	}
	return min(pr.ends[shared-1], pr.p-1)
}

// serve returns how many of the prompt's first pieces an earlier prompt
// also began with, and remembers the prompt: its first gen prefixes go
// into cur, which becomes old first, forgetting the old old, if they would
// take it past gen. Off, it returns 0 and remembers nothing.
func (c *promptCache) serve(pr *prompt) (shared int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = pr.p
	if c.off {
		return 0
	}
	c.cur.ready() // both at the first prompt: no more memory after it
	c.old.ready()
	// cur and old ∪ cur hold every prefix of what they hold: the prefixes
	// found in cur are the first few, those found in either a few more.
	inCur := 0
	for inCur < len(pr.prefixes) && c.cur.has(pr.prefixes[inCur]) {
		inCur++
	}
	shared = inCur
	for shared < len(pr.prefixes) && c.old.has(pr.prefixes[shared]) {
		shared++
	}
	keep := pr.prefixes[:min(len(pr.prefixes), c.gen)]
	from := min(inCur, len(keep))
	if c.cur.n+len(keep)-from > c.gen {
		c.cur, c.old = c.old, c.cur
		c.cur.empty()
		from = 0
	}
	for _, x := range keep[from:] {
		c.cur.add(x)
	}
	return shared
}

// size is the number of prefixes remembered.
func (c *promptCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.n + c.old.n
}

// clear forgets every prompt, and returns the tokens of the last one
// served since it was last cleared (0 if none).
func (c *promptCache) clear() (last int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur.empty()
	c.old.empty()
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
