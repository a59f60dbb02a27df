package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// figure is one numeric column of the tables.
type figure struct {
	head  string
	value func(row) *float64
	scale float64 // applied before printing
	prec  int     // decimals
}

var figures = []figure{
	{"TTFT mean ms", func(r row) *float64 { return r.TTFTMean }, 1e3, 1},
	{"TTFT p50 ms", func(r row) *float64 { return r.TTFTP50 }, 1e3, 1},
	{"TTFT p95 ms", func(r row) *float64 { return r.TTFTP95 }, 1e3, 1},
	{"decode tok/s", func(r row) *float64 { return r.DecodeTPSMean }, 1, 1},
	{"request tok/s", func(r row) *float64 { return r.RequestTPSMean }, 1, 1},
	{"aggregate tok/s", func(r row) *float64 { return r.AggregateTPSMean }, 1, 1},
}

// missing is what a table shows for a figure the file does not have.
const missing = "—"

// writeMarkdown writes report.md for runs (the first is the base) to w.
// charts maps a prompt to the file names of its charts, in the order to
// show them; nil leaves charts out.
func writeMarkdown(w io.Writer, runs []*run, charts map[string][]chartFile) error {
	var b strings.Builder
	ks := keys(runs)
	b.WriteString("# Inference benchmark report\n\n")
	if len(runs) == 1 {
		b.WriteString("One run. TTFT is time to first token; decode, request and aggregate are mean output tokens/s " +
			"(see the summary JSON's measurement_notes). A figure the file does not have is shown as " + missing + ".\n\n")
	} else {
		fmt.Fprintf(&b, "%d runs; the first is the base, and each later run's figures are followed by their change "+
			"against it in percent (TTFT: lower is better; tok/s: higher is better). Rows are matched by runtime, "+
			"prompt and concurrency. A figure a file does not have is shown as %s.\n\n", len(runs), missing)
	}

	b.WriteString("| run | file | created | host | versions | rows |\n|---|---|---|---|---|---:|\n")
	for i, r := range runs {
		name := cell(r.Label)
		if len(runs) > 1 && i == 0 {
			name += " (base)"
		}
		if r.Incomplete {
			name += " (incomplete)"
		}
		host := r.Platform
		if r.CPU != "" {
			host += ", " + r.CPU
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d |\n",
			name, cell("`"+r.File+"`"), orMissing(when(r.CreatedAt)), orMissing(host), orMissing(versions(r.Versions)), len(r.Rows))
	}
	b.WriteString("\n")

	if len(ks) == 0 {
		b.WriteString("The files have no rows.\n")
	}
	for _, p := range prompts(ks) {
		fmt.Fprintf(&b, "## Prompt %s\n\n", cell(p))
		b.WriteString("| runtime | conc |")
		if len(runs) > 1 {
			b.WriteString(" run |")
		}
		b.WriteString(" model |")
		for _, f := range figures {
			b.WriteString(" " + f.head + " |")
		}
		b.WriteString(" ok | failed |\n|---|---:|")
		if len(runs) > 1 {
			b.WriteString("---|")
		}
		b.WriteString("---|")
		b.WriteString(strings.Repeat("---:|", len(figures)+2))
		b.WriteString("\n")

		for _, k := range ks {
			if k.Prompt != p {
				continue
			}
			base, baseOK := runs[0].find(k)
			for i, r := range runs {
				rw, ok := r.find(k)
				b.WriteString("| ")
				if i == 0 {
					fmt.Fprintf(&b, "%s | %d |", cell(k.Runtime), k.Concurrency)
				} else {
					b.WriteString(" | |")
				}
				if len(runs) > 1 {
					b.WriteString(" " + cell(r.Label) + " |")
				}
				if !ok {
					b.WriteString(" not in this run |")
					b.WriteString(strings.Repeat(" "+missing+" |", len(figures)+2))
					b.WriteString("\n")
					continue
				}
				b.WriteString(" " + orMissing(cell(rw.Model)) + " |")
				for _, f := range figures {
					b.WriteString(" " + number(f.value(rw), f.scale, f.prec))
					if i > 0 && baseOK {
						if c := change(f.value(base), f.value(rw)); c != "" {
							b.WriteString(" (" + c + ")")
						}
					}
					b.WriteString(" |")
				}
				fmt.Fprintf(&b, " %s | %s |\n", strconv.Itoa(rw.Successes), strconv.Itoa(rw.Failures))
			}
		}
		b.WriteString("\n")
		for _, c := range charts[p] {
			fmt.Fprintf(&b, "![%s](%s)\n", c.alt, c.name)
		}
		if len(charts[p]) > 0 {
			b.WriteString("\n")
		}
	}
	writeFailures(&b, runs)
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// writeFailures lists every row's failures by class, with the first
// message of each, if any run has some.
func writeFailures(b *strings.Builder, runs []*run) {
	var lines []string
	for _, r := range runs {
		for _, rw := range r.Rows {
			classes := slices.Sorted(maps.Keys(rw.Errors))
			for _, c := range classes {
				ec := rw.Errors[c]
				lines = append(lines, fmt.Sprintf("| %s | %s | %s | %d | %s | %d | %s |", cell(r.Label),
					cell(rw.Runtime), cell(rw.Prompt), rw.Concurrency, cell(string(c)), ec.Count, cell(ec.First)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Failures\n\nBy class, with the first message of each (see the README's Failures section).\n\n")
	b.WriteString("| run | runtime | prompt | conc | class | count | first message |\n|---|---|---|---:|---|---:|---|\n")
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}

// when shows an RFC 3339 time to the minute in UTC, or t as it is if it
// is not one.
func when(t string) string {
	tm, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return t
	}
	return tm.UTC().Format("2006-01-02 15:04 UTC")
}

// number formats x·scale with prec decimals, or "—".
func number(x *float64, scale float64, prec int) string {
	if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) {
		return missing
	}
	return strconv.FormatFloat(*x*scale, 'f', prec, 64)
}

// change is new against base in signed percent, or "" if it cannot be said.
func change(base, new *float64) string {
	if base == nil || new == nil || *base == 0 || math.IsNaN(*base) || math.IsNaN(*new) ||
		math.IsInf(*base, 0) || math.IsInf(*new, 0) {
		return ""
	}
	pct := (*new - *base) / math.Abs(*base) * 100
	s := strconv.FormatFloat(pct, 'f', 1, 64)
	switch s {
	case "0.0", "-0.0":
		return "±0.0%"
	}
	if pct > 0 {
		s = "+" + s
	}
	return s + "%"
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// versions lists name version pairs, sorted by name.
func versions(v map[string]string) string {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, cell(n+" "+v[n]))
	}
	return strings.Join(parts, ", ")
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
