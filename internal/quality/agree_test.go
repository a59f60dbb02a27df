package quality

import (
	"math"
	"testing"
)

// KL is 0 for one distribution on both sides, and the closed form for a
// known pair: P = (0.5, 0.5), Q = (0.9, 0.1) listed in full gives
// 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1) = 0.5108 nats.
func TestKLDivergence(t *testing.T) {
	p := []Alt{{"a", math.Log(0.5)}, {"b", math.Log(0.5)}}
	q := []Alt{{"b", math.Log(0.1)}, {"a", math.Log(0.9)}}
	if kl, tail := KLDivergence(p, p); kl != 0 || tail > 1e-12 {
		t.Errorf("KL(P‖P) = %g, tail %g, want 0, 0", kl, tail)
	}
	want := 0.5*math.Log(0.5/0.9) + 0.5*math.Log(0.5/0.1)
	if kl, _ := KLDivergence(p, q); math.Abs(kl-want) > 1e-12 {
		t.Errorf("KL = %.6f, want %.6f", kl, want)
	}
	// Top-2 of three outcomes: the third is lumped with the rest, and the
	// figure is the KL of (0.5, 0.3, 0.2) against (0.2, 0.5, 0.3) over
	// "a", "b" and the rest, at most the full KL (here equal: the rest is
	// one token on both sides).
	p3 := []Alt{{"a", math.Log(0.5)}, {"b", math.Log(0.3)}}
	q3 := []Alt{{"b", math.Log(0.5)}, {"a", math.Log(0.2)}}
	want3 := 0.5*math.Log(0.5/0.2) + 0.3*math.Log(0.3/0.5) + 0.2*math.Log(0.2/0.3)
	if kl, tail := KLDivergence(p3, q3); math.Abs(kl-want3) > 1e-12 || math.Abs(tail-0.2) > 1e-12 {
		t.Errorf("KL = %.6f tail %.3f, want %.6f, 0.2", kl, tail, want3)
	}
	// A token only one side lists is lumped too: P's "c" is in its rest.
	pc := []Alt{{"a", math.Log(0.6)}, {"c", math.Log(0.4)}}
	qc := []Alt{{"a", math.Log(0.6)}, {"d", math.Log(0.4)}}
	if kl, tail := KLDivergence(pc, qc); kl > 1e-12 || math.Abs(tail-0.4) > 1e-12 {
		t.Errorf("KL = %g tail %g, want 0 (the lumped rests are equal), 0.4", kl, tail)
	}
}

// Agree's KL is the mean over the common prefix's positions, and stops
// at the first different token.
func TestAgreeMeanKLOverTheCommonPrefix(t *testing.T) {
	half := []Alt{{"x", math.Log(0.5)}, {"y", math.Log(0.5)}}
	skew := []Alt{{"x", math.Log(0.9)}, {"y", math.Log(0.1)}}
	ref := Reply{Logprobs: true, Text: "xxyx", Tokens: []Token{{Text: "x", Top: half}, {Text: "x", Top: half}, {Text: "y", Top: half}, {Text: "x", Top: half}}}
	other := Reply{Logprobs: true, Text: "xxxx", Tokens: []Token{{Text: "x", Top: half}, {Text: "x", Top: skew}, {Text: "x", Top: skew}, {Text: "x", Top: skew}}}
	ag := Agree(ref, other)
	want := (0.5*math.Log(0.5/0.9) + 0.5*math.Log(0.5/0.1)) / 2
	if kl, ok := ag.MeanKL(); !ok || ag.KLPositions != 2 || math.Abs(kl-want) > 1e-12 {
		t.Errorf("mean KL %.6f over %d positions, want %.6f over 2", kl, ag.KLPositions, want)
	}
	if ag.FirstDiff != 2 || ag.TextEqual || ag.CommonChars != 2 || ag.Chars != 4 || ag.CharShare() != 0.5 {
		t.Errorf("first diff %d, equal %v, chars %d of %d, want 2, false, 2 of 4", ag.FirstDiff, ag.TextEqual, ag.CommonChars, ag.Chars)
	}
	if top1, _ := ag.Top1(); top1 != 0.75 {
		t.Errorf("top-1 %.2f, want 0.75", top1)
	}
}

// Without log-probabilities on either side the words are compared, and
// the texts; the token figures say so (Logprobs false, no KL).
func TestAgreeTextOnly(t *testing.T) {
	ref := Reply{Text: "the cat sat on the mat", Logprobs: true, Tokens: tokReply([]string{"the", " cat"}).Tokens}
	other := Reply{Text: "the cat sat on a mat"}
	ag := Agree(ref, other)
	if ag.Logprobs || ag.KLPositions != 0 {
		t.Errorf("logprobs %v, KL positions %d, want false, 0", ag.Logprobs, ag.KLPositions)
	}
	if ag.Compared != 6 || ag.Agreed != 5 || ag.FirstDiff != 4 || ag.CommonChars != 15 || ag.Chars != 22 {
		t.Errorf("words %d of %d, first diff %d, chars %d of %d, want 5 of 6, 4, 15 of 22", ag.Agreed, ag.Compared, ag.FirstDiff, ag.CommonChars, ag.Chars)
	}
	if same := AgreeText("héllo wörld", "héllo wörld"); !same.TextEqual || same.CharShare() != 1 || same.Chars != 11 {
		t.Errorf("equal texts: %+v", same)
	}
	if _, ok := AgreeText("", "").Top1(); ok {
		t.Error("two empty texts have a top-1 agreement")
	}
}
