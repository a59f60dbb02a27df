package quality

import (
	"slices"
	"strings"
)

// Alt is one of the server's most likely tokens at a position, with its
// natural-log probability.
type Alt struct {
	Text    string
	LogProb float64
}

// Token is one generated token: its text, its log-probability and the
// server's top alternatives at its position (the token itself among them
// where the server lists it).
type Token struct {
	Text    string
	LogProb float64
	Top     []Alt
}

// Reply is one greedy reply: its text, its tokens (none where the server
// gave no log-probabilities) and whether it gave them.
type Reply struct {
	Text     string
	Tokens   []Token
	Logprobs bool
}

// Unit is one aligned step of two token sequences: the reference's tokens
// [A, A+NA) against the other's [B, B+NB), and whether they spell the same
// text.
type Unit struct {
	A, NA, B, NB int
	Same         bool
}

// Align matches two token sequences as text, so that runtimes that
// tokenize one text differently still agree. A unit is the shortest run of
// tokens from each side such that both runs spell the same text (Same), or
// such that their texts part inside both runs (not Same: the runs cover
// the first character where they differ). After a unit that is not Same
// the sides resynchronise: the unit is widened to the fewest tokens of
// each side (no fewer than it has) (at most Resync each, fewest in all first, one against one on
// a tie) after which the next unit is Same (and the
// one after it too where the counts differ: together) or both sides end; where none
// is, it stays as it is. With one tokenizer on both sides a Same unit is
// one token against one, and k different tokens in a row are one unit of
// k against k; with two, a different token takes with it the other side's
// pieces of the same word. The units stop where either side runs out; a
// side's tokens left over are in no unit.
func Align(a, b []string) []Unit {
	var units []Unit
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		u := step(a, b, i, j)
		if !u.Same {
			u = resync(a, b, u)
		}
		units = append(units, u)
		i, j = i+u.NA, j+u.NB
	}
	return units
}

// Resync is the most tokens of a side a unit that is not Same is widened
// to when the sides resynchronise.
const Resync = 8

// resync widens u, which is not Same, as Align says.
func resync(a, b []string, u Unit) Unit {
	for total := u.NA + u.NB; total <= 2*Resync; total++ {
		for _, na := range splits(total) {
			nb := total - na
			i, j := u.A+na, u.B+nb
			if na < u.NA || nb < u.NB || i > len(a) || j > len(b) {
				continue
			}
			if (i == len(a) && j == len(b)) || together(a, b, i, j, na == nb) {
				return Unit{A: u.A, NA: na, B: u.B, NB: nb}
			}
		}
	}
	return u
}

// together: the unit from a[i] and b[j] is Same, and, unless even (as
// many tokens taken from each side, as one tokenizer's substitutions
// are), so is the one after (or a side ends after the first): after an
// uneven split one token that happens to be the same ("the") is not yet
// the two sides together again.
func together(a, b []string, i, j int, even bool) bool {
	if i >= len(a) || j >= len(b) {
		return false
	}
	u := step(a, b, i, j)
	if !u.Same || even {
		return u.Same
	}
	i, j = i+u.NA, j+u.NB
	return i == len(a) || j == len(b) || step(a, b, i, j).Same
}

// splits are the ways of taking total tokens, at least 1 and at most
// Resync from each side, as the reference's share na: the most even first.
func splits(total int) []int {
	var ns []int
	for na := max(1, total-Resync); na <= min(Resync, total-1); na++ {
		ns = append(ns, na)
	}
	slices.SortStableFunc(ns, func(x, y int) int { return abs(2*x-total) - abs(2*y-total) })
	return ns
}

func abs(x int) int { return max(x, -x) }

// step is the unit that starts at a[i] and b[j].
func step(a, b []string, i, j int) Unit {
	u := Unit{A: i, NA: 1, B: j, NB: 1}
	sa, sb := a[i], b[j]
	for {
		if sa == sb {
			u.Same = true
			return u
		}
		short, long := sa, sb
		if len(sa) > len(sb) {
			short, long = sb, sa
		}
		if !strings.HasPrefix(long, short) {
			return u // the texts part inside both runs
		}
		// The shorter run spells the start of the longer: take the
		// shorter side's next token, if it has one.
		if len(sa) < len(sb) {
			if i+u.NA == len(a) {
				return u
			}
			sa += a[i+u.NA]
			u.NA++
		} else {
			if j+u.NB == len(b) {
				return u
			}
			sb += b[j+u.NB]
			u.NB++
		}
	}
}

// texts is the tokens' texts.
func texts(ts []Token) []string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Text
	}
	return s
}
