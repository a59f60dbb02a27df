package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotutil"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// energyRun is a summary with an idle baseline and two runtimes' energy
// figures at concurrency 1, and a third row whose samples covered too
// little (coverage only).
const energyRun = `{"run_id":"20261203T000000Z","host":{"platform":"darwin-25.0-arm64","idle_power_w":4.25,"idle_power_w_sd":0.12},"summary":[
 {"runtime":"ollama","prompt":"p","concurrency":1,"successes":4,"energy_j_per_output_token":0.06,"power_w_mean":20,"power_samples":9,
  "net_energy_j_per_output_token":0.048,"net_power_w_mean":15.75,"power_coverage":1,"energy_j_per_request_mean":4,
  "prefill_energy_j_per_request_mean":1,"decode_energy_j_per_request_mean":3,"prefill_energy_j_per_prompt_token":0.002,"decode_energy_j_per_output_token":0.03},
 {"runtime":"mlx","prompt":"p","concurrency":1,"successes":4,"energy_j_per_output_token":0.05,"power_w_mean":18,"power_samples":9,
  "net_energy_j_per_output_token":0.0376,"net_power_w_mean":13.75,"power_coverage":0.99,"energy_j_per_request_mean":4.5,
  "prefill_energy_j_per_request_mean":0.5,"decode_energy_j_per_request_mean":4,"prefill_energy_j_per_prompt_token":0.001,"decode_energy_j_per_output_token":0.025},
 {"runtime":"mlx","prompt":"p","concurrency":4,"successes":16,"power_w_mean":30,"power_samples":4,"power_coverage":0.42}]}`

// The report's energy: the idle baseline in the table of runs, net and
// gross J/tok side by side with the energy per request and its phases and
// the coverage, and a chart of stacked bars, prefill below decode, whose
// heights are the rows' figures.
func TestEnergySection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "energy.json")
	require.NoError(t, os.WriteFile(path, []byte(energyRun), 0o644))
	code, stdout, stderr := report("-o", dir, path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "request-energy-p.svg")
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, md, "| idle power | rows |")
	assert.Contains(t, md, "| 4.25 W (sd 0.12) | 3 |")
	assert.Contains(t, md, "| runtime | load | J/tok | net J/tok | net power W | J/request | prefill J | decode J | prefill mJ/prompt tok | decode J/output tok | covered |")
	assert.Contains(t, md, "| ollama | conc 1 | 0.060 | 0.048 | 15.8 | 4.000 | 1.000 | 3.000 | 2.000 | 0.030 | 100% |")
	assert.Contains(t, md, "| mlx | conc 1 | 0.050 | 0.038 | 13.8 | 4.500 | 0.500 | 4.000 | 1.000 | 0.025 | 99% |")
	assert.Contains(t, md, "| mlx | conc 4 | — | — | — | — | — | — | — | — | 42% |", "too little covered: coverage, no energy")
	assert.Contains(t, md, "![Energy per request above idle, prefill and decode, by runtime, prompt p](request-energy-p.svg)")

	c := parseChart(t, filepath.Join(dir, "request-energy-p.svg"), 0)
	c.Has(t, "Energy per request above idle — prompt p", "energy per request (J)", "prefill (start → first token)",
		"decode (first token → end)", "ollama", "mlx", "conc 1")
	assert.NotContains(t, c.Texts, "conc 4", "a row without phases has no bar")
	bars := stackedBars(t, testkit.ReadFile(t, filepath.Join(dir, "request-energy-p.svg")))
	require.Len(t, bars, 2, "a bar for each row with phases")
	// In the order of the rows: ollama (1 + 3 J), mlx (0.5 + 4 J); the
	// heights scale with the joules.
	perJ := bars[0].prefill / 1
	assert.InEpsilon(t, 3*perJ, bars[0].decode, 1e-3)
	assert.InEpsilon(t, 0.5*perJ, bars[1].prefill, 1e-3)
	assert.InEpsilon(t, 4*perJ, bars[1].decode, 1e-3)
}

// A run without net figures has neither the energy table nor the chart,
// nor the idle power column.
func TestNoEnergySection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gross.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261203T000000Z","summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"energy_j_per_output_token":0.06,"power_w_mean":20,"power_samples":9}]}`), 0o644))
	code, stdout, stderr := report("-o", dir, path)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "request-energy")
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.NotContains(t, md, "idle power")
	assert.NotContains(t, md, "net J/tok")
	assert.Contains(t, md, "| sim | conc 1 | 0.060 | 20.0 | 9 |", "the power table as before")
}

// bar is one stacked bar: its prefill and decode heights, in points.
type bar struct{ x, prefill, decode float64 }

// stackedBars finds the chart's bars: a rectangle of the prefill colour
// with one of the decode colour on top of it (the legend's samples are
// apart), in order from left to right.
func stackedBars(t *testing.T, svg []byte) []bar {
	t.Helper()
	rect := regexp.MustCompile(`<path d="M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)Z" style="fill:(#[0-9A-F]{6})`)
	type box struct{ x0, y0, x1, y1 float64 }
	byColor := map[string][]box{}
	for _, m := range rect.FindAllStringSubmatch(string(svg), -1) {
		var v [8]float64
		for i := range v {
			f, err := strconv.ParseFloat(m[i+1], 64)
			require.NoError(t, err)
			v[i] = f
		}
		byColor[m[9]] = append(byColor[m[9]], box{
			x0: math.Min(v[0], v[4]), x1: math.Max(v[0], v[4]),
			y0: math.Min(v[1], v[5]), y1: math.Max(v[1], v[5]),
		})
	}
	hex := func(c color.Color) string {
		r, g, b, _ := c.RGBA()
		return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	var out []bar
	for _, p := range byColor[hex(plotutil.Color(2))] {
		for _, d := range byColor[hex(plotutil.Color(1))] {
			if math.Abs(p.x0-d.x0) < 0.01 && math.Abs(p.y1-d.y0) < 0.01 {
				out = append(out, bar{x: p.x0, prefill: p.y1 - p.y0, decode: d.y1 - d.y0})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].x < out[j].x })
	return out
}
