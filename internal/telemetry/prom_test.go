package telemetry

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
)

func parseFile(t *testing.T, name string) Snapshot {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func parseText(t *testing.T, text string) Snapshot {
	t.Helper()
	s, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, text)
	}
	return s
}

func approx(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

func wantValues(t *testing.T, d ServerDelta, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		got, ok := d.Values[name]
		if !ok {
			t.Errorf("%s missing", name)
		} else if !approx(got, w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}

// The gotcha Parse works around: in prometheus/common v0.74.0 the zero
// TextParser has no name validation scheme and panics on the first metric.
// If this test fails, the library changed and Parse's comment is stale.
func TestZeroTextParserPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("the zero expfmt.TextParser parsed a metric: update the comment in Parse")
		}
	}()
	var p expfmt.TextParser
	_, _ = p.TextToMetricFamilies(strings.NewReader("vllm:generation_tokens_total 1\n"))
}

func TestParseRejects(t *testing.T) {
	for _, text := range []string{
		"vllm:x{model_name=\"a\" 1\n",
		"# TYPE vllm:x counter\n# TYPE vllm:x counter\nvllm:x 1\n",
		"vllm:x one\n",
		"<html>502 Bad Gateway</html>\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("Parse(%q) succeeded", text)
		}
	}
}

func TestDeltaVLLM(t *testing.T) {
	d := Delta(parseFile(t, "vllm-before.txt"), parseFile(t, "vllm-after.txt"))
	if len(d.Reset) != 0 {
		t.Errorf("Reset = %v", d.Reset)
	}
	wantValues(t, d, map[string]float64{
		"vllm:generation_tokens_total":            5120,
		"vllm:prompt_tokens_total":                3700,
		"vllm:request_success_total":              20, // summed over finished_reason
		"vllm:request_prefill_time_seconds_sum":   0.9,
		"vllm:request_prefill_time_seconds_count": 20,
		"vllm:request_decode_time_seconds_sum":    25.6,
		"vllm:request_decode_time_seconds_count":  20,
		"vllm:time_to_first_token_seconds_count":  20,
		"vllm:kv_cache_usage_perc":                0, // gauges: the value after
		"vllm:num_requests_running":               0,
		"vllm:cache_config_info":                  1,
	})
	for name := range d.Values {
		if !strings.HasPrefix(name, "vllm:") || strings.HasSuffix(name, "_created") || strings.HasSuffix(name, "_bucket") {
			t.Errorf("%s should not be in the delta", name)
		}
	}
}

func TestDeltaLlamaCpp(t *testing.T) {
	d := Delta(parseFile(t, "llamacpp-before.txt"), parseFile(t, "llamacpp-after.txt"))
	if len(d.Reset) != 0 {
		t.Errorf("Reset = %v", d.Reset)
	}
	wantValues(t, d, map[string]float64{
		// 998721 → 1.00384e+06: llama-server prints 6 significant digits.
		"llamacpp:tokens_predicted_total":         5119,
		"llamacpp:prompt_tokens_total":            3700,
		"llamacpp:prompt_seconds_total":           1094.22 - 1093.32,
		"llamacpp:tokens_predicted_seconds_total": 19943.2 - 19841.6,
		"llamacpp:requests_processing":            0,
		"llamacpp:n_busy_slots_per_decode":        1.37603,
	})
}

// Builds of llama-server that list llamacpp:n_busy_slots_per_decode among
// their counters: an average, it goes down without a restart, and is read
// as a gauge; a real counter going down is still a reset.
func TestDeltaAverageTypedCounter(t *testing.T) {
	text := func(busy, predicted string) Snapshot {
		return parseText(t, `# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total `+predicted+`
# TYPE llamacpp:n_busy_slots_per_decode counter
llamacpp:n_busy_slots_per_decode `+busy+"\n")
	}
	d := Delta(text("2.5", "100"), text("1.25", "160"))
	if len(d.Reset) != 0 {
		t.Errorf("Reset = %v", d.Reset)
	}
	wantValues(t, d, map[string]float64{"llamacpp:n_busy_slots_per_decode": 1.25, "llamacpp:tokens_predicted_total": 60})
	if d := Delta(text("2.5", "100"), text("2.5", "40")); !slices.Equal(d.Reset, []string{"llamacpp:tokens_predicted_total"}) {
		t.Errorf("Reset = %v, want the predicted tokens", d.Reset)
	}
	// Gone from after: no reset for the average.
	if d := Delta(text("2.5", "100"), parseText(t, "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 160\n")); len(d.Reset) != 0 {
		t.Errorf("Reset = %v", d.Reset)
	}
}

