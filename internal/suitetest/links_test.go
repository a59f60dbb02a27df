package suitetest

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// anchor is GitHub's anchor of a markdown heading: lower case, spaces
// as "-", every other character but letters, digits, "-" and "_" left
// out ("Simulated runtimes of their own (cmd/sim)" is
// simulated-runtimes-of-their-own-cmdsim).
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of a markdown text's headings, those inside
// ``` blocks left out; a repeated heading's second is "…-1", as GitHub
// names it.
func anchors(text string) map[string]bool {
	seen := map[string]bool{}
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		h := strings.TrimLeft(line, "#")
		if fenced || len(h) == len(line) || !strings.HasPrefix(h, " ") {
			continue
		}
		base := anchor(strings.TrimSpace(h))
		a := base
		for n := 1; seen[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		seen[a] = true
	}
	return seen
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// brokenLinks are the relative links of a markdown file (its path from
// the repository's root, base) that lead nowhere: to no file of the
// repository, or to a heading its target has not.
func brokenLinks(base string, docs map[string]string, from, text string) []string {
	var broken []string
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(target, "#")
		page := from
		if file != "" {
			page = path.Clean(path.Join(path.Dir(from), file))
			if _, err := os.Stat(filepath.Join(base, filepath.FromSlash(page))); err != nil {
				broken = append(broken, from+": "+target+": no such file")
				continue
			}
		}
		if text, ok := docs[page]; ok && frag != "" && !anchors(text)[frag] {
			broken = append(broken, from+": "+target+": no such heading in "+page)
		}
	}
	return broken
}

// Every relative link of the repository's markdown (README.md and docs/
// among it) leads to a file that is there and, where it names a heading
// (#anchor) of a markdown page, to a heading that page has: a section
// moved or renamed breaks no link.
func TestMarkdownLinksResolve(t *testing.T) {
	docs := markdown(t)
	var broken []string
	for from, text := range docs {
		broken = append(broken, brokenLinks(root, docs, from, text)...)
	}
	assert.Empty(t, broken)
	require.Contains(t, docs, "README.md")
}

// The checker finds a missing file and a missing heading, and passes a
// heading with punctuation and one repeated.
func TestBrokenLinksFound(t *testing.T) {
	docs := map[string]string{
		"docs/a.md": "# A\n## Two sides (`sim@TAG`)\n## Notes\n## Notes\n```\n# not a heading\n```\n",
	}
	text := "[x](docs/a.md#two-sides-simtag) [y](docs/a.md#notes-1) [z](docs/a.md#not-a-heading) [w](docs/none.md) [v](https://example.org/x#y)"
	assert.Equal(t, []string{
		"README.md: docs/a.md#not-a-heading: no such heading in docs/a.md",
		"README.md: docs/none.md: no such file",
	}, brokenLinksIn(t, docs, text))
}

// brokenLinksIn is brokenLinks of text as README.md, with docs' files
// written to a folder that stands for the repository's root.
func brokenLinksIn(t *testing.T, docs map[string]string, text string) []string {
	t.Helper()
	base := t.TempDir()
	for p, s := range docs {
		require.NoError(t, os.MkdirAll(filepath.Join(base, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(base, p), []byte(s), 0o644))
	}
	return brokenLinks(base, docs, "README.md", text)
}
