package quality

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		reply string
		n     int
		ok    bool
	}{
		{"7 + 5 = 12\nAnswer: 12", 12, true},
		{"Answer: 3\nWait, no.\nanswer: 4.", 4, true}, // the last one
		{"**Answer:** 1,234", 1234, true},
		{"ANSWER: $15", 15, true},
		{"Answer: $15.00", 15, true},
		{"Answer: -3", -3, true},
		{"Answer: 12, since 7 + 5 = 12", 12, true},
		{"Answer: 12.5", 0, false},
		{"Answer: 12.005", 0, false},
		{"Answer: 12abc", 0, false},
		{"Answer: 1,23", 0, false},
		{"Answer: twelve", 0, false},
		{"Answer:", 0, false},
		{"The total is 12.", 0, false}, // no "Answer:"
		{"Answer: 99999999999999999999999", 0, false},
	} {
		n, ok := ParseAnswer(c.reply)
		if n != c.n || ok != c.ok {
			t.Errorf("ParseAnswer(%q) = %d, %v, want %d, %v", c.reply, n, ok, c.n, c.ok)
		}
	}
}

// The set is the same for a seed, another for another seed, and every
// answer is the arithmetic its question states (recomputed here from the
// question's numbers, template by template).
func TestProblems(t *testing.T) {
	a, b := Problems(DefaultSeed, DefaultProblems), Problems(DefaultSeed, DefaultProblems)
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) != DefaultProblems {
		t.Fatalf("two sets of one seed differ, or %d problems, want %d", len(a), DefaultProblems)
	}
	if fmt.Sprint(Problems(DefaultSeed+1, 5)) == fmt.Sprint(a[:5]) {
		t.Error("another seed gives the same problems")
	}
	num := regexp.MustCompile(`\d+`)
	seen := map[string]bool{}
	for i, p := range a {
		var x []int
		for _, s := range num.FindAllString(p.Question, -1) {
			v, _ := strconv.Atoi(s)
			x = append(x, v)
		}
		want := []func() int{
			func() int { return x[0] + x[1] - x[2] },
			func() int { return x[0] * x[1] },
			func() int { return x[0] / x[1] },
			func() int { return x[2] - x[0]*x[1] },
			func() int { return x[0]*x[1] + x[2] },
		}[i%5]()
		if p.Answer != want || p.Answer < 0 || seen[p.Question] {
			t.Errorf("problem %d %q: answer %d, want %d (non-negative, asked once)", i, p.Question, p.Answer, want)
		}
		seen[p.Question] = true
		if n, ok := ParseAnswer("Answer: " + strconv.Itoa(p.Answer)); !ok || n != p.Answer {
			t.Errorf("problem %d: its own answer does not parse", i)
		}
	}
}

func TestScore(t *testing.T) {
	ps := []Problem{{"q1", 1}, {"q2", 2}, {"q3", 3}, {"q4", 4}}
	s := func(x string) *string { return &x }
	acc := Score(ps, []*string{s("Answer: 1"), s("Answer: 5"), nil, s("no idea")})
	if acc.Right != 1 || acc.Asked != 4 || acc.Failed != 1 || acc.Unparsed != 1 {
		t.Errorf("%+v, want 1 right of 4, 1 failed, 1 unparsed", acc)
	}
	if share, _ := acc.Share(); share != 0.25 || acc.Lo >= 0.25 || acc.Hi <= 0.25 {
		t.Errorf("share %.2f in [%.3f, %.3f], want 0.25 inside", share, acc.Lo, acc.Hi)
	}
}
