package main

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// runRecords are the request records of one run, as the distribution
// charts and the chart of TTFT against input length use them: per runtime
// and prompt, of the timed (not warm-up) requests that succeeded.
type runRecords struct {
	path string // the file read; "" if the run has none
	err  error  // why it could not be read
	by   map[[2]string]*dist
}

// dist is what the records of one runtime and prompt hold.
type dist struct {
	gaps []float64 // seconds between successive text chunks, sorted
	tpot []float64 // each request's TPOT in seconds, sorted
	// chunked counts the requests that have chunk arrival times.
	chunked int
	// lengths are the requests that asked an input length of their own,
	// in the order recorded (lengthchart.go).
	lengths []lengthPoint
}

// recordsFile is where the suite writes a run's request records (see
// besideSummary); "" if there is none.
func recordsFile(r *run) string {
	return besideSummary(r, func(p summary.Paths) string { return p.Records })
}

// besideSummary is the file of a run that the suite writes beside its
// summary JSON, which pick chooses of the run's paths: named by its run
// ID or, for a file without one, by the summary's own name; "" if there is
// none.
func besideSummary(r *run, pick func(summary.Paths) string) string {
	dir := filepath.Dir(r.File)
	if r.ID != "" {
		if p := pick(summary.PathsOf(dir, r.ID)); exists(p) {
			return p
		}
	}
	base := strings.TrimSuffix(filepath.Base(r.File), filepath.Ext(r.File))
	if p := pick(summary.PathsOf(dir, base)); exists(p) {
		return p
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// readRecords reads r's request records, if it has any.
func readRecords(r *run) runRecords {
	out := runRecords{path: recordsFile(r), by: map[[2]string]*dist{}}
	if out.path == "" {
		return out
	}
	recs, err := records.Read(out.path)
	if err != nil {
		return runRecords{path: out.path, err: err}
	}
	for _, rec := range recs {
		if !rec.Timed() || rec.ErrorClass != nil || rec.Error != nil {
			continue
		}
		prompt := rec.Prompt
		if prompt == "" {
			prompt = noPrompt
		}
		k := [2]string{rec.Runtime, prompt}
		d := out.by[k]
		if d == nil {
			d = &dist{}
			out.by[k] = d
		}
		if rec.ChunkS != nil {
			d.chunked++
			for i := 1; i < len(rec.ChunkS); i++ {
				d.gaps = append(d.gaps, rec.ChunkS[i]-rec.ChunkS[i-1])
			}
		}
		if rec.TPOTS != nil {
			d.tpot = append(d.tpot, *rec.TPOTS)
		}
		if p, ok := lengthPointOf(rec); ok {
			d.lengths = append(d.lengths, p)
		}
	}
	for _, d := range out.by {
		slices.Sort(d.gaps)
		slices.Sort(d.tpot)
	}
	return out
}

// distribution returns the drawer of the prompt's distribution chart from
// the runs' request records (recs, one per run): the inter-token latency
// (ITL) CDF where chunk arrival times were recorded (BENCH_RECORD_CHUNKS=1),
// else each request's TPOT CDF, one line per runtime and run.
func (c chartSet) distribution(recs []runRecords) func() (chartFile, bool, error) {
	return func() (chartFile, bool, error) {
		chunked, withTPOT := c.recorded(recs)
		f := c.file("itl", "Inter-token latency distribution", secTiming)
		title, xl, yl := "Inter-token latency distribution", "gap between text chunks (ms), log scale", "share of gaps ≤ x"
		if !chunked {
			if !withTPOT {
				return f, false, nil
			}
			f = c.file("tpot", "Time per output token distribution", secTiming)
			title, xl, yl = "Time per output token distribution (per request)", "TPOT of a request (ms), log scale", "share of requests ≤ x"
		}
		lines, left := c.distributionLines(recs, chunked)
		if len(lines) == 0 {
			return f, false, nil
		}
		f.note = left.note(chunked)
		var err error
		f.data, err = cdfChart(title+" — prompt "+c.prompt, xl, yl, lines)
		return f, err == nil, err
	}
}

// recorded reports whether any record of c's prompt has chunk arrival
// times (chunked), and any a TPOT.
func (c chartSet) recorded(recs []runRecords) (chunked, withTPOT bool) {
	for _, name := range c.names {
		for i := range c.runs {
			d := recs[i].by[[2]string{name, c.prompt}]
			if d == nil {
				continue
			}
			chunked = chunked || len(d.gaps) > 0
			withTPOT = withTPOT || len(d.tpot) > 0
		}
	}
	return chunked, withTPOT
}

// leftOut are the runtimes and runs a distribution chart has no line of,
// by why: records without chunk times, no records, records unreadable,
// no timed successful request in them.
type leftOut struct {
	noChunks, noFile, unreadable, empty []string
}

// distributionLines are the chart's lines, a runtime and run each: the
// distribution of the gaps (chunked) or of the TPOTs in ms; and those
// left out, and why.
func (c chartSet) distributionLines(recs []runRecords, chunked bool) ([]series, leftOut) {
	var (
		lines []series
		left  leftOut
	)
	for ri, name := range c.names {
		if !slices.ContainsFunc(c.ks, func(k key) bool { return k.Runtime == name && k.Prompt == c.prompt }) {
			continue
		}
		for ui, r := range c.runs {
			label := legendLabel(name, name, r, c.runs)
			if _, ok := findRuntime(r, name, c.prompt); !ok {
				continue // not run: the tables say so
			}
			switch d := recs[ui].by[[2]string{name, c.prompt}]; {
			case recs[ui].path == "":
				left.noFile = appendNew(left.noFile, r.Label)
			case recs[ui].err != nil:
				left.unreadable = appendNew(left.unreadable, r.Label)
			case d == nil:
				left.empty = append(left.empty, label)
			case chunked && d.chunked == 0:
				left.noChunks = append(left.noChunks, label)
			case chunked && len(d.gaps) == 0:
				left.empty = append(left.empty, label) // one chunk a request: no gap
			default:
				xs := d.tpot
				if chunked {
					xs = d.gaps
				}
				if pts := cdf(xs, 1e3); len(pts) > 0 {
					lines = append(lines, series{label: label, color: ri, style: ui, pts: pts})
				} else {
					left.empty = append(left.empty, label)
				}
			}
		}
	}
	return lines, left
}

// note is the chart's note: what it draws, and what it left out.
func (left leftOut) note(chunked bool) string {
	var notes []string
	if chunked {
		notes = append(notes, "The gaps between successive text chunks of every timed, successful request, all loads together, from the chunk arrival times in the request records.")
		if len(left.noChunks) > 0 {
			notes = append(notes, "Left out, recorded without chunk times (BENCH_RECORD_CHUNKS=1 records them): "+strings.Join(left.noChunks, ", ")+".")
		}
	} else {
		notes = append(notes, "No request record of this prompt has chunk arrival times, which the inter-token latency distribution needs (run with BENCH_RECORD_CHUNKS=1), "+
			"so this is the distribution of each timed, successful request's TPOT, (total − TTFT) / (output tokens − 1), all loads together: one value per request, not per gap.")
	}
	if len(left.noFile) > 0 {
		notes = append(notes, "No request records beside the summary of "+strings.Join(left.noFile, ", ")+".")
	}
	if len(left.unreadable) > 0 {
		notes = append(notes, "The request records of "+strings.Join(left.unreadable, ", ")+" could not be read (report says why).")
	}
	if len(left.empty) > 0 {
		notes = append(notes, "No timed, successful request in the records of "+strings.Join(left.empty, ", ")+".")
	}
	return strings.Join(notes, " ")
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// findRuntime returns a row of the runtime and prompt in r.
func findRuntime(r *run, runtime, prompt string) (row, bool) {
	for _, rw := range r.Rows {
		if rw.Runtime == runtime && rw.Prompt == prompt {
			return rw, true
		}
	}
	return row{}, false
}

// cdfPoints is the most points a distribution line has.
const cdfPoints = 200

// cdfFloor is the lowest x of a distribution chart, in ms: a microsecond.
const cdfFloor = 0.001

// cdf returns the empirical distribution function of the sorted xs, times
// scale, as the points of its steps: at each value x, from the share of
// xs below x up to the share ≤ x. Every value is a step for up to
// cdfPoints values; beyond, cdfPoints of them evenly spread over the
// ranks, the first and last included, so that a line has at most twice
// cdfPoints points. Values of zero or less, which a log axis cannot show,
// are counted but not drawn.
func cdf(xs []float64, scale float64) plotter.XYs {
	n := len(xs)
	var pts plotter.XYs
	step := max(float64(n-1)/float64(cdfPoints-1), 1)
	last, below := -1, 0.0
	for k := 0.0; ; k++ {
		i := min(int(math.Round(k*step)), n-1)
		// The last rank of a run of equal values is the share ≤ x.
		for i+1 < n && xs[i+1] == xs[i] {
			i++
		}
		if i > last {
			last = i
			share := float64(i+1) / float64(n)
			if x := xs[i] * scale; x > 0 {
				pts = append(pts, plotter.XY{X: x, Y: below}, plotter.XY{X: x, Y: share})
			}
			below = share
		}
		if i == n-1 {
			break
		}
	}
	return pts
}

// cdfChart draws distribution lines on a log x axis and a y axis from 0
// to 1, without markers; the legend is top left, where a distribution
// function leaves room.
func cdfChart(title, xLabel, yLabel string, lines []series) ([]byte, error) {
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	if err := addLines(p, lines, false, true); err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range lines {
		for _, pt := range s.pts {
			lo, hi = min(lo, pt.X), max(hi, pt.X)
		}
	}
	if hi <= lo*1.5 { // a narrow spread: room on both sides
		lo, hi = lo/1.5, hi*1.5
	}
	// Below a microsecond is the clock's noise: chunks that came in one
	// read. Their share shows where the lines enter at the left edge.
	lo = max(lo, cdfFloor*1.1)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.X.Min, p.X.Max = lo/1.1, hi*1.1
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Y.Tick.Marker = plotkit.NiceTicks{}
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	return plotkit.SVG(c)
}
