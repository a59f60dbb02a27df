package telemetry

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ServerPrefixes are the metric name prefixes Delta keeps: vLLM (and
// vllm-metal), SGLang, llama.cpp's llama-server and text-generation-inference
// (whose names have no colon: tgi_request_count).
var ServerPrefixes = []string{"vllm:", "sglang:", "llamacpp:", "tgi_"}

// averagesTypedCounter are metrics a server types counter that are not
// counts but averages, which go down as well as up: Delta takes them as
// gauges. llama-server types llamacpp:n_busy_slots_per_decode (busy slots
// / llama_decode() calls since its start) counter in the builds that list
// it among their counters.
var averagesTypedCounter = []string{"llamacpp:n_busy_slots_per_decode"}

// Snapshot is one scrape of a server's Prometheus /metrics, parsed.
type Snapshot struct {
	families map[string]*dto.MetricFamily
}

// Parse reads the Prometheus text exposition format (version 0.0.4, what
// /metrics answers to a GET without an OpenMetrics Accept header, as Go's
// http.Get sends) with github.com/prometheus/common/expfmt. Metric names may
// hold ':' (vllm:generation_tokens_total). An input that is not in that
// format is an error.
func Parse(r io.Reader) (Snapshot, error) {
	// The zero TextParser has no name validation scheme and panics on the
	// first metric name (prometheus/common v0.74.0): it must be made with
	// NewTextParser. UTF-8 validation accepts every name a server can
	// print; the legacy scheme would accept ':' too.
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("telemetry: parsing /metrics: %w", err)
	}
	return Snapshot{families: families}, nil
}

// ServerDelta is what a server's own metrics say happened between two
// scrapes (see Delta).
type ServerDelta struct {
	// Values maps a metric name to:
	//   - a counter (by its exposed name, e.g. vllm:generation_tokens_total):
	//     after − before;
	//   - X_sum and X_count of a histogram or summary X: after − before;
	//   - a gauge: its value in after.
	// Each is summed over the metric's label sets (vLLM's model_name,
	// engine, finished_reason, …). A label set missing from before counts
	// as zero there (servers create some lazily).
	Values map[string]float64
	// Reset lists, sorted, the counters and X_sum/X_count names of which
	// some label set is lower in after than in before, or missing from
	// after: the server restarted, or reset them, between the scrapes.
	// Their Values are after − before all the same (often negative) and
	// measure nothing; DeriveServerFigures leaves out what depends on them.
	Reset []string

	// The sums before and after, for the print precision of a counter.
	before, after map[string]float64
}

