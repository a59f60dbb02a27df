package main

import (
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// The models side by side: what each runtime's server said it serves
// (model_metadata.<runtime>.served), a line per runtime, and per run with
// several runs; and a warning for each pair of a run's runtimes whose
// servers state other weights.

// writeModels writes the table of models, if any run's file has what its
// servers said of them (files written before the key have not: no
// table).
func writeModels(b *strings.Builder, runs []*run) {
	if !hasServed(runs) {
		return
	}
	several := len(runs) > 1
	b.WriteString("## Models\n\nWhat each runtime's server says it serves, from its own metadata " +
		"(Ollama `/api/show`, llama.cpp `/props` and `/v1/models`, vLLM and mlx_lm `/v1/models`, LM Studio `/api/v0/models`); " +
		missing + ": the server does not say.\n\n")
	heads := []head{{text: "runtime"}, {text: "model"}, {text: "family"}, {"parameters", true},
		{text: "quantization"}, {text: "format"}, {"context", true}}
	if several {
		heads = append([]head{{text: "run"}}, heads...)
	}
	writeHead(b, heads...)
	var warnings []string           // in the order first met
	inRuns := map[string][]string{} // warning → the runs it holds in
	for _, r := range runs {
		for _, rt := range r.Runtimes {
			s, ok := r.Served[rt.Name]
			cells := []string{cell(rt.Name), orMissing(cell(rt.Model)), str(s.Family), str(s.Parameters),
				str(s.Quantization), str(s.Format), num(s.Context)}
			if !ok {
				cells = append(cells[:2], missing, missing, missing, missing, missing)
			}
			if several {
				cells = append([]string{cell(r.Label)}, cells...)
			}
			writeLine(b, 0, cells...)
		}
		for i, a := range r.Runtimes {
			for _, c := range r.Runtimes[i+1:] {
				sa, okA := r.Served[a.Name]
				sc, okC := r.Served[c.Name]
				if !okA || !okC {
					continue
				}
				if w := summary.NotSameWeights(a.Name, sa, c.Name, sc); w != "" {
					if inRuns[w] == nil {
						warnings = append(warnings, w)
					}
					inRuns[w] = append(inRuns[w], r.Label)
				}
			}
		}
	}
	b.WriteString("\n")
	if len(warnings) == 0 {
		return
	}
	b.WriteString("> **Warning: runtimes that serve other weights**: a difference between them is partly the weights'.\n>\n")
	for _, w := range warnings {
		line := "> - " + cell(w)
		if several {
			line += " (" + cell(strings.Join(inRuns[w], ", ")) + ")"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
}

// hasServed reports whether a run's file says what a runtime serves.
func hasServed(runs []*run) bool {
	for _, r := range runs {
		if len(r.Served) > 0 {
			return true
		}
	}
	return false
}

func str(s *string) string {
	if s == nil {
		return missing
	}
	return orMissing(cell(*s))
}

func num(n *int) string {
	if n == nil {
		return missing
	}
	return strconv.Itoa(*n)
}
