//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// runCompare builds cmd/compare and runs it on the runs named (paths of
// their .txt), returning its output and exit status (go run would turn
// every failure into 1).
func runCompare(t *testing.T, runs ...string) (string, int) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "compare")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/compare").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/compare: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, runs...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("compare %v: %v", runs, err)
	return "", 0
}

// TestUpgrade checks a suite run of two Ollama versions side by side
// (E2E_UPGRADE_TXT and E2E_UPGRADE_SUMMARY; runtimes E2E_UPGRADE_OLD and
// E2E_UPGRADE_NEW): compare's call on decode at each load agrees with the
// servers' own counters (server_decode_tps_mean new/old): better above 1,
// worse below, no change within the change compare says it could have
// seen or ±10%, whichever is wider. A load compare gave no verdict at (a
// disturbed leaf) is reported, not failed.
func TestUpgrade(t *testing.T) {
	var env envVars
	txt, js := env.str("E2E_UPGRADE_TXT"), env.str("E2E_UPGRADE_SUMMARY")
	oldRT, newRT := env.str("E2E_UPGRADE_OLD"), env.str("E2E_UPGRADE_NEW")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	out, exit := runCompare(t, txt)
	if exit != 0 && exit != 3 && exit != 4 {
		t.Fatalf("compare %s exited %d:\n%s", txt, exit, out)
	}
	f := readSummary(t, js)
	ratios, err := serverDecodeRatios(f, oldRT, newRT)
	if err != nil {
		t.Fatal(err)
	}
	table, fails := checkUpgrade(parseVerdict(out), ratios, 0.10)
	table = append(table, fmt.Sprintf("compare exit %d", exit))
	logChecks(t, append(table, leafRunMarks("upgrade", f)...), fails)
}

// TestSameVersion checks two suite runs of one version (E2E_SAME_TXT,
// two .txt paths joined by a comma, and E2E_SAME_SUMMARIES, their summary
// JSONs), the first with a CPU burner beside it: compare may claim no
// change (exit 0 with no better or worse, or exit 3 naming the disturbed
// leaves).
func TestSameVersion(t *testing.T) {
	var env envVars
	txts, sums := env.names("E2E_SAME_TXT"), env.names("E2E_SAME_SUMMARIES")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	if len(txts) != 2 || len(sums) != 2 {
		t.Fatalf("E2E_SAME_TXT and E2E_SAME_SUMMARIES: want two runs each, got %d and %d", len(txts), len(sums))
	}
	for _, p := range txts {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	out, exit := runCompare(t, txts[0], txts[1])
	table, fails := checkSameVersion(out, exit)
	table = append(table, leafRunMarks("busy", readSummary(t, sums[0]))...)
	table = append(table, leafRunMarks("quiet", readSummary(t, sums[1]))...)
	logChecks(t, table, fails)
}
