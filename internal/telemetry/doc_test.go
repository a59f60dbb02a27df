package telemetry

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docs/power.md's table of the server's counters, the one said for
// people, names for each figure the counters DeriveServerFigures reads it
// from: each counter named in a row, the only one a server exposes, gives
// that row's figure. The package documentation restates none of it.
func TestPowerDocCounters(t *testing.T) {
	b, err := os.ReadFile("../../docs/power.md")
	if err != nil {
		t.Fatal(err)
	}
	figure := map[string]func(ServerFigures) *float64{
		"server_prefill_s_mean":            func(f ServerFigures) *float64 { return f.PrefillSMean },
		"server_decode_s_mean":             func(f ServerFigures) *float64 { return f.DecodeSMean },
		"server_generated_tokens":          func(f ServerFigures) *float64 { return f.GeneratedTokens },
		"server_cached_prompt_tokens_mean": func(f ServerFigures) *float64 { return f.CachedPromptTokens },
	}
	metric := regexp.MustCompile("`((?:vllm|llamacpp|sglang):[a-z_]+)`")
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| `server_") {
			continue
		}
		key := strings.Trim(strings.TrimSpace(cells[1]), "`")
		get, ok := figure[key]
		if !ok {
			t.Errorf("docs/power.md: a row for %s, which ServerFigures has not", key)
			continue
		}
		rows++
		names := metric.FindAllStringSubmatch(line, -1)
		if len(names) == 0 {
			t.Errorf("docs/power.md: %s names no counter", key)
		}
		for _, m := range names {
			name := m[1]
			d := ServerDelta{Values: map[string]float64{name: 10, name + "_sum": 10, name + "_count": 5}}
			if get(DeriveServerFigures(d, 5)) == nil {
				t.Errorf("docs/power.md: %s from %s, but a server exposing only %s gives none", key, name, name)
			}
		}
	}
	if rows != len(figure) {
		t.Errorf("docs/power.md: %d rows of the server's counters, want one for each of %d figures", rows, len(figure))
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for key := range figure {
		if strings.Contains(string(doc), key) {
			t.Errorf("doc.go restates %s, which ServerFigures and docs/power.md say", key)
		}
	}
}