func TestDeltaRestartIsVisible(t *testing.T) {
	d := Delta(parseFile(t, "llamacpp-before.txt"), parseFile(t, "llamacpp-restarted.txt"))
	for _, name := range []string{"llamacpp:tokens_predicted_total", "llamacpp:prompt_seconds_total", "llamacpp:tokens_predicted_seconds_total"} {
		if !slices.Contains(d.Reset, name) {
			t.Errorf("Reset %v lacks %s", d.Reset, name)
		}
		if d.Values[name] >= 0 {
			t.Errorf("%s = %v: after − before of a restarted counter is negative", name, d.Values[name])
		}
	}
	if slices.Contains(d.Reset, "llamacpp:spec_decode_num_drafts_total") {
		t.Errorf("a counter that stayed at 0 is not a reset: %v", d.Reset)
	}
}

func TestDeltaLabelSets(t *testing.T) {
	before := parseText(t, `# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 2.0
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="m"} 1.5
`)
	// A label set that appears later counts from zero; labels in another
	// order are the same set; a second engine adds up.
	after := parseText(t, `# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="m",finished_reason="stop",engine="0"} 5.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 4.0
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="m"} 3.0
vllm:e2e_request_latency_seconds_bucket{le="1.0",engine="0",model_name="m"} 3.0
vllm:e2e_request_latency_seconds_bucket{le="+Inf",engine="0",model_name="m"} 4.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 4.0
vllm:e2e_request_latency_seconds_sum{engine="1",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_count{engine="1",model_name="m"} 1.0
`)
	d := Delta(before, after)
	if len(d.Reset) != 0 {
		t.Errorf("Reset = %v", d.Reset)
	}
	wantValues(t, d, map[string]float64{
		"vllm:request_success_total":             7,
		"vllm:e2e_request_latency_seconds_sum":   3.5,
		"vllm:e2e_request_latency_seconds_count": 3,
	})

	// A label set gone from after is a reset, even if the sum went up.
	d = Delta(after, parseText(t, `# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 50.0
`))
	if !slices.Equal(d.Reset, []string{"vllm:e2e_request_latency_seconds_count", "vllm:e2e_request_latency_seconds_sum", "vllm:request_success_total"}) {
		t.Errorf("Reset = %v", d.Reset)
	}
}

func TestDeltaIgnores(t *testing.T) {
	text := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
vllm:untyped_thing 3
# TYPE vllm:broken_gauge gauge
vllm:broken_gauge NaN
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m"} 100
# TYPE sglang:func_latency_seconds summary
sglang:func_latency_seconds{name="generate",quantile="0.5"} 0.25
sglang:func_latency_seconds_sum{name="generate"} 10
sglang:func_latency_seconds_count{name="generate"} 40
`
	before := parseText(t, text)
	after := parseText(t, strings.NewReplacer("100", "164", "_sum{name=\"generate\"} 10", "_sum{name=\"generate\"} 12", "_count{name=\"generate\"} 40", "_count{name=\"generate\"} 48").Replace(text))
	d := Delta(before, after)
	for _, name := range []string{"process_cpu_seconds_total", "vllm:untyped_thing", "vllm:broken_gauge"} {
		if _, ok := d.Values[name]; ok {
			t.Errorf("%s should be ignored", name)
		}
	}
	wantValues(t, d, map[string]float64{
		"sglang:generation_tokens_total":    64,
		"sglang:func_latency_seconds_sum":   2,
		"sglang:func_latency_seconds_count": 8,
	})
}

// The -count repetitions of a leaf pool: counters add up, gauges are the
// last, a reset in one stays.
func TestServerDeltaAdd(t *testing.T) {
	scrape := func(gen, running float64) Snapshot {
		s, err := Parse(strings.NewReader(fmt.Sprintf("# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} %g\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} %g\n", gen, running)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := Delta(scrape(100, 0), scrape(612, 4))
	b := Delta(scrape(612, 4), scrape(1124, 1))
	sum := ServerDelta{}.Add(a).Add(b)
	if got := sum.Values["vllm:generation_tokens_total"]; got != 1024 {
		t.Errorf("generated tokens pooled: %v, want 1024", got)
	}
	if got := sum.Values["vllm:num_requests_running"]; got != 1 {
		t.Errorf("a gauge: %v, want the last value, 1", got)
	}
	if len(sum.Reset) != 0 {
		t.Errorf("Reset %v, want none", sum.Reset)
	}
	restart := Delta(scrape(1124, 1), scrape(50, 0))
	if got := sum.Add(restart).Reset; !slices.Equal(got, []string{"vllm:generation_tokens_total"}) {
		t.Errorf("Reset after a restart %v", got)
	}
	if f := DeriveServerFigures(sum, 8); f.GeneratedTokens == nil || *f.GeneratedTokens != 1024 {
		t.Errorf("derived generated tokens %v, want 1024", f.GeneratedTokens)
	}
}
