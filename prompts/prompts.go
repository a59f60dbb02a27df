// Package prompts holds the suite's built-in prompts and loads user prompts.
//
// The built-in prompts are the seed run's three, verbatim: short, medium and
// code. A folder of *.txt files adds one prompt per file, named by the file
// (medium-long.txt → "medium-long"); names may use letters, digits, '.',
// '_' and '-', so each can stand in a benchmark name as prompt=<name>.
package prompts

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

//go:embed *.txt
var builtin embed.FS

// Builtin lists the built-in prompt names in their canonical order.
var Builtin = []string{"short", "medium", "code"}

// Prompt is one prompt with the name it is benchmarked under.
type Prompt struct {
	Name string
	Text string
	// InputTokens is N of an in<N> prompt, whose text is sized for each
	// runtime (Words); Text is then empty. 0 for other prompts.
	InputTokens int
}

// Select returns the prompts of a run: Load's, and an in<N> prompt for
// each length of inputs (BENCH_INPUT_TOKENS). With names empty and inputs
// given, only the in<N> prompts run; names may list in<N> prompts among
// others, each one a length of inputs, and must then list every length.
func Select(names []string, dir string, inputs []int) ([]Prompt, error) {
	if len(inputs) == 0 {
		return Load(names, dir)
	}
	made := map[string]int{}
	var all []string
	for _, n := range inputs {
		made[InputName(n)] = n
		all = append(all, InputName(n))
	}
	if len(names) == 0 {
		names = all
	}
	var out []Prompt
	var others []string
	listed := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if n, ok := made[name]; ok {
			if listed[name] {
				return nil, fmt.Errorf("prompt %q is listed twice", name)
			}
			listed[name] = true
			out = append(out, Prompt{Name: name, InputTokens: n})
			continue
		}
		if _, ok := ParseInputName(name); ok {
			return nil, fmt.Errorf("prompt %q: BENCH_INPUT_TOKENS does not make it (it makes %s)", name, strings.Join(all, ", "))
		}
		others = append(others, name)
	}
	for _, name := range all {
		if !listed[name] {
			return nil, fmt.Errorf("BENCH_INPUT_TOKENS makes %s, which BENCH_PROMPTS does not list: add it, or leave BENCH_PROMPTS unset to run only the in<N> prompts", name)
		}
	}
	if len(others) > 0 {
		loaded, err := Load(others, dir)
		if err != nil {
			return nil, err
		}
		// Keep the order of names.
		byName := map[string]Prompt{}
		for _, p := range loaded {
			byName[p.Name] = p
		}
		var ordered []Prompt
		i := 0
		for _, name := range names {
			name = strings.TrimSpace(name)
			if p, ok := byName[name]; ok {
				ordered = append(ordered, p)
			} else if _, ok := made[name]; ok {
				ordered = append(ordered, out[i])
				i++
			}
		}
		out = ordered
	}
	return out, nil
}

// ValidName matches a name that can stand in a benchmark name as one
// level (prompt=<name>, runtime=<name>): letters, digits, '.', '_', '-'.
var ValidName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// Load returns the named prompts in the order given. Names are looked up in
// dir (if not empty) and then among the built-ins. A file in dir may not
// reuse a built-in name: results under that name would no longer compare
// with other runs'.
//
// If names is empty, Load returns the built-ins followed by every prompt in
// dir, sorted by name.
func Load(names []string, dir string) ([]Prompt, error) {
	user, err := readDir(dir)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = append(slices.Clone(Builtin), sortedKeys(user)...)
	}
	var out []Prompt
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if seen[name] {
			return nil, fmt.Errorf("prompt %q is listed twice", name)
		}
		seen[name] = true
		if text, ok := user[name]; ok {
			out = append(out, Prompt{Name: name, Text: text})
			continue
		}
		b, err := builtin.ReadFile(name + ".txt")
		if err != nil || !ValidName.MatchString(name) {
			return nil, fmt.Errorf("unknown prompt %q (built-in: %s%s)", name, strings.Join(Builtin, ", "), dirHint(dir, user))
		}
		out = append(out, Prompt{Name: name, Text: string(b)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no prompts selected")
	}
	return out, nil
}

func readDir(dir string) (map[string]string, error) {
	if dir == "" {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("prompts folder %q: not a readable folder", dir)
	}
	user := map[string]string{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if !ValidName.MatchString(name) {
			return nil, fmt.Errorf("prompt file %q: name may use only letters, digits, '.', '_' and '-'", f)
		}
		if slices.Contains(Builtin, name) {
			return nil, fmt.Errorf("prompt file %q reuses the built-in name %q: rename it", f, name)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("prompt file: %w", err)
		}
		text := strings.TrimRight(string(b), "\r\n")
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("prompt file %q is empty", f)
		}
		user[name] = text
	}
	if len(user) == 0 {
		return nil, fmt.Errorf("prompts folder %q has no *.txt files", dir)
	}
	return user, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func dirHint(dir string, user map[string]string) string {
	if dir == "" {
		return ""
	}
	return "; in " + dir + ": " + strings.Join(sortedKeys(user), ", ")
}
