package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Log-probabilities and the perturbed model (SIM_LOGPROBS, SIM_PERTURB).
//
// The simulator's model has, at token i of the reply seeded seed, a
// distribution over the whole vocabulary (len(vocab) words), ranked: rank
// 0 is vocab[pick(seed, i)], the word Token gives; rank r is
// vocab[(pick(seed, i) + r·s) mod len(vocab)], s a stride coprime to
// len(vocab) drawn from seed and i, so every word has one rank. Rank 0 has
// probability q0 = 0.4 + 0.5·u (u in [0, 1) drawn from seed and i), rank r
// ≥ 1 has qr = (1−q0)·2^−r / (1−2^−(V−1)), V = len(vocab): they sum to 1
// and fall strictly with the rank, as q0 ≥ 0.4 > (1−q0)/2.
//
// SIM_PERTURB=p plays a model whose distributions moved, as a lower-bit
// quantization's do: at every token the first two words' probabilities
// keep their sum q0+q1 and their margin q0−q1 becomes (q0−q1)·f, with v
// in [0, 1) drawn from seed and i alone (not from p), f = (v−p)/v where v
// ≥ p and f = (v−p)/p where v < p. Where v < p the margin is negative: the
// reply says its second word there, as a greedy model whose first two
// changed places. Everywhere else the words are the same and the
// distributions differ a little (PerturbKL says by how much). So a
// simulator at p1 ≤ p2 says another word than one at p2 exactly at the
// positions where p1 ≤ v < p2: the share p2 − p1 of them, each
// independently (PerturbedAt tells which).

// LogprobsMode says whether the server answers a request's log-probability
// fields.
type LogprobsMode string

const (
	// LogprobsOn: it does (vLLM, llama-server, Ollama ≥ 0.12.11, mlx_lm).
	LogprobsOn LogprobsMode = "on"
	// LogprobsOff: it ignores them, as LM Studio's chat and Ollama before
	// 0.12.11: the reply has no log-probabilities and no error. Unset,
	// the flavor's habit (Config.logprobsMode).
	LogprobsOff LogprobsMode = "off"
)

// logprobsMode is SIM_LOGPROBS or, unset, the flavor's habit: off for
// lmstudio (LM Studio's chat ignores the fields) and for ollama at a
// SIM_VERSION before 0.12.11, the first Ollama that answers them (0.6.5
// answers without them, seen on the real server); else on.
func (c Config) logprobsMode() LogprobsMode {
	switch {
	case c.Logprobs != "":
		return c.Logprobs
	case c.flavor() == FlavorLMStudio, c.flavor() == FlavorOllama && versionBefore(c.Version, 0, 12, 11):
		return LogprobsOff
	}
	return LogprobsOn
}

// versionBefore reports whether v, a version number "X.Y.Z" (a "v" before
// it, anything after a "-" or "+" ignored), is before major.minor.patch;
// false for a v that is no version number (the default "sim-1").
func versionBefore(v string, want ...int) bool {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) > 3 {
		return false
	}
	got := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return false
		}
		got[i] = n
	}
	return slices.Compare(got, want) < 0
}

// MaxTopLogprobs is the most alternatives a request may ask for
// (top_logprobs, or the completions' logprobs): vLLM's default
// --max-logprobs and Ollama's bound; the mlx flavor's is
// MLXMaxTopLogprobs, mlx_lm.server 0.32.2's ("top_logprobs must be at
// most 11"). More is refused with a 400, as they refuse it.
const (
	MaxTopLogprobs    = 20
	MLXMaxTopLogprobs = 11
)

// maxTop is the flavor's bound on top_logprobs.
func (c Config) maxTop() int {
	if c.flavor() == FlavorMLX {
		return MLXMaxTopLogprobs
	}
	return MaxTopLogprobs
}

// askLogprobs is the number of alternatives a reply's chunks carry: -1
// for none (not asked, or SIM_LOGPROBS=off), else top (checked against
// the flavor's bound: an error to answer with a 400).
func (c Config) askLogprobs(asked bool, top int) (int, error) {
	if top < 0 || top > c.maxTop() {
		return -1, fmt.Errorf("top_logprobs=%d: must be from 0 to %d", top, c.maxTop())
	}
	if !asked || c.logprobsMode() == LogprobsOff {
		return -1, nil
	}
	return top, nil
}

