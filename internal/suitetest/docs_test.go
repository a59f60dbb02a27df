package suitetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// markdown is every markdown file of the repository but testdata's, with
// its text, by its path from the root.
func markdown(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || e.Name() == "results") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".md") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			docs[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, docs, "docs/workloads.md")
	return docs
}

// The notes the docs quote under a result line carry the line of
// inference_test.go that logs them, as go test prints it.
func TestDocsQuoteTheLogLine(t *testing.T) {
	src, err := os.ReadFile(at("inference_test.go"))
	require.NoError(t, err)
	var logLine int
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "b.Log(note)") {
			logLine = i + 1
		}
	}
	require.NotZero(t, logLine, "inference_test.go logs each note with b.Log(note)")
	quoted := regexp.MustCompile(`inference_test\.go:(\d+):`)
	n := 0
	for path, text := range markdown(t) {
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			n++
			got, _ := strconv.Atoi(m[1])
			assert.Equal(t, logLine, got, "%s quotes a note as logged from inference_test.go:%d; go test prints :%d", path, got, logLine)
		}
	}
	assert.Positive(t, n, "the docs quote notes")
}

// comparing.md's example of compare's versions line names the simulator
// by the version it states.
func TestComparingQuotesTheSimulatorsVersion(t *testing.T) {
	b, err := os.ReadFile(at("docs/comparing.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("`versions: ([^`]*)`").FindStringSubmatch(string(b))
	require.NotNil(t, m, "comparing.md quotes a versions line")
	assert.Contains(t, strings.Split(m[1], ", "), "sim "+sim.Version)
}

// The commands the docs suggest run -count=6 or more, which benchstat
// needs for a confidence interval ("± ∞ ¹ … need >= 6 samples"), or
// -count=1 where no statistics are wanted. Fewer is only in the records of
// runs that were made so (what a figure in the docs came from).
func TestSuggestedCountGivesIntervals(t *testing.T) {
	records := map[string]bool{
		"docs/e2e.md": true, "docs/method.md": true, "docs/failures.md": true, "docs/report-example/README.md": true,
	}
	docs := markdown(t)
	src, err := os.ReadFile(at("doc.go"))
	require.NoError(t, err)
	docs["doc.go"] = string(src)
	count := regexp.MustCompile(`-count[= ](\d+)`)
	for path, text := range docs {
		for i, line := range strings.Split(text, "\n") {
			for _, m := range count.FindAllStringSubmatch(line, -1) {
				n, _ := strconv.Atoi(m[1])
				if n > 1 && n < 6 && !records[path] {
					t.Errorf("%s:%d: -count=%d: benchstat prints ± ∞ below 6 samples: %s", path, i+1, n, line)
				}
			}
		}
	}
	assert.Contains(t, docs["README.md"], "go test -bench=. -count=6 ")
	assert.Contains(t, docs["doc.go"], "go test -bench=. -count=6\n")
}
