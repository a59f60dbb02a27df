package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The turns section and its chart: the rows of runs whose requests were
// conversations (BENCH_TURNS above 1), each with the figures of each of
// its turns (the row's "turns" list).

// turnsFile is the turns chart's file name.
const turnsFile = "turns.svg"

// xLabelTurn is the turns chart's x axis label.
const xLabelTurn = "turn of the conversation"

// turnRow reports whether rw has the figures of its turns.
func turnRow(rw row) bool { return len(rw.Turns) > 0 }

// hasTurnRows reports whether a run has a row with the figures of its
// turns, or with turns not sent: the turns section is shown.
func hasTurnRows(runs []*run) bool {
	for _, r := range runs {
		if slices.ContainsFunc(r.Rows, func(rw row) bool { return turnRow(rw) || rw.NotSent > 0 }) {
			return true
		}
	}
	return false
}

// turnKeys returns the keys of the rows with turns in the order of the
// turns section.
func turnKeys(runs []*run) []key { return keysWhere(runs, turnRow) }

// keysWhere returns the keys of the rows that have what is asked in the
// order of the turns section: by runtime (as the tables order them),
// prompt, then load (concurrencies, then rates).
func keysWhere(runs []*run, has func(row) bool) []key {
	var out []key
	for _, r := range runs {
		for _, rw := range r.Rows {
			if has(rw) && !slices.Contains(out, keyOf(rw)) {
				out = append(out, keyOf(rw))
			}
		}
	}
	all := keys(runs)
	names, ps := runtimeNames(all), prompts(all)
	slices.SortStableFunc(out, func(a, b key) int {
		return cmp.Or(
			cmp.Compare(slices.Index(names, a.Runtime), slices.Index(names, b.Runtime)),
			cmp.Compare(slices.Index(ps, a.Prompt), slices.Index(ps, b.Prompt)),
			compareLoads(a, b))
	})
	return out
}

// turnsOf returns rw's turns in order.
func turnsOf(rw row) []summary.TurnFigures {
	ts := slices.Clone(rw.Turns)
	slices.SortStableFunc(ts, func(a, b summary.TurnFigures) int { return cmp.Compare(a.Turn, b.Turn) })
	return ts
}

// turnName names a runtime, prompt and load for a legend or a note: the
// prompt only where the turn rows have several.
func turnName(k key, severalPrompts bool) string {
	name := k.Runtime
	if severalPrompts {
		name += ", " + k.Prompt
	}
	return name + ", " + k.load()
}

// turnLine is a line of the turns chart: a runtime, prompt and load in a
// run, a point per turn with a TTFT p50.
type turnLine struct {
	label string
	color int // one per runtime, prompt and load
	run   int // the run's index: its dash and marker
	pts   plotter.XYs
}