// perturbSalt separates the perturbation's draw from the words' and the
// probabilities'.
const (
	perturbSalt = 0x5bd1e9955bd1e995
	shareSalt   = 0x27d4eb2f165667c5
	strideSalt  = 0xc2b2ae3d27d4eb2f
)

// unit is a draw in [0, 1) from x's top 53 bits.
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// strides are the steps coprime to len(vocab) (20).
var strides = []int{1, 3, 7, 9, 11, 13, 17, 19}

// perturbed reports whether token i of the reply seeded seed is swapped
// at SIM_PERTURB p.
func perturbed(seed uint64, i int, p float64) bool {
	return p > 0 && unit(mix(seed^perturbSalt, i)) < p
}

// ranked is the index in vocab of the word of rank r at token i of the
// reply seeded seed, unperturbed.
func ranked(seed uint64, i, r int) int {
	s := strides[mix(seed^strideSalt, i)%uint64(len(strides))]
	return (pick(seed, i) + r*s) % len(vocab)
}

// rankProb is the probability of rank r at token i, unperturbed.
func rankProb(seed uint64, i, r int) float64 {
	q := 0.4 + 0.5*unit(mix(seed^shareSalt, i))
	if r == 0 {
		return q
	}
	return (1 - q) * math.Ldexp(1, -r) / (1 - math.Ldexp(1, -(len(vocab)-1)))
}

// topTwo are the probabilities of the words of unperturbed rank 0 and 1
// at token i at SIM_PERTURB p: their sum kept, their margin scaled by f.
func topTwo(seed uint64, i int, p float64) (a, b float64) {
	q0, q1 := rankProb(seed, i, 0), rankProb(seed, i, 1)
	if p <= 0 {
		return q0, q1
	}
	v := unit(mix(seed^perturbSalt, i))
	f := (v - p) / v
	if v < p {
		f = (v - p) / p
	}
	s, m := q0+q1, (q0-q1)*f
	return (s + m) / 2, (s - m) / 2
}

// wordAt is the index in vocab of token i of the reply seeded seed at
// SIM_PERTURB p: rank 0, or rank 1 where perturbed.
func wordAt(seed uint64, i int, p float64) int {
	if perturbed(seed, i, p) {
		return ranked(seed, i, 1)
	}
	return pick(seed, i)
}

// Candidate is a word and its log-probability at a position.
type Candidate struct {
	Text    string
	LogProb float64
}

// Candidates is the whole distribution at token i of every reply to a
// chat whose last message's text is last (SIM_TEXT_SEED 0), for a
// simulator at SIM_PERTURB p: every word of the vocabulary, most likely
// first; the first is the word the reply says.
func Candidates(last string, i int, p float64) []Candidate {
	return candidates(replySeed(last), i, p, len(vocab))
}

// candidates are the k most likely words at token i of the reply seeded
// seed at SIM_PERTURB p.
func candidates(seed uint64, i int, p float64, k int) []Candidate {
	k = min(k, len(vocab))
	out := make([]Candidate, k)
	a, b := topTwo(seed, i, p)
	first, second := Candidate{vocab[ranked(seed, i, 0)], math.Log(a)}, Candidate{vocab[ranked(seed, i, 1)], math.Log(b)}
	if perturbed(seed, i, p) {
		first, second = second, first
	}
	for r := range k {
		switch r {
		case 0:
			out[r] = first
		case 1:
			out[r] = second
		default:
			out[r] = Candidate{Text: vocab[ranked(seed, i, r)], LogProb: math.Log(rankProb(seed, i, r))}
		}
	}
	return out
}

// PerturbedAt reports whether a simulator at SIM_PERTURB p says its
// second word at token i of every reply to a chat whose last message's
// text is last (SIM_TEXT_SEED 0). Over positions it is true for the share
// p of them, each independently: a simulator at p1 ≤ p2 says another word
// than one at p2 where PerturbedAt(…, p2) && !PerturbedAt(…, p1), the
// share p2 − p1 of positions. Over n-token replies the expected tokens
// before the first different one are then Σ_{k=1..n} (1−d)^k =
// (1−d)(1−(1−d)^n)/d, d = p2 − p1 > 0.
func PerturbedAt(last string, i int, p float64) bool { return perturbed(replySeed(last), i, p) }

