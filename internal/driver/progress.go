package driver

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// Progress lines say how a leaf is getting on: one per finished round, for
// runs that take minutes. They must never reach go test's stdout, which is
// benchstat's input: go test copies the test's stderr there too, and a
// line written while a leaf runs lands between the benchmark's name and its
// result. So BENCH_PROGRESS picks where they go: config's words
// (config.ProgressAuto, the default, ProgressOff, ProgressStderr), or any
// other value a file they are appended to (e.g. for CI: tail -f it).
type progress struct {
	w      io.Writer // nil: nowhere
	close  func()
	rounds int // N of -benchtime=Nx, or 0
}

func openProgress(spec string, rounds int) (*progress, error) {
	p := &progress{close: func() {}, rounds: rounds}
	switch spec {
	case config.ProgressAuto:
		if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			p.w, p.close = f, func() { f.Close() }
		}
		return p, nil
	case config.ProgressOff:
		return p, nil
	case config.ProgressStderr:
		p.w = os.Stderr
		return p, nil
	}
	f, err := os.OpenFile(spec, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf(envProgress+"=%q: %w", spec, err)
	}
	p.w, p.close = f, func() { f.Close() }
	return p, nil
}

func (p *progress) printf(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, Prefix+format+"\n", args...)
	}
}

// leafProgress tracks one leaf's rounds for its progress lines.
type leafProgress struct {
	p      *progress
	name   string // e.g. "runtime=sim/prompt=short/conc=4"
	rounds int    // timed rounds done
	of     int    // the rounds it will run (a control's), 0: the run's -benchtime=Nx
	tokens int
	wall   time.Duration
}

// warmUp reports warm-up round i (from 1) of n.
func (l *leafProgress) warmUp(i, n int, r stats.Round) {
	l.p.printf("%s: warm-up %d of %d done in %s", l.name, i, n, r.Wall.Round(time.Millisecond))
}

// round reports a finished timed round: the running aggregate tok/s and,
// when -benchtime=Nx fixes the count, the time left in this leaf.
func (l *leafProgress) round(r stats.Round) {
	l.rounds++
	l.wall += r.Wall
	for _, res := range r.Results {
		if res.OK() {
			l.tokens += res.OutputTokens
		}
	}
	of, left := "", ""
	n := l.p.rounds
	if l.of > 0 {
		n = l.of
	}
	if n > 0 {
		of = " of " + strconv.Itoa(n)
		if rem := n - l.rounds; rem > 0 {
			left = fmt.Sprintf(", about %s left in this leaf", (l.wall / time.Duration(l.rounds) * time.Duration(rem)).Round(time.Second/10))
		}
	}
	rate := 0.0
	if l.wall > 0 {
		rate = float64(l.tokens) / l.wall.Seconds()
	}
	l.p.printf("%s: round %d%s, %.1f tok/s so far%s", l.name, l.rounds, of, rate, left)
}
