package main

import (
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/records"
)

// The canary replies (BENCH_CANARY): each leaf run's one untimed request
// at temperature 0, whose reply tells whether a runtime's answers
// changed between two runs, whatever its figures did.

// hasCanary reports whether a row of r has a canary reply with something
// to compare: an embeddings run's has none (the row keeps no embedding).
func hasCanary(r *run) bool {
	return !r.embeddings() && slices.ContainsFunc(r.Rows, func(rw row) bool { return rw.Canary != nil })
}

// readCanaryTexts reads the whole texts of r's canary replies from its
// request records, where its rows have canaries and it has records: a
// row keeps only a reply's first characters (canary.TextMax).
func readCanaryTexts(r *run) (map[string]string, error) {
	if !hasCanary(r) {
		return nil, nil
	}
	path := recordsFile(r)
	if path == "" {
		return nil, nil
	}
	return records.ReadCanaryTexts(path)
}

// writeCanaries says, for each later run, each canary reply that differs
// from the base's of the same row (runtime, prompt and load), with the
// runtime's versions in the two runs (canary.Describe); a reply that
// changed alike at every load is said once. Nothing where fewer than two
// runs have canaries; a run without (an embeddings run) is not compared.
func writeCanaries(b *strings.Builder, runs []*run) {
	if len(runs) < 2 || !hasCanary(runs[0]) || !slices.ContainsFunc(runs[1:], hasCanary) {
		return
	}
	base := runs[0]
	var lines []string
	for _, r := range runs[1:] {
		if !hasCanary(r) {
			continue
		}
		said := map[string]bool{}
		for _, rw := range r.Rows {
			old, ok := base.find(keyOf(rw))
			if !ok {
				continue
			}
			before, after := canary.Whole(old.Canary, rw.Canary, base.CanaryTexts, r.CanaryTexts)
			prompt := rw.Prompt
			if prompt == noPrompt {
				prompt = ""
			}
			d := canary.Describe(rw.Runtime, prompt, base.Versions[rw.Runtime], r.Versions[rw.Runtime], before, after)
			if d == "" || said[d] {
				continue
			}
			said[d] = true
			if len(runs) > 2 {
				d = r.Label + ": " + d
			}
			lines = append(lines, d)
		}
	}
	b.WriteString("## Canary replies\n\n")
	b.WriteString("Each leaf run sent one untimed request at temperature 0 (BENCH_CANARY); its reply changing between the base " +
		"and a later run means the runtime answers differently (another version, model, quantization or setting), " +
		"whatever its figures did.\n\n")
	if len(lines) == 0 {
		b.WriteString("No canary reply changed from the base's.\n\n")
		return
	}
	for _, l := range lines {
		b.WriteString("- " + cell(l) + "\n")
	}
	b.WriteString("\n")
}
