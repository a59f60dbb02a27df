package suite

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// Progress lines say how a leaf is getting on: one per finished round, for
// runs that take minutes. They must never reach go test's stdout, which is
// benchstat's input: go test copies the test's stderr there too, and a
// line written while a leaf runs lands between the benchmark's name and its
// result. So BENCH_PROGRESS picks where they go:
//
//	auto    the terminal (/dev/tty) if there is one, else nowhere (default)
//	off     nowhere
//	stderr  standard error: only for a test binary run directly (go test -c)
//	PATH    appended to the file PATH (e.g. for CI: tail -f it)
func openProgress(spec string) (io.Writer, func(), error) {
	none := func() {}
	switch spec {
	case "", "auto":
		f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
		if err != nil {
			return nil, none, nil
		}
		return f, func() { f.Close() }, nil
	case "off", "0", "false":
		return nil, none, nil
	case "stderr":
		return os.Stderr, none, nil
	}
	f, err := os.OpenFile(spec, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, none, fmt.Errorf("BENCH_PROGRESS=%q: %w", spec, err)
	}
	return f, func() { f.Close() }, nil
}

// Leaf tracks one leaf's rounds for its progress lines.
type Leaf struct {
	s      *Suite
	name   string
	rounds int // timed rounds done
	tokens int
	wall   time.Duration
}

// Leaf starts the progress account of the leaf named name (without the
// Benchmark prefix, e.g. "runtime=sim/prompt=short/conc=4").
func (s *Suite) Leaf(name string) *Leaf { return &Leaf{s: s, name: name} }

// WarmUp reports warm-up round i (from 1) of n.
func (l *Leaf) WarmUp(i, n int, r summary.Round) {
	l.s.progressf("%s: warm-up %d of %d done in %s", l.name, i, n, r.Wall.Round(time.Millisecond))
}

// Round reports a finished timed round: the running aggregate tok/s and,
// when -benchtime=Nx fixes the count, the time left in this leaf.
func (l *Leaf) Round(r summary.Round) {
	l.rounds++
	l.wall += r.Wall
	for _, res := range r.Results {
		if res.OK() {
			l.tokens += res.OutputTokens
		}
	}
	of, left := "", ""
	if n := fixedRounds(); n > 0 {
		of = " of " + strconv.Itoa(n)
		if rem := n - l.rounds; rem > 0 {
			left = fmt.Sprintf(", about %s left in this leaf", (l.wall / time.Duration(l.rounds) * time.Duration(rem)).Round(time.Second/10))
		}
	}
	rate := 0.0
	if l.wall > 0 {
		rate = float64(l.tokens) / l.wall.Seconds()
	}
	l.s.progressf("%s: round %d%s, %.1f tok/s so far%s", l.name, l.rounds, of, rate, left)
}

func (s *Suite) progressf(format string, args ...any) {
	if s.progress != nil {
		fmt.Fprintf(s.progress, Prefix+format+"\n", args...)
	}
}

// fixedRounds is N of -test.benchtime=Nx, or 0.
func fixedRounds() int {
	if n, ok := strings.CutSuffix(flagValue("test.benchtime"), "x"); ok {
		if v, err := strconv.Atoi(n); err == nil {
			return v
		}
	}
	return 0
}
