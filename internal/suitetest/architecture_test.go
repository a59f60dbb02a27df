package suitetest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goFiles are a package's Go files, by their paths from the repository's
// root, every build tag's.
type goFiles struct {
	code  []string // the files that are not tests
	tests []string // the _test.go files
}

// walkPackages returns the module's packages, by their folders from the
// root ("." the root package), with their Go files.
func walkPackages(t *testing.T) map[string]*goFiles {
	t.Helper()
	packages := map[string]*goFiles{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || e.Name() == "docs" || e.Name() == "results") && path != root {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if packages[dir] == nil {
			packages[dir] = &goFiles{}
		}
		if strings.HasSuffix(rel, "_test.go") {
			packages[dir].tests = append(packages[dir].tests, rel)
		} else {
			packages[dir].code = append(packages[dir].code, rel)
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, packages, "runtimes/sim", "the walk found the module's packages")
	return packages
}

// imports are the module's packages a file imports, by their folders
// from the root.
func imports(t *testing.T, fset *token.FileSet, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(fset, at(file), nil, parser.ImportsOnly)
	require.NoError(t, err)
	var pkgs []string
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if path == module {
			pkgs = append(pkgs, ".")
		} else if rest, ok := strings.CutPrefix(path, module+"/"); ok {
			pkgs = append(pkgs, rest)
		}
	}
	return pkgs
}

// table reads docs/architecture.md's table: the packages it names (not
// inference_test.go, a file), and those it marks "(tests)", which only
// tests import.
func table(t *testing.T) (named, testOnly []string) {
	t.Helper()
	page, err := os.ReadFile(at("docs/architecture.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (\\(tests\\))?")
	for _, m := range row.FindAllStringSubmatch(string(page), -1) {
		if m[1] == "inference_test.go" {
			continue
		}
		named = append(named, m[1])
		if m[2] != "" {
			testOnly = append(testOnly, m[1])
		}
	}
	return named, testOnly
}

// docs/architecture.md's table names every package of the module, and no
// package that is gone: a package added without a row, or a row left
// behind, fails here.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	named, _ := table(t)
	var packages []string
	for dir := range walkPackages(t) {
		if dir != "." {
			packages = append(packages, dir)
		}
	}
	slices.Sort(packages)
	slices.Sort(named)
	assert.Equal(t, packages, named, "docs/architecture.md's table against the module's packages")
}

// arrows are a picture's imports: by package, what it imports, each
// import with the first file that has it.
type arrows map[string]map[string]string

func (a arrows) add(from, to, file string) {
	if a[from] == nil {
		a[from] = map[string]string{}
	}
	if _, ok := a[from][to]; !ok {
		a[from][to] = file
	}
}

// lists are the arrows without their files, sorted, a package that
// imports nothing with none.
func (a arrows) lists() map[string][]string {
	l := map[string][]string{}
	for from, tos := range a {
		l[from] = nil
		for to := range tos {
			l[from] = append(l[from], to)
		}
		slices.Sort(l[from])
	}
	return l
}

// codeArrows are the imports docs/architecture.md's Imports picture
// draws: of each package but the test-only ones, its files that are not
// tests; of the root package, inference_test.go, the benchmark.
func codeArrows(t *testing.T, packages map[string]*goFiles, testOnly []string) arrows {
	t.Helper()
	fset := token.NewFileSet()
	a := arrows{"inference_test.go": {}}
	for _, to := range imports(t, fset, "inference_test.go") {
		a.add("inference_test.go", to, "inference_test.go")
	}
	for dir, files := range packages {
		if dir == "." || slices.Contains(testOnly, dir) {
			continue
		}
		a[dir] = map[string]string{}
		for _, file := range files.code {
			for _, to := range imports(t, fset, file) {
				a.add(dir, to, file)
			}
		}
	}
	return a
}

// testArrows are the imports docs/architecture.md's Test imports picture
// draws: of each test-only package, all its files'; of any other, its
// tests' beyond its own package and what its code imports (the root
// package's beyond inference_test.go). A package that is not test-only
// and whose tests import nothing more has no line.
func testArrows(t *testing.T, packages map[string]*goFiles, testOnly []string, code arrows) arrows {
	t.Helper()
	fset := token.NewFileSet()
	a := arrows{}
	for dir, files := range packages {
		tests := files.tests
		if slices.Contains(testOnly, dir) {
			a[dir] = map[string]string{}
			tests = slices.Concat(files.code, files.tests)
		}
		for _, file := range tests {
			if file == "inference_test.go" {
				continue
			}
			for _, to := range imports(t, fset, file) {
				if _, drawn := code[dir][to]; to != dir && !drawn {
					a.add(dir, to, file)
				}
			}
		}
	}
	return a
}

// checkArrows fails on every import the code has and the picture does
// not draw, naming the file, and on a picture that differs from the code.
func checkArrows(t *testing.T, picture string, actual arrows, drawn map[string][]string) {
	t.Helper()
	for from, tos := range actual {
		for to, file := range tos {
			if !slices.Contains(drawn[from], to) {
				t.Errorf("%s imports %s, and docs/architecture.md's %s picture draws no %s ──► %s", file, to, picture, from, to)
			}
		}
	}
	assert.Equal(t, actual.lists(), drawn, "docs/architecture.md's %s picture against the code's imports", picture)
}

