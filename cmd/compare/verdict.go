package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// The verdict: the figures that moved beyond noise, computed as benchstat
// computes its "vs base" column (benchfmt reads the files, benchproc
// groups them as benchstat's flags say, benchmath's test and its default
// alpha judge), so that it agrees with the table printed above it.

// minSamples is the fewest samples of a figure on either side that compare
// gives a verdict on: go test -count=6 or more. With fewer, a U-test of
// many figures at once says little either way: n=4 can reach p=0.029, one
// figure in twenty moves by chance at alpha 0.05, and one outlier in three
// samples rules the median.
const minSamples = 6

// change is one figure of one leaf, compared as benchstat compares it.
type change struct {
	unit   string // as benchstat shows it: ttft-sec for ttft-ns
	better int    // benchfmt's GetBetter: +1 higher is better, -1 lower, 0 neither
	group  string // what is compared: a runtime (two runs), "other vs base" (one run)
	leaf   string // the row, the runtime= level left out
	key    bench.Key
	parsed bool // key holds the row's levels
	cmp    benchmath.Comparison
	delta  string // benchmath's FormatDelta: "~" or "+12.34%"
	// old and new are the two sides' centers (medians): benchstat's
	// columns; oldVals and newVals their samples.
	old, new         float64
	oldVals, newVals []float64
}

// percent is the change as the verdict says it: "+12.3%".
func (c change) percent() string {
	if c.old == 0 {
		return c.delta
	}
	return fmt.Sprintf("%+.1f%%", (c.new/c.old-1)*100)
}

// moved reports whether the change is beyond noise: benchstat shows a
// percentage, not "~".
func (c change) moved() bool { return c.delta != "~" && c.delta != "0.00%" }

// bsCall are benchstat's arguments taken apart: its flags and its
// file arguments (label=path or path, from the root).
type bsCall struct {
	col, ignore, filter string
	files               []string
}

func parseCall(args []string) bsCall {
	var c bsCall
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--":
			c.files = args[i+1:]
			return c
		case "-col":
			i++
			c.col = args[i]
		case "-ignore":
			i++
			c.ignore = args[i]
		case "-filter":
			i++
			c.filter = args[i]
		}
	}
	return c
}

// compareFigures reads the files of a benchstat call from root and returns
// every comparison benchstat's table makes, in its order: table (unit)
// by table, row by row, column by column.
func compareFigures(root string, args []string) ([]change, error) {
	call := parseCall(args)
	p, err := parseProjections(call)
	if err != nil {
		return nil, err
	}
	g, units, err := readCells(p, labeledPaths(root, call.files))
	if err != nil {
		return nil, err
	}
	thresholds := benchmath.DefaultThresholds
	var out []change
	for _, t := range sortedKeys(g.tables) {
		unit := t.Get(p.unitField)
		assumption := units.GetAssumption(unit)
		colKeys := sortedKeys(g.cols[t])
		base := colKeys[0]
		for _, row := range sortedKeys(g.rows[t]) {
			b, ok := g.cells[cellKey{t, row, base}]
			if !ok {
				continue
			}
			bs := benchmath.NewSample(b, &thresholds)
			for _, c := range colKeys[1:] {
				v, ok := g.cells[cellKey{t, row, c}]
				if !ok {
					continue
				}
				s := benchmath.NewSample(v, &thresholds)
				cmp := assumption.Compare(bs, s)
				ch := change{
					unit:    unit,
					better:  units.GetBetter(unit),
					leaf:    row.Get(p.rowField),
					cmp:     cmp,
					old:     assumption.Summary(bs, 0.95).Center,
					new:     assumption.Summary(s, 0.95).Center,
					oldVals: b,
					newVals: v,
				}
				ch.delta = cmp.FormatDelta(ch.old, ch.new)
				p.name(&ch, c, base)
				out = append(out, ch)
			}
		}
	}
	return out, nil
}

// projections are how a benchstat call groups results: its filter, and
// its -table (with the unit), -row and -col projections.
type projections struct {
	filter                        *benchproc.Filter
	tableBy, rowBy, colBy         *benchproc.Projection
	unitField, rowField, colField *benchproc.Field
	col                           string // the -col projection, ".file" by default
}

