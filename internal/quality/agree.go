package quality

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Agreement is one reply against the reference's reply to the same
// prompt.
type Agreement struct {
	// Logprobs: both replies had tokens with log-probabilities, so the
	// token figures (Compared, Agreed, FirstDiff, KL) are of tokens; without,
	// they are of words (strings.Fields), and KL is unset.
	Logprobs bool
	// TextEqual: the two texts are equal, byte for byte.
	TextEqual bool
	// CommonChars is the common prefix of the two texts in characters,
	// Chars the longer text's characters.
	CommonChars, Chars int
	// Compared are the reference's tokens (or words) in the aligned
	// units (Align), Agreed those in units that spell the same text.
	Compared, Agreed int
	// FirstDiff is the reference's tokens (or words) before the first
	// unit that differs: all of them where none differs.
	FirstDiff int
	// KL sums, over the common prefix's one-token-against-one-token
	// units where both sides listed top tokens, the KL divergence of
	// the other's distribution from the reference's over their shared
	// top-k with the rest lumped into one outcome (KLDivergence), at
	// KLPositions positions; Tail sums the reference's probability
	// outside the shared top-k at those positions.
	KL, Tail    float64
	KLPositions int
}

// Top1 is the share of the reference's compared tokens that the other
// reply has too (Agreed/Compared): with greedy replies, the share of
// positions where both runtimes' most likely token is the same. False
// when nothing was compared.
func (a Agreement) Top1() (float64, bool) {
	if a.Compared == 0 {
		return 0, false
	}
	return float64(a.Agreed) / float64(a.Compared), true
}

// MeanKL is the mean KL divergence over the common prefix in nats, false
// without a position where it was computed.
func (a Agreement) MeanKL() (float64, bool) {
	if a.KLPositions == 0 {
		return 0, false
	}
	return a.KL / float64(a.KLPositions), true
}

// CharShare is the common prefix's share of the longer text's characters:
// 1 for equal texts (two empty ones too).
func (a Agreement) CharShare() float64 {
	if a.Chars == 0 {
		return 1
	}
	return float64(a.CommonChars) / float64(a.Chars)
}

// Agree compares other with ref. Where both have tokens with
// log-probabilities the tokens are aligned (Align) and the KL divergence
// computed; else the words are aligned, as AgreeText does.
func Agree(ref, other Reply) Agreement {
	if !ref.Logprobs || !other.Logprobs || len(ref.Tokens) == 0 || len(other.Tokens) == 0 {
		return AgreeText(ref.Text, other.Text)
	}
	ag := textFigures(ref.Text, other.Text)
	ag.Logprobs = true
	units := Align(texts(ref.Tokens), texts(other.Tokens))
	ag.count(units, len(ref.Tokens))
	for _, u := range units {
		if !u.Same {
			break // the common prefix ends
		}
		if u.NA != 1 || u.NB != 1 {
			continue // tokenized differently: no one distribution to compare
		}
		p, q := ref.Tokens[u.A].Top, other.Tokens[u.B].Top
		if len(p) == 0 || len(q) == 0 {
			continue
		}
		kl, tail := KLDivergence(p, q)
		ag.KL += kl
		ag.Tail += tail
		ag.KLPositions++
	}
	return ag
}

// AgreeText compares two texts without log-probabilities: equal or not,
// their common prefix in characters, and their words (strings.Fields)
// aligned as tokens are.
func AgreeText(ref, other string) Agreement {
	ag := textFigures(ref, other)
	wa, wb := strings.Fields(ref), strings.Fields(other)
	ag.count(Align(wa, wb), len(wa))
	return ag
}

// count sets Compared, Agreed and FirstDiff from units of a reference of
// n tokens.
func (a *Agreement) count(units []Unit, n int) {
	a.FirstDiff = n
	first := true
	for _, u := range units {
		a.Compared += u.NA
		if u.Same {
			a.Agreed += u.NA
		} else if first {
			a.FirstDiff, first = u.A, false
		}
	}
}

// textFigures are the figures of the texts alone.
func textFigures(ref, other string) Agreement {
	common := 0
	for i, j := 0, 0; i < len(ref) && j < len(other); {
		ra, na := utf8.DecodeRuneInString(ref[i:])
		rb, nb := utf8.DecodeRuneInString(other[j:])
		if ra != rb || na != nb {
			break
		}
		common++
		i, j = i+na, j+nb
	}
	chars := max(utf8.RuneCountInString(ref), utf8.RuneCountInString(other))
	return Agreement{TextEqual: ref == other, CommonChars: common, Chars: chars}
}

// KLDivergence is KL(P‖Q) in nats from two servers' top-k lists at one
// position, P the reference's: over the tokens both list (matched by
// text), plus one outcome for everything else, whose probability is 1
// less the listed ones' (at least 0). Lumping outcomes together never
// raises a KL divergence (the data-processing inequality), so this is a
// lower bound of the KL over the whole vocabulary; what it misses is
// tail × KL of the two distributions within the lumped outcome, where
// tail is P's probability outside the shared tokens (returned). Equal
// lists give 0. A token listed twice counts once (its first entry).
func KLDivergence(p, q []Alt) (kl, tail float64) {
	qOf := make(map[string]float64, len(q))
	for _, a := range q {
		if _, ok := qOf[a.Text]; !ok {
			qOf[a.Text] = math.Exp(a.LogProb)
		}
	}
	seen := make(map[string]bool, len(p))
	var pShared, qShared float64
	for _, a := range p {
		qi, ok := qOf[a.Text]
		if !ok || seen[a.Text] {
			continue
		}
		seen[a.Text] = true
		pi := math.Exp(a.LogProb)
		pShared += pi
		qShared += qi
		kl += term(pi, qi)
	}
	pRest, qRest := max(1-pShared, 0), max(1-qShared, 0)
	kl += term(pRest, qRest)
	return max(kl, 0), pRest
}

// minProb keeps a log finite where Q gives no probability at all to an
// outcome P gives some (Q's rest rounded to 0).
const minProb = 1e-12

// term is p·ln(p/q), 0 for p = 0.
func term(p, q float64) float64 {
	if p <= 0 {
		return 0
	}
	return p * math.Log(p/max(q, minProb))
}