// docs/architecture.md's import lines are the module's imports: every
// arrow it draws is an import of the code, and every import of one of the
// module's packages by another is drawn.
func TestArchitectureArrows(t *testing.T) {
	page, err := os.ReadFile(at("docs/architecture.md"))
	require.NoError(t, err)
	drawn := drawnImports(t, string(page), "**Imports**")
	_, testOnly := table(t)
	require.Contains(t, testOnly, "internal/testkit", "the table marks the test-only packages")
	actual := codeArrows(t, walkPackages(t), testOnly)
	require.Contains(t, actual, "internal/driver", "the walk found the module's packages")
	checkArrows(t, "Imports", actual, drawn)
}

// docs/architecture.md's test import lines are the tests' imports: of
// the test-only packages, and of the other packages' tests beyond what
// their code imports.
func TestArchitectureTestArrows(t *testing.T) {
	page, err := os.ReadFile(at("docs/architecture.md"))
	require.NoError(t, err)
	drawn := drawnImports(t, string(page), "**Test imports**")
	_, testOnly := table(t)
	packages := walkPackages(t)
	actual := testArrows(t, packages, testOnly, codeArrows(t, packages, testOnly))
	require.Contains(t, actual, "internal/suitetest", "the test-only packages have lines")
	require.Contains(t, actual, "cmd/compare", "packages whose tests import more have lines")
	checkArrows(t, "Test imports", actual, drawn)
}

// drawnImports reads the import lines of the code block after a heading
// of docs/architecture.md: "FROM[, FROM…] ──► TO, TO…" or "… ──► none of
// the module", a line ending in a comma going on with the next.
func drawnImports(t *testing.T, page, heading string) map[string][]string {
	t.Helper()
	_, after, ok := strings.Cut(page, heading)
	require.True(t, ok, "docs/architecture.md has its %s picture", heading)
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	drawn := map[string][]string{}
	var pending string
	for line := range strings.SplitSeq(block, "\n") {
		line = pending + strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, ",") {
			pending = line + " "
			continue
		}
		pending = ""
		from, to, ok := strings.Cut(line, "──►")
		require.True(t, ok, "import line %q has no arrow", line)
		var tos []string
		if to = strings.TrimSpace(to); to != "none of the module" {
			tos = strings.Split(to, ", ")
			slices.Sort(tos)
		}
		for f := range strings.SplitSeq(from, ",") {
			f = strings.TrimSpace(f)
			_, twice := drawn[f]
			require.False(t, twice, "%s has two import lines", f)
			drawn[f] = tos
		}
	}
	return drawn
}

// A rule of docs/architecture.md's Never list: packages matching from
// never import a package matching one of to, but those matching one of
// except; with tests, in their tests either.
type rule struct {
	line       string
	from       string
	to, except []string
	tests      bool
}

// matches says whether a package is one a rule's pattern names: the
// package itself, "dir/…" every package under dir, "…" every package.
func matches(pattern, pkg string) bool {
	if pattern == "…" {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/…"); ok {
		return strings.HasPrefix(pkg, dir+"/")
	}
	return pattern == pkg
}

func matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, pkg) })
}

// neverRules reads the Never list of docs/architecture.md, one rule a
// line: "FROM ──✗ TO[, TO…][ except TO[, TO…]][ (tests too)]".
func neverRules(t *testing.T, page string) []rule {
	t.Helper()
	_, after, ok := strings.Cut(page, "**Never**")
	require.True(t, ok, "docs/architecture.md has its Never list")
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var rules []rule
	for line := range strings.SplitSeq(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		from, to, ok := strings.Cut(line, "──✗")
		require.True(t, ok, "never rule %q has no ──✗", line)
		r := rule{line: strings.Join(strings.Fields(line), " "), from: strings.TrimSpace(from)}
		to, r.tests = strings.CutSuffix(strings.TrimSpace(to), " (tests too)")
		to, except, _ := strings.Cut(to, " except ")
		r.to = strings.Split(strings.TrimSpace(to), ", ")
		if except != "" {
			r.except = strings.Split(strings.TrimSpace(except), ", ")
		}
		rules = append(rules, r)
	}
	return rules
}

// The imports docs/architecture.md says never happen do not: each rule of
// its Never list names packages the module has, and no file it covers
// imports what it forbids.
func TestArchitectureNeverRules(t *testing.T) {
	page, err := os.ReadFile(at("docs/architecture.md"))
	require.NoError(t, err)
	rules := neverRules(t, string(page))
	require.GreaterOrEqual(t, len(rules), 4, "the rules of docs/architecture.md's Never list")
	packages := walkPackages(t)
	var names []string
	for dir := range packages {
		names = append(names, dir)
	}
	fset := token.NewFileSet()
	for _, r := range rules {
		for _, p := range slices.Concat([]string{r.from}, r.to, r.except) {
			assert.True(t, slices.ContainsFunc(names, func(pkg string) bool { return matches(p, pkg) }),
				"never rule %q: %s names no package of the module", r.line, p)
		}
		for dir, files := range packages {
			if !matches(r.from, dir) {
				continue
			}
			checked := files.code
			if dir == "." {
				checked = append(slices.Clone(checked), "inference_test.go") // the benchmark
			}
			if r.tests {
				checked = slices.Concat(files.code, files.tests)
			}
			for _, file := range checked {
				for _, to := range imports(t, fset, file) {
					if to != dir && matchesAny(r.to, to) && !matchesAny(r.except, to) {
						t.Errorf("%s imports %s, which docs/architecture.md rules out: %s", file, to, r.line)
					}
				}
			}
		}
	}
}
