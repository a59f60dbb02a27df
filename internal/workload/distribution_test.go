package workload

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDistribution(t *testing.T) {
	for in, want := range map[string]struct {
		kind, str string
		mean, sd  float64
		bound     int
	}{
		"1024":                {"fixed", "1024", 1024, 0, 1024},
		" 8k ":                {"fixed", "8192", 8192, 0, 8192},
		"normal:1024,256":     {"normal", "normal:1024,256", 1024, 256, 2048},
		"NORMAL: 2k , 0.5k":   {"normal", "normal:2048,512", 2048, 512, 4096},
		"normal:100.5,10.25":  {"normal", "normal:100.5,10.25", 100.5, 10.25, 142},
		"normal:64,0":         {"normal", "normal:64,0", 64, 0, 64},
		"uniform:128-2048":    {"uniform", "uniform:128-2048", 1088, math.Sqrt((1921*1921 - 1) / 12.0), 2048},
		"uniform:1k-4k":       {"uniform", "uniform:1024-4096", 2560, math.Sqrt((3073*3073 - 1) / 12.0), 4096},
		"uniform:7-7":         {"uniform", "uniform:7-7", 7, 0, 7},
		"uniform: 1 - 10 ":    {"uniform", "uniform:1-10", 5.5, math.Sqrt(99 / 12.0), 10},
		"normal:1000000,1000": {"normal", "normal:1000000,1000", 1e6, 1000, 1004000},
	} {
		d, err := ParseDistribution(in)
		require.NoError(t, err, in)
		assert.Equal(t, want.kind, d.Kind(), in)
		assert.Equal(t, want.str, d.String(), in)
		assert.InDelta(t, want.mean, d.Mean(), 1e-9, in)
		assert.InDelta(t, want.sd, d.SD(), 1e-9, in)
		assert.Equal(t, want.bound, d.Bound(), in)
		again, err := ParseDistribution(d.String())
		require.NoError(t, err, "String reads back: %s", d)
		assert.Equal(t, d, again, in)
	}
	assert.True(t, Fixed(5).IsFixed())
	assert.Equal(t, "5", Fixed(5).String())
	for _, s := range []string{"normal:5,0", "uniform:3-3", "12"} {
		d, _ := ParseDistribution(s)
		assert.True(t, d.IsFixed(), s)
	}
	d, _ := ParseDistribution("uniform:3-4")
	assert.False(t, d.IsFixed())
}

