package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/summary"
)

func inputFile(tokens, ttft []float64, cut int, numCtx int) *summary.File {
	f := &summary.File{Arguments: summary.Arguments{MaxTokens: 32, NumCtx: &numCtx}}
	for i, n := range []int{256, 1024, 3000} {
		n := n
		f.Summary = append(f.Summary, summary.Row{
			Runtime: "ollama", Prompt: "in" + itoa(n), Concurrency: 1, Requests: 2, Successes: 2,
			InputTokensTarget: &n, PromptTokensMean: &tokens[i], TTFTP50: &ttft[i], TruncatedPrompts: cut,
		})
	}
	return f
}

func itoa(n int) string { return map[int]string{256: "256", 1024: "1024", 3000: "3000"}[n] }

func TestCheckInputLengths(t *testing.T) {
	w := inputWant{runtime: "ollama", lengths: []int{256, 1024, 3000}}
	_, fails := checkInputLengths(inputFile([]float64{256, 1029, 2996.5}, []float64{0.9, 4.5, 20.5}, 0, 3032), w)
	assert.Empty(t, fails)

	_, fails = checkInputLengths(inputFile([]float64{256, 1040, 2996.5}, []float64{0.9, 4.5, 20.5}, 0, 3032), w)
	assert.Len(t, fails, 1, "1040 is more than 1% from 1024")
	_, fails = checkInputLengths(inputFile([]float64{256, 1029, 2996.5}, []float64{0.9, 24.5, 20.5}, 0, 3032), w)
	assert.Len(t, fails, 1, "TTFT fell")
	_, fails = checkInputLengths(inputFile([]float64{256, 1029, 2996.5}, []float64{0.9, 4.5, 20.5}, 1, 2048), w)
	assert.Len(t, fails, 4, "three rows cut, and the wrong num_ctx")

	table, fails := checkCut(inputFile([]float64{256, 1029, 2048}, []float64{0.9, 4.5, 11}, 2, 2048), "ollama", 3000)
	assert.Empty(t, fails)
	assert.Equal(t, []string{"num_ctx 2048, in3000: 2 of 2 requests cut, the server counted 2048.0 prompt tokens"}, table)
	_, fails = checkCut(inputFile([]float64{256, 1029, 2048}, []float64{0.9, 4.5, 11}, 1, 2048), "ollama", 3000)
	assert.Len(t, fails, 1)
}
