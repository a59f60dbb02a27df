package workload

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fresh is a traceFields as traceLine starts one: nothing set.
func fresh() traceFields { return traceFields{math.NaN(), missing, missing, nil} }

func sameFields(a, b traceFields) bool {
	ts := a.Timestamp == b.Timestamp || math.IsNaN(a.Timestamp) && math.IsNaN(b.Timestamp)
	return ts && a.InputLength == b.InputLength && a.OutputLength == b.OutputLength && slices.Equal(a.HashIDs, b.HashIDs)
}

var fastSeeds = []string{
	`{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 2353, 2354]}`,
	`{"timestamp":0,"input_length":1,"output_length":1,"hash_ids":[]}`,
	` { "hash_ids" : [ 0 ] , "output_length" : 5 , "input_length" : 600 , "timestamp" : 1530.5 } ` + "\r\n",
	`{"timestamp": 1e3, "input_length": 10, "output_length": 10}`,
	`{"timestamp": -0.5E-2, "input_length": -3, "output_length": 0}`,
	`{}`,
	`{"timestamp": 01, "input_length": 5, "output_length": 5}`,
	`{"timestamp": 1, "input_length": 5.0, "output_length": 5}`,
	`{"timestamp": 1, "input_length": 5e1, "output_length": 5}`,
	`{"timestamp": 1, "input_length": 12345678901234567890, "output_length": 5}`,
	`{"timestamp": 1, "input_length": 999999999999999999, "output_length": -999999999999999999}`,
	`{"timestamp": 1, "input_length": 5, "output_length": 5, "hash_ids": null}`,
	`{"timestamp": 1, "input_length": 5, "output_length": 5, "session": "x"}`,
	`{"Timestamp": 1, "input_length": 5, "output_length": 5}`,
	`{"timest\u0061mp": 1, "input_length": 5, "output_length": 5}`,
	`{"timestamp": 1, "input_length": 5, "output_length": 5, "hash_ids": [1, 2,]}`,
	`{"timestamp": 1, "input_length": 5, "output_length": 5} x`,
	`{"timestamp": 1, "input_length": 5, "output_length": 5, "input_length": 7}`,
	`{"timestamp": 12345678901234567, "input_length": 5, "output_length": 5}`,
	`{"timestamp": 1.}`,
	`{"timestamp": -}`,
	`{"timestamp": 1 "input_length": 5}`,
	`[1]`,
}

// Where the fast path reads a line, encoding/json reads it too, the same.
func FuzzTraceLine(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast := fresh()
		if !parseTraceFast(line, &fast) {
			return
		}
		slow := fresh()
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("%q: the fast path read it, encoding/json says %v", line, err)
		}
		if !sameFields(fast, slow) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", line, fast, slow)
		}
	})
}

// The fast path reads Mooncake's lines, and leaves the rest to
// encoding/json.
func TestParseTraceFast(t *testing.T) {
	fastOK := []bool{true, true, true, true, true, true, false, false, false, false, true, false, false, false, false, false, false, true, true, false, false, false, false}
	require.Len(t, fastOK, len(fastSeeds))
	for i, s := range fastSeeds {
		v := fresh()
		assert.Equal(t, fastOK[i], parseTraceFast([]byte(s), &v), s)
	}
	v := fresh()
	require.True(t, parseTraceFast([]byte(fastSeeds[0]), &v))
	assert.Equal(t, traceFields{27482, 6955, 52, []int{46, 47, 48, 2353, 2354}}, v)
	v = fresh()
	require.True(t, parseTraceFast([]byte(fastSeeds[2]), &v))
	assert.Equal(t, traceFields{1530.5, 600, 5, []int{0}}, v)
	v = fresh()
	require.True(t, parseTraceFast([]byte(fastSeeds[17]), &v))
	assert.Equal(t, 7, v.InputLength, "the last of a repeated key, as encoding/json")

	// Every line of the fixture takes the fast path.
	f, err := os.Open("testdata/trace.jsonl")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		v := fresh()
		assert.True(t, parseTraceFast(s.Bytes(), &v), "line %d", n)
	}
}

// Decoding a trace line allocates nothing on the fast path.
func TestParseTraceFastAllocs(t *testing.T) {
	line := []byte(fastSeeds[0])
	v := fresh()
	v.HashIDs = make([]int, 0, 16)
	allocs := testing.AllocsPerRun(100, func() {
		v.HashIDs = v.HashIDs[:0]
		if !parseTraceFast(line, &v) {
			t.Fatal("not read")
		}
	})
	assert.Zero(t, allocs)
}