// parseProjections parses a benchstat call's filter and projections as
// benchstat parses its flags, in its order: -table, -row, -col, then
// -ignore, whose keys the others then leave out.
func parseProjections(call bsCall) (projections, error) {
	var p projections
	filterQuery := call.filter
	if filterQuery == "" {
		filterQuery = "*"
	}
	var err error
	if p.filter, err = benchproc.NewFilter(filterQuery); err != nil {
		return p, fmt.Errorf("-filter %s: %v", filterQuery, err)
	}
	var parser benchproc.ProjectionParser
	if p.tableBy, p.unitField, err = parser.ParseWithUnit(".config", p.filter); err != nil {
		return p, err
	}
	if p.rowBy, err = parser.Parse(".fullname", p.filter); err != nil {
		return p, err
	}
	p.col = call.col
	if p.col == "" {
		p.col = ".file"
	}
	if p.colBy, err = parser.Parse(p.col, p.filter); err != nil {
		return p, err
	}
	if call.ignore != "" {
		if _, err := parser.Parse(call.ignore, p.filter); err != nil {
			return p, err
		}
	}
	p.rowField, p.colField = p.rowBy.Fields()[0], p.colBy.Fields()[0]
	return p, nil
}

// name fills a comparison's key and group from its leaf, of column c
// against the base column.
func (p projections) name(ch *change, c, base benchproc.Key) {
	name := ch.leaf
	if p.col != ".file" {
		// The row has no runtime= level: put one back to read it.
		name = strings.Replace(name, "Inference/", "Inference/runtime=_/", 1)
	}
	if k, _, err := bench.ParseName(name); err == nil {
		ch.key, ch.parsed = k, true
	}
	if p.col == ".file" {
		// Two runs: what is compared is each runtime.
		ch.group = runtimeOf(benchfmt.Name(ch.leaf))
		ch.leaf = withoutRuntime(benchfmt.Name(ch.leaf))
	} else {
		ch.group = c.Get(p.colField) + " vs " + base.Get(p.colField)
	}
}

// labeledPaths are a benchstat call's files as benchfmt reads them,
// label=path, a relative path from root.
func labeledPaths(root string, files []string) []string {
	var paths []string
	for _, f := range files {
		label, path := f, f
		if l, p, ok := strings.Cut(f, "="); ok {
			label, path = l, p
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		paths = append(paths, label+"="+path)
	}
	return paths
}

// cellKey names a cell of benchstat's tables.
type cellKey struct{ table, row, col benchproc.Key }

// grid is benchstat's tables: each table's rows and columns, and the
// values of each cell.
type grid struct {
	cells  map[cellKey][]float64
	tables map[benchproc.Key]bool
	rows   map[benchproc.Key]map[benchproc.Key]bool
	cols   map[benchproc.Key]map[benchproc.Key]bool
}

// readCells reads the results of paths that pass the filter into their
// cells, and the files' unit metadata.
func readCells(p projections, paths []string) (grid, benchfmt.UnitMetadataMap, error) {
	g := grid{
		cells:  map[cellKey][]float64{},
		tables: map[benchproc.Key]bool{},
		rows:   map[benchproc.Key]map[benchproc.Key]bool{},
		cols:   map[benchproc.Key]map[benchproc.Key]bool{},
	}
	files := benchfmt.Files{Paths: paths, AllowLabels: true}
	for files.Scan() {
		res, ok := files.Result().(*benchfmt.Result)
		if !ok {
			continue // benchstat warns of syntax errors and goes on
		}
		if ok, _ := p.filter.Apply(res); !ok {
			continue
		}
		row, col := p.rowBy.Project(res), p.colBy.Project(res)
		for i, t := range p.tableBy.ProjectValues(res) {
			if !g.tables[t] {
				g.tables[t] = true
				g.rows[t], g.cols[t] = map[benchproc.Key]bool{}, map[benchproc.Key]bool{}
			}
			g.rows[t][row], g.cols[t][col] = true, true
			k := cellKey{t, row, col}
			g.cells[k] = append(g.cells[k], res.Values[i].Value)
		}
	}
	if err := files.Err(); err != nil {
		return g, nil, err
	}
	return g, benchfmt.UnitMetadataMap(files.Units()), nil
}

// sortedKeys returns m's keys in benchproc's order (first seen, unless a
// projection says otherwise), as benchstat orders tables, rows and columns.
func sortedKeys(m map[benchproc.Key]bool) []benchproc.Key {
	keys := make([]benchproc.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	return keys
}

// fewestSamples returns the smallest sample of any comparison, 0 for none.
func fewestSamples(changes []change) int {
	n := 0
	for _, c := range changes {
		for _, m := range []int{c.cmp.N1, c.cmp.N2} {
			if n == 0 || m < n {
				n = m
			}
		}
	}
	return n
}

// verdictGroup is one line of the verdict: what is compared (a runtime
// across two runs, or one runtime against the base runtime of one run).
type verdictGroup struct {
	name    string // "ollama" or "mlx vs ollama"
	title   string // the line's start: "ollama 0.6.5 → 0.7.0"
	changes []change
	// blockers say why the changes are no verdict: a drifted control;
	// notes are said at the end of the line: a changed canary reply.
	blockers, notes []string
	// leafBlocked says why a leaf is left out of the verdict (a side ran
	// disturbed), by the change's leaf.
	leafBlocked map[string]string
	// versions says the group compares versions of one runtime (two runs,
	// or two tagged names of one product in one run): a change for the
	// worse there is a regression.
	versions bool
}

// groupChanges sorts changes into their lines, in the order benchstat
// first shows each.
func groupChanges(changes []change) []*verdictGroup {
	var groups []*verdictGroup
	for _, c := range changes {
		i := slices.IndexFunc(groups, func(g *verdictGroup) bool { return g.name == c.group })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &verdictGroup{name: c.group, title: c.group})
		}
		groups[i].changes = append(groups[i].changes, c)
	}
	return groups
}

