package testkit

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A command's manual is its package's doc comment (doc.go), as
// golang.org/x/perf's benchstat's is: go doc ./cmd/NAME shows it. Its
// tables are the tab-indented rows of a section, each row's first field
// its key: "-o DIR  where to write" under # Flags, "2  a usage error"
// under # Exit status.

// ManualSection is the text of the section of dir's doc.go under
// "# heading", up to the next heading, the comment markers cut.
func ManualSection(dir, heading string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	if err != nil {
		return "", err
	}
	var lines []string
	in := false
	for l := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(l, "//") {
			continue
		}
		l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		if h, ok := strings.CutPrefix(l, "# "); ok {
			if in {
				break
			}
			in = h == heading
			continue
		}
		if in {
			lines = append(lines, l)
		}
	}
	if !in {
		return "", fmt.Errorf("%s/doc.go has no section # %s", dir, heading)
	}
	return strings.Join(lines, "\n"), nil
}

// ManualKeys are the keys of a section's table: the first field of each
// tab-indented line that starts a row (not a continuation, which starts
// with spaces after the tab).
func ManualKeys(section string) []string {
	var keys []string
	for l := range strings.SplitSeq(section, "\n") {
		row, ok := strings.CutPrefix(l, "\t")
		if !ok || row == "" || strings.HasPrefix(row, " ") {
			continue
		}
		keys = append(keys, strings.Fields(row)[0])
	}
	return keys
}

// flagMethods are the flag.FlagSet methods whose argument at the index
// is the flag's name.
var flagMethods = map[string]int{
	"String": 0, "Bool": 0, "Int": 0, "Float64": 0, "Duration": 0,
	"StringVar": 1, "BoolVar": 1, "IntVar": 1, "Float64Var": 1, "DurationVar": 1, "Var": 1,
}

// CodeFacts are the flags and exit statuses a command's code declares.
type CodeFacts struct {
	Flags []string // "-name", sorted, of every flag registered by a literal name
	Exits []int    // 0 and the value of every constant named exit…, sorted
}

// ReadCode reads the flags and exit statuses of the Go files of dir
// (tests left out).
func ReadCode(dir string) (CodeFacts, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return CodeFacts{}, err
	}
	flags, exits := map[string]bool{}, map[int]bool{0: true}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return CodeFacts{}, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if name, ok := flagName(n); ok {
					flags["-"+name] = true
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if v, ok := exitValue(id, n.Values, i); ok {
						exits[v] = true
					}
				}
			}
			return true
		})
	}
	return CodeFacts{Flags: slices.Sorted(maps.Keys(flags)), Exits: slices.Sorted(maps.Keys(exits))}, nil
}

// flagName is the literal name a call of a flag set's method registers.
func flagName(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	at, ok := flagMethods[sel.Sel.Name]
	if !ok || len(call.Args) <= at+1 {
		return "", false
	}
	lit, ok := call.Args[at].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	name, err := strconv.Unquote(lit.Value)
	return name, err == nil
}

// exitValue is the value of constant id when it is named exit… and has
// an integer literal.
func exitValue(id *ast.Ident, values []ast.Expr, i int) (int, bool) {
	if !strings.HasPrefix(id.Name, "exit") || i >= len(values) {
		return 0, false
	}
	lit, ok := values[i].(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	v, err := strconv.Atoi(lit.Value)
	return v, err == nil
}

var digits = regexp.MustCompile(`^\d+$`)

// ManualProblems says where the tables of dir's manual and its code
// disagree: the # Exit status table's statuses against the code's exit
// constants (and 0), and, where the code registers flags by name, the
// # Flags table's flags against them. None: they agree.
func ManualProblems(dir string) ([]string, error) {
	code, err := ReadCode(dir)
	if err != nil {
		return nil, err
	}
	var problems []string
	exits, err := ManualSection(dir, "Exit status")
	if err != nil {
		return nil, err
	}
	var statuses []int
	for _, k := range ManualKeys(exits) {
		if !digits.MatchString(k) {
			problems = append(problems, fmt.Sprintf("# Exit status: row %q is not a status", k))
			continue
		}
		n, _ := strconv.Atoi(k)
		statuses = append(statuses, n)
	}
	if !slices.Equal(statuses, code.Exits) {
		problems = append(problems, fmt.Sprintf("# Exit status: the manual's statuses %v, the code's %v", statuses, code.Exits))
	}
	if len(code.Flags) == 0 {
		return problems, nil
	}
	flags, err := ManualSection(dir, "Flags")
	if err != nil {
		return nil, err
	}
	var got []string
	for _, k := range ManualKeys(flags) {
		name, _, _ := strings.Cut(k, "=") // -charts=false
		got = append(got, name)
	}
	if slices.Sort(got); !slices.Equal(got, code.Flags) {
		problems = append(problems, fmt.Sprintf("# Flags: the manual's flags %v, the code's %v", got, code.Flags))
	}
	return problems, nil
}
