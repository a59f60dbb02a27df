package summary

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/runtimes"
)

// Served is what a runtime's server says of the model it serves,
// normalized across servers (runtimes.Served): model_metadata.<runtime>
// .served in the summary, each field null where the server says nothing.
type Served = runtimes.Served

// ServedKey is the key of Served in a runtime's model_metadata.
const ServedKey = "served"

// ServedIn reads Served from a runtime's model_metadata; false where it
// has none (a file written before the key, or a runtime that could not be
// described).
func ServedIn(metadata json.RawMessage) (Served, bool) {
	var m struct {
		Served *Served `json:"served"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &m) != nil || m.Served == nil {
		return Served{}, false
	}
	return *m.Served, true
}

// paramsTolerance is how far apart two parameter counts may be and still
// be the same model's: servers round them (Ollama's "8.2B", llama.cpp's
// exact count).
const paramsTolerance = 0.05

// NotSameWeights says, for two runtimes that serve a and b, how their
// weights differ where both servers state it, e.g. "ollama serves Q4_K_M,
// lmstudio serves MLX 4-bit: not the same weights"; "" where nothing
// stated differs. Parameters differ by more than rounding; quantizations
// are compared as NormalizeQuantization writes them.
func NotSameWeights(nameA string, a Served, nameB string, b Served) string {
	params := false
	if a.Parameters != nil && b.Parameters != nil {
		x, okx := runtimes.ParseParameters(*a.Parameters)
		y, oky := runtimes.ParseParameters(*b.Parameters)
		params = okx && oky && math.Abs(x-y) > paramsTolerance*math.Max(x, y)
	}
	quant := a.Quantization != nil && b.Quantization != nil &&
		runtimes.NormalizeQuantization(*a.Quantization) != runtimes.NormalizeQuantization(*b.Quantization)
	if !params && !quant {
		return ""
	}
	side := func(s Served) string {
		var parts []string
		if params {
			parts = append(parts, *s.Parameters)
		}
		if quant {
			if s.Format != nil && *s.Format != runtimes.FormatGGUF {
				parts = append(parts, *s.Format)
			}
			parts = append(parts, runtimes.NormalizeQuantization(*s.Quantization))
		}
		return strings.Join(parts, " ")
	}
	return nameA + " serves " + side(a) + ", " + nameB + " serves " + side(b) + ": not the same weights"
}

// ServedFacts writes s for a line or a cell: "family qwen3, 8.2B
// parameters, Q4_K_M, GGUF, context 40960", with what the server did not
// say named at the end ("; not stated: family, parameters"), or, where
// it stated none (NoneStated), NothingStated, which reads as a fact
// about the server, not as an error.
func ServedFacts(s Served) string {
	var said, unsaid []string
	add := func(name string, v *string, text func(string) string) {
		if v == nil {
			unsaid = append(unsaid, name)
			return
		}
		said = append(said, text(*v))
	}
	add("family", s.Family, func(v string) string { return "family " + v })
	add("parameters", s.Parameters, func(v string) string { return v + " parameters" })
	add("quantization", s.Quantization, func(v string) string { return "quantization " + v })
	add("format", s.Format, func(v string) string { return "format " + v })
	if s.Context != nil {
		said = append(said, "context "+strconv.Itoa(*s.Context))
	} else {
		unsaid = append(unsaid, "context")
	}
	out := strings.Join(said, ", ")
	switch {
	case len(said) == 0:
		return NothingStated
	case len(unsaid) > 0:
		out += "; not stated: " + strings.Join(unsaid, ", ")
	}
	return out
}

// NothingStated is ServedFacts of a server that states none of the facts.
const NothingStated = "its server states no family, parameters, quantization, format or context"

// NoneStated reports whether the server stated none of the facts.
func NoneStated(s Served) bool {
	return s.Family == nil && s.Parameters == nil && s.Quantization == nil && s.Format == nil && s.Context == nil
}
