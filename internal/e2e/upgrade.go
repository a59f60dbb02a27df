package e2e

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// verdictOut is what cmd/compare printed, read back: its headline line
// ("verdict: …") and, for each load (users), the call on decode and its
// change.
type verdictOut struct {
	headline string
	// calls are "better", "worse" or "no change" (with "beyond noise, but
	// less than 3%" trimmed off) by load.
	calls map[int]string
	// change is compare's change of decode by load, in percent.
	change map[int]float64
	// couldSee is the smallest change of decode the comparison says it
	// would have called, in percent; 0 where it says none.
	couldSee float64
	// blind is set where compare says its samples could call no change at
	// all ("… samples cannot reach …"): its "no change" bounds nothing.
	blind bool
	// blocked are the loads compare gave no verdict at, each with why.
	blocked map[int]string
}

var (
	// "  decode p50 at 4 users: 53.2 → 71.0 tok/s, +33.5% (p=0.002, Holm 0.026): better"
	decodeLineRE = regexp.MustCompile(`^\s+decode(?: p50)? at (\d+) users?: .*, ([+-][0-9.]+)% \(p=[^)]*\): (better|worse|no change)`)
	couldSeeRE   = regexp.MustCompile(`it would have seen decode(?: p50)? ±([0-9.]+)%`)
	// "no verdict at 1 user: during 5 of 6 NEW leaf runs …", or with every
	// leaf left out "no verdict: at 1 user: during …; at 4 users: during …"
	blockedRE = regexp.MustCompile(`at (\d+) users?: (during [^;]*)`)
)

// parseVerdict reads cmd/compare's output.
func parseVerdict(out string) verdictOut {
	v := verdictOut{calls: map[int]string{}, change: map[int]float64{}, blocked: map[int]string{}}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "verdict: ") && v.headline == "" {
			v.headline = line
		}
		if m := decodeLineRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			v.calls[n] = m[3]
			v.change[n], _ = strconv.ParseFloat(m[2], 64)
		}
	}
	if m := couldSeeRE.FindStringSubmatch(v.headline); m != nil {
		v.couldSee, _ = strconv.ParseFloat(m[1], 64)
	}
	v.blind = strings.Contains(v.headline, "samples cannot reach") ||
		regexp.MustCompile(`decode(?: p50)? no change it could tell from its noise`).MatchString(v.headline)
	for _, m := range blockedRE.FindAllStringSubmatch(v.headline, -1) {
		n, _ := strconv.Atoi(m[1])
		v.blocked[n] = m[2]
	}
	return v
}