// PerturbKL is the Kullback–Leibler divergence D(P1 ‖ P2), in nats,
// between the distributions at token i of every reply to a chat whose
// last message's text is last (SIM_TEXT_SEED 0) of simulators at
// SIM_PERTURB p1 (P1) and p2 (P2): over the first two words, the only
// ones whose probabilities differ. 0 when p1 = p2.
func PerturbKL(last string, i int, p1, p2 float64) float64 {
	seed := replySeed(last)
	a1, b1 := topTwo(seed, i, p1)
	a2, b2 := topTwo(seed, i, p2)
	return a1*math.Log(a1/a2) + b1*math.Log(b1/b2)
}

// appendLogprob appends one token's entry in the chat's shape,
// {"token":…,"logprob":…,"top_logprobs":[…]}, with k alternatives: token
// i of rep. With rep.pieces it is written as mlx_lm.server 0.32.2 writes
// it: the texts are the tokenizer's pieces, a space written "▁"
// (convert_ids_to_tokens of a SentencePiece tokenizer), the alternatives
// are not sorted (argpartition's order; here the least likely first), and
// the entry's own token and logprob are the first alternative's, not the
// token's.
func (rep *reply) appendLogprob(b []byte, i, k int) []byte {
	cs := candidates(rep.seed, i, rep.perturb, max(k, 1))
	top := cs[:k]
	if rep.pieces && k > 0 {
		top = slices.Clone(top)
		slices.Reverse(top)
		cs[0] = top[0]
	}
	b = append(b, `{"token":`...)
	b = appendJSONString(b, rep.piece(cs[0].Text))
	b = append(b, `,"logprob":`...)
	b = strconv.AppendFloat(b, cs[0].LogProb, 'g', -1, 64)
	b = append(b, `,"top_logprobs":[`...)
	for j, c := range top {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"token":`...)
		b = appendJSONString(b, rep.piece(c.Text))
		b = append(b, `,"logprob":`...)
		b = strconv.AppendFloat(b, c.LogProb, 'g', -1, 64)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendLogprobs appends the entries of tokens a..end-1 as a JSON array.
func (rep *reply) appendLogprobs(b []byte, a, end, k int) []byte {
	b = append(b, '[')
	for i := a; i < end; i++ {
		if i > a {
			b = append(b, ',')
		}
		b = rep.appendLogprob(b, i, k)
	}
	return append(b, ']')
}

// appendLegacyLogprobs appends tokens a..end-1's log-probabilities in the
// completions API's legacy shape, as vLLM writes them: {"text_offset":
// […],"token_logprobs":[…],"tokens":[…],"top_logprobs":[{word: lp, …}]},
// k alternatives each; offset is the text's length before token a.
func (rep *reply) appendLegacyLogprobs(b []byte, a, end, k, offset int) []byte {
	b = append(b, `{"text_offset":[`...)
	for i := a; i < end; i++ {
		if i > a {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(offset), 10)
		offset += len(vocab[wordAt(rep.seed, i, rep.perturb)])
	}
	b = append(b, `],"token_logprobs":[`...)
	for i := a; i < end; i++ {
		if i > a {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, candidates(rep.seed, i, rep.perturb, 1)[0].LogProb, 'g', -1, 64)
	}
	b = append(b, `],"tokens":[`...)
	for i := a; i < end; i++ {
		if i > a {
			b = append(b, ',')
		}
		b = appendJSONString(b, vocab[wordAt(rep.seed, i, rep.perturb)])
	}
	b = append(b, `],"top_logprobs":[`...)
	for i := a; i < end; i++ {
		if i > a {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, c := range candidates(rep.seed, i, rep.perturb, k) {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, c.Text)
			b = append(b, ':')
			b = strconv.AppendFloat(b, c.LogProb, 'g', -1, 64)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// piece is a word of the vocabulary as rep's log-probabilities write it:
// itself, or with rep.pieces its leading space as "▁".
func (rep *reply) piece(word string) string {
	if rep.pieces && len(word) > 0 && word[0] == ' ' {
		return "▁" + word[1:]
	}
	return word
}