// leafNamer returns how a change's leaf is said in its line: by the
// levels that differ among the group's leaves ("at 4 users", "short at
// 1 user"), nothing when there is one leaf, the row's name for a
// benchmark that is not the suite's.
func leafNamer(changes []change) func(change) string {
	var prompts, loads []string
	var leaves []string
	allParsed := true
	for _, c := range changes {
		if !slices.Contains(leaves, c.leaf) {
			leaves = append(leaves, c.leaf)
		}
		if !c.parsed {
			allParsed = false
			continue
		}
		if !slices.Contains(prompts, c.key.Prompt) {
			prompts = append(prompts, c.key.Prompt)
		}
		if l := c.key.Load(); !slices.Contains(loads, l) {
			loads = append(loads, l)
		}
	}
	return func(c change) string {
		switch {
		case len(leaves) == 1:
			return ""
		case !allParsed:
			return "at " + stripProcs(c.leaf)
		}
		var s []string
		if len(prompts) > 1 {
			s = append(s, c.key.Prompt)
		}
		if len(loads) > 1 {
			load := fmt.Sprintf("%d users", c.key.Concurrency)
			switch {
			case c.key.Rate > 0:
				load = bench.FormatRate(c.key.Rate) + " req/s"
			case c.key.Concurrency == 1:
				load = "1 user"
			}
			s = append(s, "at "+load)
		}
		return strings.Join(s, " ")
	}
}

// versionTitle names a runtime compared across two runs with its
// versions: "ollama 0.6.5 → 0.7.0", "ollama 0.6.5" where both ran it.
func versionTitle(name string, files []beside) string {
	if name == "" {
		return "NEW vs OLD"
	}
	var vs []string
	for _, f := range files {
		if f.file == nil {
			return name + ", NEW vs OLD"
		}
		vs = append(vs, orUnknown(f.file.VersionOf(name)))
	}
	// A side of a product (ollama@0.17.4) is titled by the product, its
	// name after the versions: "ollama 0.17.4 (ollama@0.17.4), NEW vs OLD".
	t := product(name) + " " + vs[0]
	if vs[0] != vs[1] {
		t += " → " + vs[1]
	}
	if product(name) != name {
		t += " (" + name + ")"
	}
	if vs[0] == vs[1] {
		t += ", NEW vs OLD"
	}
	return t
}
