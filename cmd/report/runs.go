package main

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The table of runs, at the top of report.md: one line per file.

// writeRuns writes the table of runs.
func writeRuns(b *strings.Builder, runs []*run) {
	withSLO := slices.ContainsFunc(runs, func(r *run) bool { return r.SLO != "" })
	withTurns := slices.ContainsFunc(runs, func(r *run) bool { return r.Turns > 1 })
	withPrefix := slices.ContainsFunc(runs, func(r *run) bool { return r.SharedPrefix > 0 })
	withIdle := slices.ContainsFunc(runs, func(r *run) bool { return r.IdlePowerW != nil })
	heads := []head{{text: "run"}, {text: "file"}, {text: "created"}, {text: "host"}, {text: "versions"}, {text: "cache"}}
	if withSLO {
		heads = append(heads, head{text: "SLO"})
	}
	if withTurns {
		heads = append(heads, head{"turns", true})
	}
	if withPrefix {
		heads = append(heads, head{"shared prefix", true})
	}
	if withIdle {
		heads = append(heads, head{"idle power", true})
	}
	writeHead(b, append(heads, head{"rows", true})...)
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
		if r.Host != "" {
			host = r.Host + ": " + host
		}
		cells := []string{name, cell("`" + r.File + "`"), orMissing(when(r.CreatedAt)), orMissing(host), orMissing(versions(r.Versions)), cell(r.Cache)}
		if withSLO {
			cells = append(cells, orMissing(cell(r.SLO)))
		}
		if withTurns {
			cells = append(cells, strconv.Itoa(r.Turns))
		}
		if withPrefix {
			cells = append(cells, prefixCell(r.SharedPrefix))
		}
		if withIdle {
			cells = append(cells, idlePower(r))
		}
		writeLine(b, 0, append(cells, strconv.Itoa(len(r.Rows)))...)
	}
	b.WriteString("\n")
	writeModels(b, runs)
}

// prefixCell is a run's shared prefix for a cell: "1024 tok", or "none".
func prefixCell(tokens int) string {
	if tokens <= 0 {
		return "none"
	}
	return strconv.Itoa(tokens) + " tok"
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