func TestParseDistributionErrors(t *testing.T) {
	for in, want := range map[string]string{
		"normal:1024":        `"normal:1024": want normal:MEAN,SD (e.g. normal:1024,256)`,
		"normal:abc,5":       `"normal:abc,5": MEAN: "abc" is not a number of tokens (e.g. 512, 8k) (want normal:MEAN,SD)`,
		"normal:100,-5":      `"normal:100,-5": SD: "-5" is below 0 (want normal:MEAN,SD)`,
		"normal:0.5,1":       `"normal:0.5,1": the mean must be 1 or more`,
		"normal:1,NaN":       `"normal:1,NaN": SD: "NaN" is not a number of tokens`,
		"normal:9e8,1e8":     `"normal:9e8,1e8": mean + 4 SD is above 1000000000 tokens`,
		"uniform:2048":       `"uniform:2048": want uniform:LO-HI (e.g. uniform:128-2048)`,
		"uniform:2048-128":   `"uniform:2048-128": LO is above HI`,
		"uniform:0-5":        `"uniform:0-5": LO must be 1 or more`,
		"uniform:1.5-3":      `"uniform:1.5-3": LO: "1.5" is not a whole number of tokens (e.g. 512, 8k) (want uniform:LO-HI)`,
		"uniform:1-x":        `"uniform:1-x": HI: "x" is not a number of tokens`,
		"lognormal:5,1":      `"lognormal:5,1": unknown distribution "lognormal": want a length (512, 8k), normal:MEAN,SD or uniform:LO-HI`,
		"":                   `"": "" is not a number of tokens (e.g. 512, 8k); or normal:MEAN,SD or uniform:LO-HI`,
		"0":                  `"0": a length must be 1 or more`,
		"-4":                 `"-4": "-4" is below 0`,
		"1.5":                `"1.5": "1.5" is not a whole number of tokens`,
		"2000000000":         `"2000000000": "2000000000" is above 1000000000 tokens`,
		"1024,2048":          `"1024,2048": "1024,2048" is not a number of tokens`,
		"uniform:1-2000000k": `"uniform:1-2000000k": HI: "2000000k" is above 1000000000 tokens`,
	} {
		_, err := ParseDistribution(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}

// moments are the mean and standard deviation of n draws of d.
func moments(d Distribution, r *rand.Rand, n int) (mean, sd float64, lo, hi int) {
	var sum, sq float64
	lo, hi = math.MaxInt, 0
	for range n {
		x := d.Sample(r)
		sum += float64(x)
		sq += float64(x) * float64(x)
		lo, hi = min(lo, x), max(hi, x)
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(sq/float64(n) - mean*mean), lo, hi
}

// The sample mean and SD of 10,000 draws are the distribution's, within 4
// standard errors, for each of 5 seeds. The mean's SE is σ/√n; the SD's
// is σ/√(2n) for a normal and less for a uniform (σ·√(0.2/n)), so the
// uniform's bound has room. A right sampler misses a 4-SE bound about once
// in 15,000 checks (the seeds are fixed, so this one never does); one whose
// mean were 2% off would not pass: for normal:1024,256 that is 20 tokens,
// twice the bound of 10.2.
func TestSampleMoments(t *testing.T) {
	const n = 10_000
	for _, s := range []string{"normal:1024,256", "uniform:128-2048", "normal:4096,100", "uniform:1-10"} {
		d, err := ParseDistribution(s)
		require.NoError(t, err)
		seMean := d.SD() / math.Sqrt(n)
		seSD := d.SD() / math.Sqrt(2*n)
		for seed := uint64(1); seed <= 5; seed++ {
			mean, sd, lo, hi := moments(d, rand.New(rand.NewPCG(seed, 0)), n)
			assert.InDelta(t, d.Mean(), mean, 4*seMean, "%s seed %d: mean", s, seed)
			assert.InDelta(t, d.SD(), sd, 4*seSD, "%s seed %d: SD", s, seed)
			assert.GreaterOrEqual(t, lo, 1)
			assert.LessOrEqual(t, hi, d.Bound())
			t.Logf("%s seed %d: mean %.1f (want %.1f ± %.1f), SD %.1f (want %.1f ± %.1f), %d to %d",
				s, seed, mean, d.Mean(), 4*seMean, sd, d.SD(), 4*seSD, lo, hi)
		}
	}
	// A uniform reaches both its ends.
	d, _ := ParseDistribution("uniform:1-10")
	_, _, lo, hi := moments(d, rand.New(rand.NewPCG(1, 0)), n)
	assert.Equal(t, []int{1, 10}, []int{lo, hi})
}

// Draws are held to 1…Bound: a normal whose mass reaches below 1 gives
// 1 there, never 0 or less, and none above mean + 4 SD.
func TestSampleClamped(t *testing.T) {
	d, err := ParseDistribution("normal:10,100")
	require.NoError(t, err)
	assert.Equal(t, 410, d.Bound())
	r := rand.New(rand.NewPCG(3, 3))
	ones := 0
	for range 10_000 {
		x := d.Sample(r)
		require.GreaterOrEqual(t, x, 1)
		require.LessOrEqual(t, x, 410)
		if x == 1 {
			ones++
		}
	}
	// P(N(10, 100) < 1.5) = Φ(−0.085) ≈ 0.466.
	assert.InDelta(t, 4660, ones, 250, "the draws below 1 count as 1")

	assert.Equal(t, 700, Fixed(700).Sample(r))
	same1, same2 := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
	n, _ := ParseDistribution("normal:512,64")
	for range 100 {
		require.Equal(t, n.Sample(same1), n.Sample(same2), "the same seed, the same lengths")
	}
}
