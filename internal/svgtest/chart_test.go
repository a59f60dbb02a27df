package svgtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (r *recorder) Helper() {}

// chartFile writes a chart of two lines, a ring and an axis, with a
// legend whose second sample is drawn as legend2 says.
func chartFile(t *testing.T, legend2 string) string {
	path := filepath.Join(t.TempDir(), "c.svg")
	require.NoError(t, os.WriteFile(path, []byte(`<svg xmlns="http://www.w3.org/2000/svg">
<path d="M40,10L40,90" style="stroke-width:0.5"/>
<path d="M40,50L40,60" style="stroke-width:0.5"/>
<path d="M50,20L60,30L70,25" style="stroke:#E41A1C;stroke-width:1.5"/>
<path d="M50,40L70,45" style="stroke:#377EB8;stroke-width:1.5;stroke-dasharray:6,2"/>
<path d="M75,25A5,5 0 1,1 75,25Z" style="stroke:#E41A1C;stroke-width:1.25"/>
<path d="M100,5L110,5" style="stroke:#E41A1C;stroke-width:1.5"/>
<path d="M100,9L110,9" style="`+legend2+`;stroke-width:1.5"/>
<text x="1" y="2">TTFT</text>
</svg>`), 0o644))
	return path
}

// A chart read back: its lines, then the legend's samples; its ring; the
// y axis's bottom from the longest upright thin path.
func TestReadChart(t *testing.T) {
	c := ReadChart(t, chartFile(t, "stroke:#377EB8;stroke-dasharray:6,2"), 2)
	require.Len(t, c.Lines, 2)
	assert.Equal(t, Line{Stroke: "#377EB8", Dash: "6,2", XY: [][2]float64{{50, 40}, {70, 45}}}, c.Lines[1])
	assert.Equal(t, []float64{20, 30, 25, 40, 45}, c.YS())
	c.Lines[0].Points(t, 3)
	require.Len(t, c.Legend, 2)
	assert.Equal(t, []Ring{{Stroke: "#E41A1C", X: 70, Y: 25}}, c.Rings)
	assert.Equal(t, 10.0, c.Bottom)
	c.Has(t, "TTFT")

	rec := &recorder{}
	ReadChart(rec, chartFile(t, "stroke:#377EB8"), 2)
	assert.True(t, rec.failed, "a line drawn otherwise than its legend sample fails")
	assert.Len(t, ParseChart(t, chartFile(t, "stroke:#377EB8"), 2).Lines, 2, "ParseChart does not compare them")
}