// chartsOfTurns draws the turns chart of the runs' rows with turns; none
// without such rows, or where no turn has a TTFT p50.
func chartsOfTurns(runs []*run) ([]chartFile, error) {
	ks := turnKeys(runs)
	if len(ks) == 0 {
		return nil, nil
	}
	ps := prompts(ks)
	var (
		lines []turnLine
		last  int // the last turn
	)
	for ci, k := range ks {
		for ui, r := range runs {
			rw, ok := r.find(k)
			if !ok {
				continue
			}
			l := turnLine{label: legendLabel(turnName(k, len(ps) > 1), k.Runtime, r, runs), color: ci, run: ui}
			for _, t := range turnsOf(rw) {
				if y, ok := ttftP50.value(turnFigures(t)); ok && t.Turn > 0 {
					l.pts = append(l.pts, plotter.XY{X: float64(t.Turn), Y: y})
					last = max(last, t.Turn)
				}
			}
			if len(l.pts) > 0 {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	title := "Time to first token by turn, p50"
	if len(ps) == 1 {
		title += " — prompt " + ps[0]
	}
	f := chartFile{name: turnsFile, alt: ttftP50.Name + " by turn of the conversation", section: secTurns}
	var err error
	f.data, err = turnsChart(title, lines, last)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", turnsFile, err)
	}
	return []chartFile{f}, nil
}

// turnsChart draws TTFT p50 against the turn, from zero, a line per
// runtime, prompt and load in each run, with a marker at each point; the
// legend is beside the plot, where it covers nothing.
func turnsChart(title string, lines []turnLine, last int) ([]byte, error) {
	p := newPlot()
	legend := sideLegend(p)
	ymax := 0.0
	for _, tl := range lines {
		l, err := plotter.NewLine(tl.pts)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(tl.color)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(tl.run)
		sc, err := plotter.NewScatter(tl.pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(tl.color)
		sc.Shape = plotutil.Shape(tl.run)
		sc.Radius = vg.Points(3)
		p.Add(l, sc)
		legend.Add(tl.label, l, sc)
		for _, pt := range tl.pts {
			ymax = max(ymax, pt.Y)
		}
	}
	p.X.Label.Text = xLabelTurn
	p.X.Min, p.X.Max = 0.5, float64(last)+0.5
	p.X.Tick.Marker = turnTicks{}
	p.Y.Label.Text = ttftP50.Label()
	if ymax <= 0 {
		ymax = 1
	}
	p.Y.Min, p.Y.Max = 0, ymax*1.15
	p.Y.Tick.Marker = plotkit.NiceTicks{}
	return besideLegend(title, p, &legend)
}

// turnTicks labels the turns: every turn up to twelve, beyond that turn 1
// and the multiples of a round step (2, 5, 10, 20, 25 or 50) that keep to
// about ten labels, with minor ticks at the other turns while they are not
// too many to tell apart.
type turnTicks struct{}

func (turnTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := max(int(lo+0.5), 1), int(hi)
	step := 1
	if last > 12 {
		for _, s := range []int{2, 5, 10, 20, 25, 50} {
			step = s
			if last/s <= 10 {
				break
			}
		}
	}
	var ticks []plot.Tick
	for t := first; t <= last; t++ {
		switch {
		case t == 1 || t%step == 0:
			ticks = append(ticks, plot.Tick{Value: float64(t), Label: strconv.Itoa(t)})
		case last <= 50:
			ticks = append(ticks, plot.Tick{Value: float64(t)})
		}
	}
	return ticks
}

// writeTurns writes the turns section: what its figures describe, the
// chart, the table of every turn of every row with turns, and the rows
// with turns not sent.
func writeTurns(b *strings.Builder, runs []*run, charts []chartFile) {
	b.WriteString("## Turns\n\n")
	b.WriteString("The rows whose requests were conversations (BENCH_TURNS): turn k sends the k − 1 earlier turns, " +
		"each question and its reply, and a new question, so that its prompt grows with the conversation. " +
		"A runtime whose TTFT grows every turn prefills the whole history again: it has no prefix cache, or it is off. " +
		"One whose prefix cache holds the history stays near its turn 1, prefilling only what is new. " +
		"Prompt tok and cached tok are the means of the server's counts of the turn's prompt tokens and of those it " +
		"took from its cache, cached share their ratio (" + missing + " where the server reports no cached tokens). " +
		"Requests counts the turn's requests, failed ones included; the figures are of the successful ones. " +
		"The prompts' own tables pool every turn. Times are in ms.\n\n")
	writeCharts(b, charts)
	ks := turnKeys(runs)
	if len(ks) == 0 {
		writeNotSent(b, runs)
		return
	}
	several := len(prompts(ks)) > 1
	// The runtime, prompt and load: left empty on the lines after the
	// first of theirs.
	heads := []head{{text: "runtime"}}
	if several {
		heads = append(heads, head{text: "prompt"})
	}
	heads = append(heads, head{text: "load"})
	keyCols := len(heads)
	if len(runs) > 1 {
		heads = append(heads, head{text: "run"})
	}
	heads = append(heads, head{"turn", true}, head{"requests", true})
	for _, c := range turnColumns {
		heads = append(heads, c.heading())
	}
	writeHead(b, heads...)
	for _, k := range ks {
		firstOfKey := true
		for _, r := range runs {
			rw, ok := r.find(k)
			if !ok || !turnRow(rw) {
				continue
			}
			for i, t := range turnsOf(rw) {
				var cells []string
				blank := keyCols
				if firstOfKey {
					blank = 0
					cells = append(cells, cell(k.Runtime))
					if several {
						cells = append(cells, cell(k.Prompt))
					}
					cells = append(cells, k.load())
				}
				firstOfKey = false
				if len(runs) > 1 {
					if i == 0 {
						cells = append(cells, cell(r.Label))
					} else {
						blank++
					}
				}
				cells = append(cells, strconv.Itoa(t.Turn), strconv.Itoa(t.Requests))
				tr := row{Row: turnFigures(t)}
				for _, c := range turnColumns {
					cells = append(cells, c.say(tr))
				}
				writeLine(b, blank, cells...)
			}
		}
	}
	b.WriteString("\n")
	writeNotSent(b, runs)
}

// turnColumns are the turns table's figures, of a turn's successful
// requests.
var turnColumns = []column{
	plain(ttftP50), plain(ttftP95), plain(promptTokens), plain(cachedTokens).as("cached tok"), plain(cachedShare), plain(decodeTPS),
}

// writeNotSent lists the rows with turns not sent, in the order of the
// turns table.
func writeNotSent(b *strings.Builder, runs []*run) {
	ks := keysWhere(runs, func(rw row) bool { return rw.NotSent > 0 })
	if len(ks) == 0 {
		return
	}
	several := len(prompts(keysWhere(runs, func(rw row) bool { return turnRow(rw) || rw.NotSent > 0 }))) > 1
	var lines []string
	for _, k := range ks {
		for _, r := range runs {
			rw, ok := r.find(k)
			if !ok || rw.NotSent <= 0 {
				continue
			}
			turns := "turns"
			if rw.NotSent == 1 {
				turns = "turn"
			}
			lines = append(lines, fmt.Sprintf("- %s: %d %s not sent: an earlier turn of the conversation failed",
				cell(legendLabel(turnName(k, several), k.Runtime, r, runs)), rw.NotSent, turns))
		}
	}
	b.WriteString("A turn that fails ends its conversation: the turns after it are not sent, " +
		"so that later turns have fewer requests.\n\n")
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}
