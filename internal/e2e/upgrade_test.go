package e2e

import (
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/summary"
)

const upgradeTitle = "ollama 0.6.5 → 0.17.4 (ollama@0.6.5 → ollama@0.17.4, side by side)"

// compareOut is cmd/compare's output in the form its verdict prints:
// the headline, then each test under the title.
func compareOut(headline string, tests ...string) string {
	lines := []string{"goos: linux", "", "verdict: " + upgradeTitle + ": " + headline, upgradeTitle + ":"}
	for _, t := range tests {
		lines = append(lines, "  "+t)
	}
	return strings.Join(append(lines, "judged: 6 tests"), "\n") + "\n"
}

func TestParseVerdict(t *testing.T) {
	out := compareOut("better: decode p50 +24.1% at 4 users, no change at 1 user",
		"decode p50 at 1 user: 350 → 355 tok/s, +1.4% (p=0.589, Holm 1.000): no change",
		"decode p50 at 4 users: 55.2 → 68.5 tok/s, +24.1% (p=0.002, Holm 0.013): better",
		"TTFT mean at 4 users: 1.2 → 1.0 s, -16.0% (p=0.002, Holm 0.013): better")
	v := parseVerdict(out)
	if !strings.HasPrefix(v.headline, "verdict: "+upgradeTitle) {
		t.Errorf("headline %q", v.headline)
	}
	if v.calls[1] != "no change" || v.calls[4] != "better" || len(v.calls) != 2 {
		t.Errorf("calls %v, want 1: no change, 4: better (TTFT's line not taken for decode)", v.calls)
	}
	if v.change[4] != 24.1 || v.change[1] != 1.4 {
		t.Errorf("changes %v", v.change)
	}
	v = parseVerdict(compareOut("no change (it would have seen decode p50 ±5.4%, TTFT mean ±10.2%); no verdict at 1 user: during 5 of 6 NEW leaf runs other processes used up to 0.93 of 2 cores: the machine, not only the runtime, is in its figures",
		"decode p50 at 4 users: 55.2 → 56.5 tok/s, +2.4% (p=0.3, Holm 1.000): no change (beyond noise, but less than 3%)"))
	if v.couldSee != 5.4 || v.calls[4] != "no change" {
		t.Errorf("couldSee %v calls %v", v.couldSee, v.calls)
	}
	if !strings.HasPrefix(v.blocked[1], "during 5 of 6 NEW leaf runs") || len(v.blocked) != 1 {
		t.Errorf("blocked %v", v.blocked)
	}
}

func TestCheckUpgrade(t *testing.T) {
	agree := parseVerdict(compareOut("better: decode p50 +24.1% at 4 users, no change at 1 user",
		"decode p50 at 1 user: 350 → 355 tok/s, +1.4% (p=0.589, Holm 1.000): no change",
		"decode p50 at 4 users: 55.2 → 68.5 tok/s, +24.1% (p=0.002, Holm 0.013): better"))
	blocked := parseVerdict(compareOut("better: decode p50 +24.1% at 4 users; no verdict at 1 user: during 2 of 6 OLD leaf runs other processes used up to 1.10 of 2 cores: the machine, not only the runtime, is in its figures",
		"decode p50 at 4 users: 55.2 → 68.5 tok/s, +24.1% (p=0.002, Holm 0.013): better"))
	for _, c := range []struct {
		name   string
		v      verdictOut
		ratios map[int]float64
		fail   string // in a failure; "" for none
		line   string // in the table
	}{
		{"agree", agree, map[int]float64{1: 1.04, 4: 1.22}, "", "conc 4: server counters new/old 1.220; compare: better +24.1%: agree"},
		{"better but counters slower", agree, map[int]float64{1: 1.04, 4: 0.95}, "conc 4: compare called decode better", "DISAGREE"},
		{"no change but counters 30% apart", agree, map[int]float64{1: 1.30, 4: 1.22}, "beyond ±10.0%", "conc 1"},
		{"disturbed leaf reported", blocked, map[int]float64{1: 0.5, 4: 1.22}, "", "conc 1: server counters new/old 0.500; compare: no verdict (during 2 of 6 OLD"},
		{"no call and no reason", blocked, map[int]float64{2: 1, 4: 1.22}, "conc 2: compare made no call", "conc 2"},
		{"no change where compare could see none", parseVerdict(compareOut("no change (it would have seen decode p50 no change it could tell from its noise, TTFT mean ±12.0%, aggregate ±8.0%)",
			"decode p50 at 4 users: 51.08 → 70.59 tok/s, +38.2% (p=0.041, Holm 0.247): no change")), map[int]float64{4: 1.38}, "", "conc 4: server counters new/old 1.380; compare: no change (+38.2%), but it says its samples could call none: reported"},
		{"no verdict line", parseVerdict("benchstat only\n"), map[int]float64{4: 1}, "no \"verdict: \" line", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			table, fails := checkUpgrade(c.v, c.ratios, 0.10)
			all := strings.Join(fails, "\n")
			if c.fail == "" && len(fails) > 0 || c.fail != "" && !strings.Contains(all, c.fail) {
				t.Errorf("fails %q, want %q", all, c.fail)
			}
			if !strings.Contains(strings.Join(table, "\n"), c.line) {
				t.Errorf("table %q lacks %q", table, c.line)
			}
		})
	}
}

