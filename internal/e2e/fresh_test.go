package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

func freshFile(mode string, short, medium float64, c *stats.Control) *summary.File {
	decode := func(x float64) *float64 { return &x }
	var control *summary.Control
	if c != nil {
		control = &summary.Control{Control: *c}
	}
	return &summary.File{
		Arguments: summary.Arguments{Fresh: mode},
		Runtimes:  []summary.RuntimeInfo{{Name: "ollama", Control: control}},
		Summary: []summary.Row{
			{Runtime: "ollama", Prompt: "short", Concurrency: 1, DecodeTPSMean: decode(short)},
			{Runtime: "ollama", Prompt: "short", Concurrency: 4, DecodeTPSMean: decode(40)},
			{Runtime: "ollama", Prompt: "medium", Concurrency: 1, DecodeTPSMean: decode(medium)},
		},
	}
}

func TestCheckFresh(t *testing.T) {
	w := freshWant{runtime: "ollama", first: "short", later: "medium", slower: 0.3, controlSlower: 0.25, faster: 0.5, contrast: 0.15, drift: 0.2}
	p := func(x float64) *float64 { return &x }
	steady := &stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", DecodeChange: 0.03, Verdict: stats.ControlSteady,
		RequestsFirst: 3, RequestsEnd: 12, DecodeP: p(1), TTFTP: p(1)}
	drifted := &stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", DecodeChange: -0.5, Drifted: true, Verdict: stats.ControlDrifted,
		RequestsFirst: 3, RequestsEnd: 12, DecodeP: p(2 / 455.0), TTFTP: p(1)}

	table, fails := checkFresh(freshFile("leaf", 270, 260, steady), freshFile("off", 270, 150, drifted), w)
	assert.Empty(t, fails)
	assert.Contains(t, strings.Join(table, "\n"), "row ollama/medium/conc=1                        260.0              150.0")
	assert.Contains(t, strings.Join(table, "\n"), "control, fresh=off: runtime=ollama/prompt=short/conc=1 decode null → null tok/s (-50.0%, p 0.0044), "+
		"TTFT p50 null → null ms (+0.0%, p 1), 3 requests against 12: drifted, drifted true")

	// A stale control that moved but had too few requests to be judged
	// fails, and says why.
	tooFew := &stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", DecodeChange: -0.5, Verdict: stats.ControlTooFew,
		RequestsFirst: 1, RequestsEnd: 2, DecodeP: p(2 / 3.0), TTFTP: p(1)}
	_, fails = checkFresh(freshFile("leaf", 270, 260, steady), freshFile("off", 270, 150, tooFew), w)
	assert.Equal(t, []string{"with BENCH_FRESH=off the control had too few requests to be judged: 1 in the first run, 2 at the end"}, fails)
	// A file whose verdict and drifted disagree is said.
	odd := *drifted
	odd.Verdict = stats.ControlSteady
	_, fails = checkFresh(freshFile("leaf", 270, 260, steady), freshFile("off", 270, 150, &odd), w)
	assert.Equal(t, []string{`the BENCH_FRESH=off run's control has verdict "steady" and drifted true`}, fails)

	_, fails = checkFresh(freshFile("leaf", 270, 170, steady), freshFile("off", 270, 150, drifted), w)
	assert.Len(t, fails, 2, "a fresh run whose later conc=1 leaf is slow fails, and is too close to the stale run")
	assert.Contains(t, fails[0], "the server kept state between leaves")
	assert.Contains(t, fails[1], "medium/short at conc=1 is 0.63 with fresh starts and 0.56 without: want at least 0.15 apart")

	_, fails = checkFresh(freshFile("leaf", 270, 260, drifted), freshFile("off", 270, 150, steady), w)
	assert.Len(t, fails, 3, "a drifted fresh control, and a stale control that neither moved nor is marked")

	_, fails = checkFresh(freshFile("off", 270, 260, steady), freshFile("off", 270, 150, nil), w)
	assert.Len(t, fails, 2, "the wrong mode, and no control")

	// A slow first measurement is noise, and passes: the later leaf
	// 1.2× the first, the control 27% faster at the end.
	faster := &stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", DecodeChange: 0.27, Drifted: true, Verdict: stats.ControlDrifted}
	_, fails = checkFresh(freshFile("leaf", 200, 240, faster), freshFile("off", 270, 150, drifted), w)
	assert.Empty(t, fails)

	// Kept state is a slowdown: a control 30% slower fails, and so
	// would one that ran twice as fast.
	for change, want := range map[float64]string{-0.3: "-30.0%", 0.6: "+60.0%"} {
		c := &stats.Control{Leaf: "runtime=ollama/prompt=short/conc=1", DecodeChange: change, Drifted: true, Verdict: stats.ControlDrifted}
		_, fails = checkFresh(freshFile("leaf", 270, 260, c), freshFile("off", 270, 150, drifted), w)
		if assert.Len(t, fails, 1, "control %+.0f%%", 100*change) {
			assert.Equal(t, "with BENCH_FRESH=leaf the control decoded "+want+" against the first run: want -25% to +50%", fails[0])
		}
	}
}
