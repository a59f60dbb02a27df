package prompts

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// InputPrefix starts the name of a prompt of a chosen length: in<N> is a
// prompt the suite sizes so that the server counts N prompt tokens
// (BENCH_INPUT_TOKENS).
const InputPrefix = "in"

// InputName is the name of the prompt of n tokens: "in8192".
func InputName(n int) string { return InputPrefix + strconv.Itoa(n) }

// ParseInputName returns N of a name in<N> (N a whole number above 0 with
// no sign or leading zero), or false.
func ParseInputName(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, InputPrefix)
	if !ok || digits == "" || digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 || strconv.Itoa(n) != digits {
		return 0, false
	}
	return n, true
}

// The words of the long prompts' text, by part of speech, written for the
// suite. Sentences are drawn from the templates below over them, so the
// text reads as prose to a tokenizer (common words, capitals, commas,
// full stops) while meaning nothing.
var (
	nouns = strings.Fields(`river engine garden letter window market teacher harbor village mountain
		kitchen morning evening winter summer station bridge library account report question answer
		system network signal record table chapter season forest island ladder pocket cabinet
		journey measure pattern battery circuit harvest lantern meadow orchard valley compass
		ticket parcel courier manager student doctor farmer painter sailor writer neighbor
		council meeting budget figure problem method result reason detail moment process`)
	verbs = strings.Fields(`carries follows opens repairs measures explains gathers watches reaches
		builds crosses answers records changes prepares describes closes joins returns collects
		shows keeps leaves finds holds moves turns brings writes reads checks counts`)
	adjectives = strings.Fields(`quiet narrow early late bright heavy simple careful distant
		small large old new warm cold steady rapid patient clear open hidden common rare
		wooden silver gentle busy empty full plain useful strange ordinary`)
	adverbs = strings.Fields(`slowly often rarely quickly carefully gently nearly always
		never usually quietly clearly soon later again together`)
	preps = strings.Fields(`near beside across under over behind through along beyond
		toward inside around after before`)
	dets = strings.Fields(`the the the a every each this that another one`)
	// joins open a second clause after a comma.
	joins = strings.Fields(`and but while because although so`)
)

// A template is a sentence's parts of speech: D determiner, A adjective,
// N noun, V verb, R adverb, P preposition, ',' a comma and a joining word.
var templates = []string{
	"DANV", "DNVDN", "DANVDAN", "DNRVDNPDN", "DANVPDAN", "DNVDN,DNV",
	"RDNVDAN", "DNVDANPDN", "DANRVDN,DANVPDN", "DNVPDN",
}

// text is the long prompts' text, made once and grown as longer ones are
// asked for: a prefix of it is every long prompt, so a prompt of w words
// is the same text for every runtime and every length.
var text struct {
	sync.Mutex
	rng  *rand.Rand
	b    strings.Builder
	ends []int // ends[i] is the byte length of the first i+1 words
	s    string
}

// seed is the generator's: the text never changes between runs or
// machines.
const seed = 0x5eed_1e57

// Words returns the first n words of the long prompts' text (n ≥ 0):
// sentences of 4 to 15 words, a paragraph break about every 90 words. The same n
// gives the same text in every run; a longer text starts with every
// shorter one. After the first call for n words, Words(m) for m ≤ n costs
// no allocation.
func Words(n int) string {
	if n <= 0 {
		return ""
	}
	text.Lock()
	defer text.Unlock()
	for len(text.ends) < n {
		grow()
	}
	if len(text.s) < text.b.Len() {
		text.s = text.b.String()
	}
	return text.s[:text.ends[n-1]]
}

// grow appends one sentence (and, every sixth, a paragraph break).
func grow() {
	if text.rng == nil {
		text.rng = rand.New(rand.NewPCG(seed, seed>>7))
	}
	r := text.rng
	pick := func(ws []string) string { return ws[r.IntN(len(ws))] }
	tpl := templates[r.IntN(len(templates))]
	first := true
	for i := 0; i < len(tpl); i++ {
		var w string
		switch tpl[i] {
		case 'D':
			w = pick(dets)
		case 'A':
			w = pick(adjectives)
		case 'N':
			w = pick(nouns)
		case 'V':
			w = pick(verbs)
		case 'R':
			w = pick(adverbs)
		case 'P':
			w = pick(preps)
		case ',':
			// The comma goes on the word before it.
			text.b.WriteByte(',')
			w = pick(joins)
		}
		if text.b.Len() > 0 {
			if first && len(text.ends)%90 == 0 && len(text.ends) > 0 {
				text.b.WriteString("\n\n")
			} else {
				text.b.WriteByte(' ')
			}
		}
		if first {
			w = strings.ToUpper(w[:1]) + w[1:]
			first = false
		}
		text.b.WriteString(w)
		if i == len(tpl)-1 {
			text.b.WriteByte('.')
		}
		text.ends = append(text.ends, text.b.Len())
	}
}
