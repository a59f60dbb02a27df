package workload

import "strconv"

// traceFields are a trace line's fields.
type traceFields struct {
	Timestamp    float64 `json:"timestamp"`
	InputLength  int     `json:"input_length"`
	OutputLength int     `json:"output_length"`
	HashIDs      []int   `json:"hash_ids"`
}

// parseTraceFast reads a trace line of the usual shape — an object of
// the four keys, spelt as Mooncake does, with plain numbers — into v,
// appending the hash ids to v.HashIDs, 6 to 10 times faster than
// encoding/json. It returns false for anything else (another key, an
// escape, null, a number json would not put in an int, bad JSON), and
// the caller then decodes the line with encoding/json, which decides
// what it means and words any error: where it returns true, encoding/json
// reads the same (FuzzTraceLine checks it).
func parseTraceFast(line []byte, v *traceFields) bool {
	p := fastParser{b: line}
	p.space()
	if !p.byte('{') {
		return false
	}
	p.space()
	if p.byte('}') {
		return p.end()
	}
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		p.space()
		if !p.byte(':') {
			return false
		}
		p.space()
		switch string(key) {
		case "timestamp":
			f, ok := p.float()
			if !ok {
				return false
			}
			v.Timestamp = f
		case "input_length", "output_length":
			n, ok := p.int()
			if !ok {
				return false
			}
			if string(key) == "input_length" {
				v.InputLength = n
			} else {
				v.OutputLength = n
			}
		case "hash_ids":
			ids, ok := p.ints(v.HashIDs[:0])
			if !ok {
				return false
			}
			v.HashIDs = ids
		default:
			return false
		}
		p.space()
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
		p.space()
	}
}

// float reads a JSON number as a float64: a whole number of up to 15
// digits exactly, any other through strconv.
func (p *fastParser) float() (float64, bool) {
	tok, whole, ok := p.number(false)
	switch {
	case !ok:
		return 0, false
	case whole && len(tok) <= 15: // exact in a float64
		return float64(digitsValue(tok)), true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	return f, err == nil
}

// ints reads a JSON array of ints, appending them to dst.
func (p *fastParser) ints(dst []int) ([]int, bool) {
	if !p.byte('[') {
		return dst, false
	}
	p.space()
	if p.byte(']') {
		return dst, true
	}
	for {
		n, ok := p.int()
		if !ok {
			return dst, false
		}
		dst = append(dst, n)
		p.space()
		if p.byte(']') {
			return dst, true
		}
		if !p.byte(',') {
			return dst, false
		}
		p.space()
	}
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *fastParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end: nothing but white space is left.
func (p *fastParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// key is a quoted key without escapes.
func (p *fastParser) key() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// number is a JSON number, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?,
// with no fraction or exponent if whole, followed by a delimiter or the
// end: its text, and whether it has only digits (and a sign).
func (p *fastParser) number(whole bool) (tok []byte, digitsOnly, ok bool) {
	start := p.i
	p.byte('-')
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	first := p.i
	n := digits()
	if n == 0 || n > 1 && p.b[first] == '0' {
		return nil, false, false
	}
	digitsOnly = true
	if !whole {
		if p.byte('.') {
			digitsOnly = false
			if digits() == 0 {
				return nil, false, false
			}
		}
		if p.byte('e') || p.byte('E') {
			digitsOnly = false
			if !p.byte('+') {
				p.byte('-')
			}
			if digits() == 0 {
				return nil, false, false
			}
		}
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return nil, false, false // a fraction or an exponent in an int: encoding/json's to refuse
		}
	}
	return p.b[start:p.i], digitsOnly, true
}

// digitsValue is the value of an optional '-' and at most 18 digits.
func digitsValue(tok []byte) int {
	n := 0
	for _, c := range tok {
		if c != '-' {
			n = n*10 + int(c-'0')
		}
	}
	if tok[0] == '-' {
		return -n
	}
	return n
}

// int is a whole JSON number of at most 18 digits, which fits an int.
func (p *fastParser) int() (int, bool) {
	tok, _, ok := p.number(true)
	if !ok || len(tok) > 19 || len(tok) == 19 && tok[0] != '-' {
		return 0, false
	}
	return digitsValue(tok), true
}
