package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// The table engine: Markdown tables, their cells, and the tables of rows
// that the prompts' sections show, one line per row key and run.

// missing is what a table shows for a figure the file does not have.
const missing = "—"

// head is a column's heading, and whether its cells are right aligned
// (numbers).
type head struct {
	text  string
	right bool
}

// writeHead writes a table's heading line and its alignment line.
func writeHead(b *strings.Builder, heads ...head) {
	b.WriteString("|")
	for _, h := range heads {
		b.WriteString(" " + h.text + " |")
	}
	b.WriteString("\n|")
	for _, h := range heads {
		if h.right {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
}

// writeLine writes a line of a table. The first blank columns are left
// empty, as a line that continues the one above (its runtime and load):
// "|  | |", then the cells.
func writeLine(b *strings.Builder, blank int, cells ...string) {
	if blank > 0 {
		b.WriteString("|  |" + strings.Repeat(" |", blank-1))
	} else {
		b.WriteString("|")
	}
	for _, c := range cells {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

// column is one column of a table of rows: a figure, or a text.
type column struct {
	head string
	// A figure; with change, a later run's value carries its change
	// against the base's.
	fig    figure
	change bool
	// A text, where the column is no figure; right aligns it (a count).
	text  func(row) string
	right bool
}

// fig is a column of the figure whose change is shown.
func fig(f figure) column { return column{head: f.Heading(), fig: f, change: true} }

// plain is a column of the figure without a change: a share, a count, or
// a figure to be read beside another of the same row.
func plain(f figure) column { return column{head: f.Heading(), fig: f} }

func text(head string, f func(row) string) column { return column{head: head, text: f} }

// countCol is a text column of numbers.
func countCol(head string, f func(row) string) column {
	return column{head: head, text: f, right: true}
}

// as returns c headed h instead: the figure as a table names it.
func (c column) as(h string) column {
	c.head = h
	return c
}

func (c column) isFigure() bool { return c.text == nil }

func (c column) heading() head { return head{text: c.head, right: c.isFigure() || c.right} }

// say is what the column says of rw, without a change.
func (c column) say(rw row) string {
	if !c.isFigure() {
		return orMissing(c.text(rw))
	}
	return c.fig.format(rw.Row)
}

// cell is what the column says of rw; for a later run, with its change
// against base when baseOK, and the test of the change on the two runs'
// leaf runs where test has one (stats.CompareRuns): "70.6 (-12.7%,
// p=0.002 n=6)", else, where the runs have leaf runs to test on, why
// this change has none, so that it is not read as one that passed the
// test: "3.97 (+75.7%, untested: a percentile)".
func (c column) cell(rw, base row, baseOK, later bool, test func(figure) (stats.RunChange, string, bool)) string {
	s := c.say(rw)
	if c.isFigure() && c.change && later && baseOK {
		if ch := change(c.fig.of(base.Row), c.fig.of(rw.Row)); ch != "" {
			switch t, why, ok := test(c.fig); {
			case ok:
				ch += ", " + t.String()
			case why != "":
				ch += ", untested: " + why
			}
			s += " (" + ch + ")"
		}
	}
	return s
}

// table is a table of rows, one line per key and run: the row's
// runtime, prompt where asked (withPrompt), load and run, then its columns.
type table struct {
	// prompt adds a prompt column after the runtime, for a table of
	// several prompts' rows.
	prompt bool
	load   head // the load column
	// loadOf names a key's load for the load column.
	loadOf func(key) string
	cols   []column
}

// closedLoad, rateLoad and anyLoad are tables of closed-loop rows, of
// open-loop rows and of rows of either kind, without their columns.
var (
	closedLoad = table{load: head{"conc", true}, loadOf: func(k key) string { return strconv.Itoa(k.Concurrency) }}
	rateLoad   = table{load: head{"rate req/s", true}, loadOf: func(k key) string { return bench.FormatRate(k.Rate) }}
	anyLoad    = table{load: head{"load", false}, loadOf: key.load}
)

// withPrompt returns t with a prompt column.
func (t table) withPrompt() table {
	t.prompt = true
	return t
}

// with returns t with the columns.
func (t table) with(cols ...column) table {
	t.cols = cols
	return t
}

// write writes the table of the keys ks: each base row, followed by the
// same key's row of each later run, which says "not in this run" where
// the run lacks it.
func (t table) write(b *strings.Builder, runs []*run, ks []key) {
	heads := []head{{text: "runtime"}}
	if t.prompt {
		heads = append(heads, head{text: "prompt"})
	}
	heads = append(heads, t.load)
	keyCols := len(heads)
	if len(runs) > 1 {
		heads = append(heads, head{text: "run"})
	}
	for _, c := range t.cols {
		heads = append(heads, c.heading())
	}
	writeHead(b, heads...)
	for _, k := range ks {
		base, baseOK := runs[0].find(k)
		for i, r := range runs {
			rw, ok := r.find(k)
			var cells []string
			if i == 0 {
				cells = append(cells, cell(k.Runtime))
				if t.prompt {
					cells = append(cells, cell(k.Prompt))
				}
				cells = append(cells, t.loadOf(k))
			}
			if len(runs) > 1 {
				cells = append(cells, cell(r.Label))
			}
			for j, c := range t.cols {
				switch {
				case !ok && j == 0:
					cells = append(cells, "not in this run")
				case !ok:
					cells = append(cells, missing)
				default:
					test := func(f figure) (stats.RunChange, string, bool) { return runChange(runs[0], r, k, f) }
					cells = append(cells, c.cell(rw, base, baseOK, i > 0, test))
				}
			}
			blank := 0
			if i > 0 {
				blank = keyCols // the runtime, prompt and load of the base's line
			}
			writeLine(b, blank, cells...)
		}
	}
	b.WriteString("\n")
}

// writeRows writes a table of the rows, a line each, without a change.
func writeRows(b *strings.Builder, cols []column, rows []row) {
	heads := make([]head, len(cols))
	for i, c := range cols {
		heads[i] = c.heading()
	}
	writeHead(b, heads...)
	for _, rw := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = c.say(rw)
		}
		writeLine(b, 0, cells...)
	}
	b.WriteString("\n")
}

// count is a row's count of key, "—" if the file did not write it.
func count(r row, key string, n int) string {
	if !r.has(key) {
		return missing
	}
	return strconv.Itoa(n)
}

// number formats x·scale with prec decimals, or "—".
func number(x *float64, scale float64, prec int) string {
	if !finite(x) {
		return missing
	}
	return strconv.FormatFloat(*x*scale, 'f', prec, 64)
}

// change is new against base in signed percent, or "" if it cannot be said.
func change(base, new *float64) string {
	if !finite(base) || !finite(new) || *base == 0 {
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

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