// serverDecodeRatios are, by load, new's server_decode_tps_mean over
// old's, from the rows of runtimes oldRT and newRT of f (one prompt).
func serverDecodeRatios(f *summary.File, oldRT, newRT string) (map[int]float64, error) {
	rates := map[string]map[int]float64{oldRT: {}, newRT: {}}
	for _, r := range f.Summary {
		if rates[r.Runtime] == nil || r.RateRPS != nil {
			continue
		}
		if r.ServerDecodeTPSMean == nil || *r.ServerDecodeTPSMean <= 0 {
			return nil, fmt.Errorf("row %s: no server_decode_tps_mean", rowName(r))
		}
		rates[r.Runtime][r.Concurrency] = *r.ServerDecodeTPSMean
	}
	out := map[int]float64{}
	for c, o := range rates[oldRT] {
		if n, ok := rates[newRT][c]; ok {
			out[c] = n / o
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no load with rows of both %s and %s", oldRT, newRT)
	}
	return out, nil
}

// checkUpgrade checks compare's calls on decode against the servers' own
// counters: at each load the counters' ratio (new/old) must be on the
// side of 1 compare called, or, where it called no change, within the
// change it says it could have seen (at least tolerance, a fraction). A
// load compare gave no verdict at, and a "no change" where compare says
// its samples could call none, are reported, not failed; a load with
// neither a call nor a reason fails.
func checkUpgrade(v verdictOut, ratios map[int]float64, tolerance float64) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if v.headline == "" {
		fail("compare printed no \"verdict: \" line")
	}
	table = append(table, v.headline)
	band := math.Max(v.couldSee/100, tolerance)
	loads := make([]int, 0, len(ratios))
	for c := range ratios {
		loads = append(loads, c)
	}
	sort.Ints(loads)
	for _, c := range loads {
		r := ratios[c]
		call, called := v.calls[c]
		line := fmt.Sprintf("conc %d: server counters new/old %.3f; compare: ", c, r)
		switch {
		case !called && v.blocked[c] != "":
			table = append(table, line+"no verdict ("+v.blocked[c]+"): reported, not checked")
		case !called:
			table = append(table, line+"nothing")
			fail("conc %d: compare made no call on decode and gave no reason", c)
		case call == "better" && r <= 1, call == "worse" && r >= 1:
			table = append(table, fmt.Sprintf("%s%s %+.1f%%: DISAGREE", line, call, v.change[c]))
			fail("conc %d: compare called decode %s (%+.1f%%), the servers' counters say %.3f", c, call, v.change[c], r)
		case call == "no change" && v.blind:
			table = append(table, fmt.Sprintf("%sno change (%+.1f%%), but it says its samples could call none: reported, not checked", line, v.change[c]))
		case call == "no change" && math.Abs(r-1) > band:
			table = append(table, fmt.Sprintf("%sno change (%+.1f%%): counters beyond ±%.1f%%", line, v.change[c], band*100))
			fail("conc %d: compare called no change on decode, the servers' counters say %.3f, beyond ±%.1f%%", c, r, band*100)
		default:
			table = append(table, fmt.Sprintf("%s%s %+.1f%%: agree (no-change band ±%.1f%%)", line, call, v.change[c], band*100))
		}
	}
	return table, fails
}

// checkSameVersion checks compare's verdict on two runs of one version:
// it may claim no change. Exit 0 with no better or worse call, or exit 3
// naming the leaves where the machine was busy, pass; anything else fails.
func checkSameVersion(out string, exit int) (table, fails []string) {
	v := parseVerdict(out)
	table = append(table, fmt.Sprintf("compare exit %d", exit), v.headline)
	var called []string
	for c, call := range v.calls {
		if call == "better" || call == "worse" {
			called = append(called, fmt.Sprintf("decode %s at %d users", call, c))
		}
	}
	head := strings.TrimPrefix(v.headline, "verdict: ")
	claims := strings.Contains(head, ": better") || strings.Contains(head, ": worse")
	switch {
	case v.headline == "":
		fails = append(fails, "compare printed no \"verdict: \" line")
	case len(called) > 0 || claims:
		fails = append(fails, fmt.Sprintf("compare claimed a change between two runs of one version: %s %s", strings.Join(called, ", "), head))
	case exit == 0:
	case exit == 3 && len(v.blocked) > 0 && strings.Contains(head, "other processes used"):
	case exit == 3:
		fails = append(fails, "compare gave no verdict without naming the disturbed leaves: "+head)
	default:
		fails = append(fails, fmt.Sprintf("compare exited %d; want 0 (no change) or 3 (no verdict, the disturbed leaves named)", exit))
	}
	return table, fails
}

// leafRunMarks says, for each row of f, the other processes' use during
// each leaf run (cores) and which ran disturbed (*).
func leafRunMarks(label string, f *summary.File) []string {
	var out []string
	for _, r := range f.Summary {
		var marks []string
		for _, lr := range r.LeafRuns {
			m := "?"
			if lr.OtherCPUCores != nil {
				m = strconv.FormatFloat(*lr.OtherCPUCores, 'f', 2, 64)
			}
			if lr.Disturbed {
				m += "*"
			}
			marks = append(marks, m)
		}
		n, _, _ := r.Disturbance()
		out = append(out, fmt.Sprintf("%s %s: other cores per leaf run [%s], %d of %d disturbed",
			label, rowName(r), strings.Join(marks, " "), n, len(r.LeafRuns)))
	}
	return out
}
