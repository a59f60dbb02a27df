package quality

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// Problem is one question with one exact answer, an integer.
type Problem struct {
	Question string
	Answer   int
}

// Instruction ends every problem's prompt: it asks for the answer in the
// form ParseAnswer reads.
const Instruction = "Work it out, then end your reply with a last line of the form \"Answer: <whole number>\"."

// Prompt is the problem as sent: the question and the Instruction.
func (p Problem) Prompt() string { return p.Question + "\n" + Instruction }

// DefaultProblems and DefaultSeed are the set a run asks.
const (
	DefaultProblems = 60
	DefaultSeed     = 49
)

var names = []string{"Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya"}
var things = []string{"apples", "marbles", "stickers", "pencils", "books", "shells", "cards", "stamps", "coins", "beads"}

// templates each draw their numbers from r and return the question and
// its answer; every answer is a whole number of at most four digits, and
// none is negative.
var templates = []func(r *rand.Rand, who, what string) (string, int){
	func(r *rand.Rand, who, what string) (string, int) {
		a, b, c := 10+r.IntN(40), 2+r.IntN(20), 1+r.IntN(9)
		return fmt.Sprintf("%s has %d %s, buys %d more and gives %d away. How many %s does %s have now?", who, a, what, b, c, what, who), a + b - c
	},
	func(r *rand.Rand, who, what string) (string, int) {
		boxes, each := 3+r.IntN(10), 4+r.IntN(12)
		return fmt.Sprintf("%s fills %d boxes with %d %s each. How many %s are in the boxes altogether?", who, boxes, each, what, what), boxes * each
	},
	func(r *rand.Rand, who, what string) (string, int) {
		friends, each := 2+r.IntN(7), 3+r.IntN(15)
		return fmt.Sprintf("%s shares %d %s equally among %d friends. How many %s does each friend get?", who, friends*each, what, friends, what), each
	},
	func(r *rand.Rand, who, what string) (string, int) {
		price, n, paid := 2+r.IntN(9), 2+r.IntN(8), 0
		paid = price*n + r.IntN(30)
		return fmt.Sprintf("%s buys %d %s at %d dollars each and pays with %d dollars. How many dollars of change does %s get?", who, n, what, price, paid, who), paid - price*n
	},
	func(r *rand.Rand, who, what string) (string, int) {
		days, per, extra := 3+r.IntN(5), 5+r.IntN(20), 1+r.IntN(30)
		return fmt.Sprintf("%s collects %d %s a day for %d days and then finds %d more. How many %s has %s collected?", who, per, what, days, extra, what, who), days*per + extra
	},
}

// Problems are n arithmetic word problems drawn from seed, the same for
// the same seed and n on every machine (math/rand/v2's PCG), with their
// answers.
func Problems(seed uint64, n int) []Problem {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ps := make([]Problem, n)
	for i := range ps {
		t := templates[i%len(templates)]
		q, a := t(r, names[r.IntN(len(names))], things[r.IntN(len(things))])
		ps[i] = Problem{Question: q, Answer: a}
	}
	return ps
}

// ParseAnswer reads a reply's answer by one strict rule: the text after
// the last "Answer:" (any case) must begin, after spaces, "*" or "$" (a
// bold or a dollar sign), with a whole number — an optional "-", digits,
// optionally grouped in threes by commas ("1,234") — that no letter,
// digit or decimal point followed by a digit continues ("12." ends a
// sentence, "12.00" is 12; "12.5", "12abc" and "1,23" are no answer). A reply without
// "Answer:", or whose last one has no such number, has no answer (ok is
// false), which scores as wrong.
func ParseAnswer(reply string) (n int, ok bool) {
	i := strings.LastIndex(strings.ToLower(reply), "answer:")
	if i < 0 {
		return 0, false
	}
	s := strings.TrimLeft(reply[i+len("answer:"):], " \t*$")
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ',') {
		end++
	}
	num := strings.TrimRight(s[:end], ",")
	rest := zeroCents(s[len(num):])
	if num == "" || !grouped(num) || continues(rest) {
		return 0, false
	}
	v, err := strconv.Atoi(strings.ReplaceAll(num, ",", ""))
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// grouped: num is digits, or digits grouped in threes by commas after a
// first group of one to three.
func grouped(num string) bool {
	parts := strings.Split(num, ",")
	if len(parts) == 1 {
		return true
	}
	if len(parts[0]) == 0 || len(parts[0]) > 3 {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 {
			return false
		}
	}
	return true
}

// zeroCents is rest without a decimal part of zeros only ("12.00" is
// 12, as a price is written).
func zeroCents(rest string) string {
	if !strings.HasPrefix(rest, ".") {
		return rest
	}
	zeros := len(rest) - len(strings.TrimLeft(rest[1:], "0")) - 1
	if zeros == 0 {
		return rest
	}
	return rest[1+zeros:]
}

// continues: the number goes on in rest as a decimal or a word.
func continues(rest string) bool {
	if rest == "" {
		return false
	}
	r := []rune(rest)
	if unicode.IsLetter(r[0]) || unicode.IsDigit(r[0]) {
		return true
	}
	return r[0] == '.' && len(r) > 1 && unicode.IsDigit(r[1])
}

// Accuracy is a runtime's score on the problems.
type Accuracy struct {
	// Right of Asked were answered right; Unparsed had no answer by
	// ParseAnswer's rule; Failed requests failed (they count as wrong,
	// and in Asked).
	Right, Asked, Unparsed, Failed int
	// Lo and Hi are the Wilson 95% interval of Right/Asked.
	Lo, Hi float64
}

// Share is Right/Asked, false when nothing was asked.
func (a Accuracy) Share() (float64, bool) {
	if a.Asked == 0 {
		return 0, false
	}
	return float64(a.Right) / float64(a.Asked), true
}

// Score scores replies against problems, one reply each in order; a nil
// reply is a failed request.
func Score(ps []Problem, replies []*string) Accuracy {
	var a Accuracy
	for i, p := range ps {
		a.Asked++
		if i >= len(replies) || replies[i] == nil {
			a.Failed++
			continue
		}
		n, ok := ParseAnswer(*replies[i])
		switch {
		case !ok:
			a.Unparsed++
		case n == p.Answer:
			a.Right++
		}
	}
	a.Lo, a.Hi = stats.Wilson(a.Right, a.Asked)
	return a
}
