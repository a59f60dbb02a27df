package records

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/runtimes"
)

const ms = time.Millisecond

// A round's results become one record each, and read back the same; a
// last line cut short (a run killed while writing it) is left out.
func TestRecordsRoundTrip(t *testing.T) {
	runStart := time.Date(2026, 12, 2, 11, 45, 19, 0, time.UTC)
	ok := runtimes.Result{
		Start: runStart.Add(1500 * ms), TTFT: 200 * ms, TTFC: 300 * ms, Total: 1200 * ms,
		OutputTokens: 11, Chunks: 3, Gaps: []float32{0.1, 0.4}, ServedModel: "served",
		PromptTokens: 40, CachedTokens: 32, CachedReported: true, PromptEval: 20 * ms, PromptEvalTokens: 8,
		FinishReason: "length", Resent: 1,
	}
	bad := runtimes.Result{Start: runStart.Add(1600 * ms), Total: 50 * ms,
		Err: runtimes.NewError(runtimes.ClassReset, "connection reset by peer")}
	k := bench.Key{Runtime: "llamacpp", Model: "asked", Prompt: "short", Concurrency: 2}
	recs := OfRound(k, 2, 3, false, runStart, []runtimes.Result{ok, bad}, Keep{Chunks: true})
	require.Len(t, recs, 2)
	r := recs[0]
	assert.Equal(t, "served", r.ServedModel)
	assert.Equal(t, 2, r.Count)
	assert.Equal(t, 3, r.Round)
	assert.InDelta(t, 1.5, r.StartS, 1e-9)
	assert.InDelta(t, 0.1, *r.TPOTS, 1e-9, "(1.2 − 0.2) / (11 − 1)")
	assert.Equal(t, 32, *r.CachedPromptTokens)
	assert.Nil(t, r.ReasoningTokens)
	assert.Equal(t, 8, *r.Server.PromptEvalTokens)
	assert.InDelta(t, 0.02, *r.Server.PromptEvalS, 1e-9)
	assert.Nil(t, r.Server.EvalS)
	assert.InDeltaSlice(t, []float64{0.2, 0.3, 0.7}, r.ChunkS, 1e-6, "TTFT, then the gaps added up")
	assert.Nil(t, r.ErrorClass)
	assert.Equal(t, "reset", *recs[1].ErrorClass)
	assert.Nil(t, recs[1].TTFTS, "no text, no TTFT")

	data, err := Append(nil, recs)
	require.NoError(t, err)
	assert.Equal(t, 2, bytes.Count(data, []byte("\n")))
	back, err := decode(bytes.NewReader(append(data, `{"runtime":"cut sh`...)), nil)
	require.NoError(t, err)
	assert.Equal(t, recs, back)
	_, err = decode(strings.NewReader("{\"runtime\":1}\n{}\n"), nil)
	assert.ErrorContains(t, err, "line 1")

	none := OfRound(k, 1, 1, true, runStart, []runtimes.Result{ok}, Keep{})
	assert.Nil(t, none[0].ChunkS, "chunk times only with BENCH_RECORD_CHUNKS=1")
	assert.True(t, none[0].Warmup)
	assert.Nil(t, none[0].Text, "text only with BENCH_RECORD_TEXT=1")
	line, err := Append(nil, none)
	require.NoError(t, err)
	assert.NotContains(t, string(line), `"text"`)

	ok.Text = "the reply"
	bad.Text = ""
	texts := OfRound(k, 1, 1, false, runStart, []runtimes.Result{ok, bad}, Keep{Text: true})
	require.NotNil(t, texts[0].Text)
	assert.Equal(t, "the reply", *texts[0].Text)
	require.NotNil(t, texts[1].Text, "an empty reply's text is kept as empty, not left out")
	assert.Empty(t, *texts[1].Text)
}

// ReadCanaryTexts: the canary records' whole texts by their hash, however
// the key is spaced; not a canary's text that quotes the key, not a
// failed canary, not other records.
func TestReadCanaryTexts(t *testing.T) {
	long := strings.Repeat("0123456789", 300)
	quoting := `a reply that says "canary":true`
	failed := "cut"
	lines := []string{
		`{"runtime":"sim","canary":false,"text":"not a canary"}`,
		`{"runtime":"sim","text":` + strconv.Quote(quoting) + `,"canary":false}`,
		`{"runtime":"sim","canary" :  true,"output_tokens":300,"text":` + strconv.Quote(long) + `}`,
		`{"runtime":"sim","canary":true,"text":"cut","error":"reading the stream: EOF"}`,
		`{"runtime":"sim","canary":true,"text":"short"}`,
	}
	path := filepath.Join(t.TempDir(), "r"+".requests.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	texts, err := ReadCanaryTexts(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		canary.New(long, 0).TextSHA256:    long,
		canary.New("short", 0).TextSHA256: "short",
	}, texts)
	assert.NotContains(t, texts, canary.New(failed, 0).TextSHA256)
	assert.True(t, mayBeCanary([]byte(lines[2])))
	assert.False(t, mayBeCanary([]byte(lines[1])), "the key quoted inside a text is escaped")

	require.NoError(t, os.WriteFile(path, []byte(lines[0]+"\n"+`{"canary": true, "text": 5}`+"\n{}\n"), 0o644))
	_, err = ReadCanaryTexts(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": line 2: ")

	texts, err = ReadCanaryTexts(filepath.Join(t.TempDir(), "none"+".requests.jsonl"))
	assert.NoError(t, err, "a run without records")
	assert.Nil(t, texts)
}