func TestCheckSameVersion(t *testing.T) {
	disturbed := "no verdict: at 1 user: during 3 of 6 OLD leaf runs other processes used up to 1.02 of 2 cores: the machine, not only the runtime, is in its figures"
	for _, c := range []struct {
		name string
		out  string
		exit int
		fail string
	}{
		{"no change", compareOut("no change (it would have seen decode p50 ±4.1%)", "decode p50 at 1 user: 350 → 352 tok/s, +0.6% (p=0.7, Holm 1.000): no change"), 0, ""},
		{"worse claimed", compareOut("worse: decode p50 -12.0% at 1 user", "decode p50 at 1 user: 350 → 308 tok/s, -12.0% (p=0.002, Holm 0.004): worse"), 4, "claimed a change"},
		{"disturbed named", compareOut("no change (it would have seen decode p50 ±4.1%); no verdict at 1 user: during 3 of 6 OLD leaf runs other processes used up to 1.02 of 2 cores: the machine, not only the runtime, is in its figures"), 3, ""},
		{"all disturbed", "verdict: ollama 0.17.4, NEW vs OLD: " + disturbed + "\n", 3, ""},
		{"no verdict for too few samples", "verdict: no verdict: n=3, need 6 (go test -count=6 or more)\n", 3, "without naming the disturbed leaves"},
		{"failed", "compare: no such run\n", 1, "no \"verdict: \" line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, fails := checkSameVersion(c.out, c.exit)
			all := strings.Join(fails, "\n")
			if c.fail == "" && len(fails) > 0 || c.fail != "" && !strings.Contains(all, c.fail) {
				t.Errorf("fails %q, want %q", all, c.fail)
			}
		})
	}
}

func TestServerDecodeRatios(t *testing.T) {
	rate := func(v float64) *float64 { return &v }
	f := &summary.File{Summary: []summary.Row{
		{Runtime: "ollama@0.6.5", Prompt: "short", Concurrency: 1, ServerDecodeTPSMean: rate(300)},
		{Runtime: "ollama@0.17.4", Prompt: "short", Concurrency: 1, ServerDecodeTPSMean: rate(330)},
		{Runtime: "ollama@0.6.5", Prompt: "short", Concurrency: 4, ServerDecodeTPSMean: rate(60)},
		{Runtime: "ollama@0.17.4", Prompt: "short", Concurrency: 4, ServerDecodeTPSMean: rate(45)},
		{Runtime: "other", Prompt: "short", Concurrency: 4},
	}}
	r, err := serverDecodeRatios(f, "ollama@0.6.5", "ollama@0.17.4")
	if err != nil || len(r) != 2 || r[1] != 1.1 || r[4] != 0.75 {
		t.Errorf("ratios %v, %v; want 1: 1.1, 4: 0.75", r, err)
	}
	f.Summary[3].ServerDecodeTPSMean = nil
	if _, err := serverDecodeRatios(f, "ollama@0.6.5", "ollama@0.17.4"); err == nil || !strings.Contains(err.Error(), "ollama@0.17.4/short/conc=4: no server_decode_tps_mean") {
		t.Errorf("err %v, want the row without the counters named", err)
	}
	if _, err := serverDecodeRatios(f, "a", "b"); err == nil || !strings.Contains(err.Error(), "no load with rows of both a and b") {
		t.Errorf("err %v", err)
	}
}
