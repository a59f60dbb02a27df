package quality

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// Two tokenizations of one text agree everywhere: every reference token
// is in a unit that spells the same text, and the units cover both.
func TestAlignTwoTokenizationsOfOneText(t *testing.T) {
	a := []string{"The", " quick", " brown", " fox", " jumps", "."}
	b := []string{"The", " qu", "ick", " bro", "wn fox", " jump", "s."}
	if strings.Join(a, "") != strings.Join(b, "") {
		t.Fatal("the two tokenizations spell different texts")
	}
	units := Align(a, b)
	na, nb := 0, 0
	for _, u := range units {
		if !u.Same {
			t.Errorf("unit %+v differs: %q against %q", u, strings.Join(a[u.A:u.A+u.NA], ""), strings.Join(b[u.B:u.B+u.NB], ""))
		}
		na, nb = na+u.NA, nb+u.NB
	}
	if na != len(a) || nb != len(b) {
		t.Errorf("units cover %d and %d tokens, want %d and %d", na, nb, len(a), len(b))
	}
	// " brown", " fox" against " bro", "wn fox": one unit of 2 against 2.
	if len(units) != 4 || units[2] != (Unit{A: 2, NA: 2, B: 3, NB: 2, Same: true}) {
		t.Errorf("units %+v, want 4 with {2 2 3 2 true} third", units)
	}
}

// One different token is one unit that differs, and the sides go on
// together after it, with one tokenizer or with two.
func TestAlignResynchronises(t *testing.T) {
	a := []string{"a", " cat", " sat", " on", " the", " mat"}
	same := []string{"a", " dog", " sat", " on", " the", " mat"}
	split := []string{"a", " do", "g", " s", "at", " on", " the", " mat"}
	for _, b := range [][]string{same, split} {
		ag := Agree(tokReply(a), tokReply(b))
		if ag.Compared != 6 || ag.Agreed != 5 || ag.FirstDiff != 1 {
			t.Errorf("%q: compared %d agreed %d first diff %d, want 6, 5, 1", b, ag.Compared, ag.Agreed, ag.FirstDiff)
		}
	}
	// Two different tokens in a row: one unit of 2 against 2, both counted.
	b := []string{"a", " dog", " ran", " on", " the", " mat"}
	units := Align(a, b)
	if len(units) != 5 || units[1] != (Unit{A: 1, NA: 2, B: 1, NB: 2}) {
		t.Errorf("units %+v, want {1 2 1 2 false} second of 5", units)
	}
}

// tokReply is a reply of the tokens, each sure of itself.
func tokReply(ts []string) Reply {
	r := Reply{Logprobs: true, Text: strings.Join(ts, "")}
	for _, s := range ts {
		r.Tokens = append(r.Tokens, Token{Text: s, Top: []Alt{{Text: s, LogProb: 0}}})
	}
	return r
}

// A known perturbation is recovered: the other reply takes the second
// choice at a share p of positions (drawn at random, so that some come in
// runs), and top-1 agreement is 1 less the share of changed positions
// exactly, which is within the binomial bound of 1 - p. With the other
// side cut into pieces of another tokenization (and only 40 words, so
// that a wrong resynchronisation is easy) it is within 1% of the truth
// and within the bound too.
func TestAgreeRecoversAKnownPerturbation(t *testing.T) {
	const n, p = 3000, 0.1
	r := rand.New(rand.NewPCG(1, 2))
	var ref, other, pieces Reply
	ref.Logprobs, other.Logprobs, pieces.Logprobs = true, true, true
	changed := 0
	for i := range n {
		first, second := word(r), word(r)
		for second == first {
			second = word(r)
		}
		top := []Alt{{first, math.Log(0.7)}, {second, math.Log(0.2)}}
		ref.Tokens = append(ref.Tokens, Token{Text: first, Top: top})
		tok := first
		if r.Float64() < p {
			tok, changed = second, changed+1
		}
		other.Tokens = append(other.Tokens, Token{Text: tok, Top: top})
		if i%3 == 0 && len(tok) > 2 {
			pieces.Tokens = append(pieces.Tokens, Token{Text: tok[:2]}, Token{Text: tok[2:]})
		} else {
			pieces.Tokens = append(pieces.Tokens, Token{Text: tok})
		}
	}
	lo, hi := stats.WilsonZ(n-changed, n, 3.29)
	if 1-p < lo || 1-p > hi {
		t.Fatalf("the draw itself: %d of %d changed, 99.9%% interval [%.3f, %.3f] misses %.2f", changed, n, lo, hi, 1-p)
	}
	ag := Agree(ref, other)
	if top1, ok := ag.Top1(); !ok || ag.Compared != n || ag.Agreed != n-changed {
		t.Errorf("one tokenizer: top-1 %.4f (%d of %d), want %d of %d", top1, ag.Agreed, ag.Compared, n-changed, n)
	}
	ag = Agree(ref, pieces)
	top1, _ := ag.Top1()
	if ag.Compared != n || math.Abs(float64(ag.Agreed-(n-changed))) > 0.01*n || top1 < lo || top1 > hi {
		t.Errorf("two tokenizers: top-1 %.4f (%d of %d), want %d of %d within 1%% and in [%.3f, %.3f]", top1, ag.Agreed, ag.Compared, n-changed, n, lo, hi)
	}
}

// word is one of 40 short words, with a space before it.
func word(r *rand.Rand) string {
	return " " + string(rune('a'+r.IntN(20))) + string(rune('a'+r.IntN(2))) + "x"
}