// Delta compares two scrapes of the same server. It keeps the metrics whose
// name starts with one of ServerPrefixes: counters, histograms and summaries
// (their _sum and _count) as differences, gauges as their value after;
// every other metric is ignored, and so are the "_created" gauges that
// Python's prometheus_client adds beside each counter and histogram, and
// values that are not finite numbers.
func Delta(before, after Snapshot) ServerDelta {
	d := ServerDelta{Values: map[string]float64{}, before: map[string]float64{}, after: map[string]float64{}}
	reset := map[string]bool{}

	diff := func(name string, pick func(*dto.Metric) float64, b, a *dto.MetricFamily) {
		bs, as := seriesOf(b, pick), seriesOf(a, pick)
		if len(bs) == 0 && len(as) == 0 {
			return
		}
		var sb, sa float64
		for k, v := range bs {
			sb += v
			if av, ok := as[k]; !ok || av < v {
				reset[name] = true
			}
		}
		for _, v := range as {
			sa += v
		}
		d.Values[name] = sa - sb
		d.before[name], d.after[name] = sb, sa
	}

	for name, a := range after.families {
		if !kept(name) || isCreatedGauge(name, a, after.families) {
			continue
		}
		b := before.families[name]
		if b != nil && b.GetType() != a.GetType() {
			b = nil // not the same metric: take after as it is
		}
		typ := a.GetType()
		if typ == dto.MetricType_COUNTER && slices.Contains(averagesTypedCounter, name) {
			typ = dto.MetricType_GAUGE
		}
		switch typ {
		case dto.MetricType_COUNTER:
			diff(name, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() }, b, a)
		case dto.MetricType_GAUGE:
			series := seriesOf(a, gaugeValue)
			if len(series) == 0 {
				continue
			}
			var sum float64
			for _, v := range series {
				sum += v
			}
			d.Values[name] = sum
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			diff(name+"_sum", func(m *dto.Metric) float64 { return m.GetHistogram().GetSampleSum() }, b, a)
			diff(name+"_count", func(m *dto.Metric) float64 { return float64(m.GetHistogram().GetSampleCount()) }, b, a)
		case dto.MetricType_SUMMARY:
			diff(name+"_sum", func(m *dto.Metric) float64 { return m.GetSummary().GetSampleSum() }, b, a)
			diff(name+"_count", func(m *dto.Metric) float64 { return float64(m.GetSummary().GetSampleCount()) }, b, a)
		}
	}
	// A counter that is gone altogether: the server is not the one it was.
	for name, b := range before.families {
		if !kept(name) || after.families[name] != nil {
			continue
		}
		switch b.GetType() {
		case dto.MetricType_COUNTER:
			if !slices.Contains(averagesTypedCounter, name) {
				reset[name] = true
			}
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM, dto.MetricType_SUMMARY:
			reset[name+"_sum"], reset[name+"_count"] = true, true
		}
	}
	for name := range reset {
		d.Reset = append(d.Reset, name)
	}
	sort.Strings(d.Reset)
	return d
}

// gaugeValue is a gauge's value, or that of a counter taken as a gauge
// (averagesTypedCounter).
func gaugeValue(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetCounter().GetValue()
}

// seriesOf returns a family's finite values by label set.
func seriesOf(f *dto.MetricFamily, pick func(*dto.Metric) float64) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.GetMetric() {
		v := pick(m)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		out[labelKey(m)] += v
	}
	return out
}

// labelKey identifies a label set, whatever order the server printed it in.
func labelKey(m *dto.Metric) string {
	pairs := make([]string, 0, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		pairs = append(pairs, l.GetName()+"\xff"+l.GetValue())
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "\xfe")
}

func kept(name string) bool {
	for _, p := range ServerPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// isCreatedGauge tells the creation-time gauge prometheus_client prints for
// counter X_total (X_created) or histogram/summary X (X_created).
func isCreatedGauge(name string, f *dto.MetricFamily, all map[string]*dto.MetricFamily) bool {
	base, ok := strings.CutSuffix(name, "_created")
	if !ok || f.GetType() != dto.MetricType_GAUGE {
		return false
	}
	for _, n := range []string{base, base + "_total"} {
		if g := all[n]; g != nil && g.GetType() != dto.MetricType_GAUGE {
			return true
		}
	}
	return false
}

// Add pools d with e, the delta of a later leaf run on the same server
// (the -count repetitions of one leaf): differences add up, a gauge takes
// e's value, and a reset in either stays a reset. The zero ServerDelta
// adds nothing.
func (d ServerDelta) Add(e ServerDelta) ServerDelta {
	out := ServerDelta{Values: map[string]float64{}, before: map[string]float64{}, after: map[string]float64{}}
	for _, x := range []ServerDelta{d, e} {
		for name, v := range x.Values {
			if _, diffed := x.after[name]; diffed {
				out.Values[name] += v
				if _, seen := out.before[name]; !seen {
					out.before[name] = x.before[name]
				}
				out.after[name] = x.after[name]
			} else {
				out.Values[name] = v // a gauge: the later value
			}
		}
		for _, name := range x.Reset {
			if !slices.Contains(out.Reset, name) {
				out.Reset = append(out.Reset, name)
			}
		}
	}
	sort.Strings(out.Reset)
	return out
}
