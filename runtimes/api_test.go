package runtimes

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// tick is a clock for a recorded reply: each call is 10 ms after the
// last, the first 10 ms after start, so a line's stamp says its place.
func tick(start time.Time) func() time.Time {
	n := 0
	return func() time.Time { n++; return start.Add(time.Duration(n) * 10 * time.Millisecond) }
}

// lineAt is the stamp tick gives the line of a fixture that holds marker
// (lines counted from 1, blank ones too).
func lineAt(t *testing.T, fixture, marker string) time.Duration {
	t.Helper()
	for i, l := range strings.Split(fixture, "\n") {
		if strings.Contains(l, marker) {
			return time.Duration(i+1) * 10 * time.Millisecond
		}
	}
	t.Fatalf("no line with %q", marker)
	return 0
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/api/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAPICompletionsStream(t *testing.T) {
	f := readFixture(t, "completions-vllm.sse")
	start := time.Unix(0, 0)
	var res Result
	if err := readCompletions(strings.NewReader(f), start, tick(start), &res); err != nil {
		t.Fatal(err)
	}
	// The first chunk has empty text: not a token.
	if want := lineAt(t, f, `" Hello"`); res.TTFT != want || res.TTFC != want {
		t.Errorf("TTFT %v, TTFC %v, want both %v (the first chunk with text)", res.TTFT, res.TTFC, want)
	}
	if res.Chunks != 3 || res.OutputTokens != 4 || res.TokensApprox || res.PromptTokens != 7 || res.FinishReason != "length" || res.ServedModel != "qwen" {
		t.Errorf("got chunks %d, output %d (approx %v), prompt %d, finish %q, model %q; want 3, 4 from usage, 7, length, qwen",
			res.Chunks, res.OutputTokens, res.TokensApprox, res.PromptTokens, res.FinishReason, res.ServedModel)
	}
	cut := f[:strings.Index(f, "data: [DONE]")]
	res = Result{}
	err := readCompletions(strings.NewReader(cut), start, tick(start), &res)
	if ErrorClass(err) != ClassTruncated {
		t.Errorf("a stream without data: [DONE]: %v (class %s), want truncated", err, ErrorClass(err))
	}
}

func TestAPIResponsesStream(t *testing.T) {
	f := readFixture(t, "responses.sse")
	start := time.Unix(0, 0)
	var res Result
	if err := readResponses(strings.NewReader(f), start, tick(start), &res); err != nil {
		t.Fatal(err)
	}
	if want := lineAt(t, f, `"delta":"Think"`); res.TTFT != want {
		t.Errorf("TTFT %v, want %v (the reasoning delta)", res.TTFT, want)
	}
	if want := lineAt(t, f, `"delta":"Hi"`); res.TTFC != want {
		t.Errorf("TTFC %v, want %v (the first response.output_text.delta)", res.TTFC, want)
	}
	if want := lineAt(t, f, `"type":"response.completed"`); res.Total != want {
		t.Errorf("Total %v, want %v (response.completed)", res.Total, want)
	}
	if res.Chunks != 3 || res.OutputTokens != 3 || res.PromptTokens != 9 || !res.CachedReported || res.CachedTokens != 4 ||
		!res.ReasoningReported || res.ReasoningTokens != 1 || res.FinishReason != "stop" || res.ServedModel != "gpt-oss:20b" {
		t.Errorf("got %+v", res)
	}
	inc := strings.Replace(f, `"type":"response.completed","sequence_number":11,"response":{"id":"resp_1","object":"response","created_at":1765000000,"status":"completed"`,
		`"type":"response.incomplete","sequence_number":11,"response":{"id":"resp_1","object":"response","created_at":1765000000,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}`, 1)
	res = Result{}
	if err := readResponses(strings.NewReader(inc), start, tick(start), &res); err != nil || res.FinishReason != "length" {
		t.Errorf("response.incomplete at max_output_tokens: err %v, finish %q, want length", err, res.FinishReason)
	}
	bad := f[:strings.Index(f, "event: response.output_text.done")] + "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"out of memory\",\"sequence_number\":8}\n\n"
	res = Result{}
	err := readResponses(strings.NewReader(bad), start, tick(start), &res)
	if ErrorClass(err) != ClassStreamError || !strings.Contains(err.Error(), "out of memory") || res.Chunks != 3 {
		t.Errorf("an error event: %v (class %s, %d chunks kept), want a stream error saying out of memory, 3 chunks", err, ErrorClass(err), res.Chunks)
	}
}

func TestAPIMessagesStream(t *testing.T) {
	f := readFixture(t, "messages.sse")
	start := time.Unix(0, 0)
	var res Result
	if err := readMessages(strings.NewReader(f), start, tick(start), &res); err != nil {
		t.Fatal(err)
	}
	if want := lineAt(t, f, `"thinking":"Hmm"`); res.TTFT != want {
		t.Errorf("TTFT %v, want %v (the thinking_delta)", res.TTFT, want)
	}
	if want := lineAt(t, f, `"text":"Hello"`); res.TTFC != want {
		t.Errorf("TTFC %v, want %v (the first text_delta)", res.TTFC, want)
	}
	if res.Chunks != 3 || res.OutputTokens != 5 || res.TokensApprox || res.PromptTokens != 12 || res.FinishReason != "length" || res.ServedModel != "qwen3:0.6b" {
		t.Errorf("got chunks %d, output %d (approx %v), prompt %d, finish %q, model %q; want 3, 5, 12, length (max_tokens), qwen3:0.6b",
			res.Chunks, res.OutputTokens, res.TokensApprox, res.PromptTokens, res.FinishReason, res.ServedModel)
	}
	res = Result{}
	err := readMessages(strings.NewReader(f[:strings.Index(f, "event: message_stop")]), start, tick(start), &res)
	if ErrorClass(err) != ClassTruncated || !strings.Contains(err.Error(), "message_stop") {
		t.Errorf("a stream without message_stop: %v, want truncated, naming message_stop", err)
	}
	over := "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
	err = readMessages(strings.NewReader(over), start, tick(start), &Result{})
	if ErrorClass(err) != ClassStreamError || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("an error event: %v, want a stream error saying Overloaded", err)
	}
}

func TestAPIEmbeddingsReply(t *testing.T) {
	start := time.Unix(0, 0)
	for _, c := range []struct {
		file   string
		prompt int
		model  string
	}{{"embeddings-openai.json", 14, "nomic-embed-text"}, {"embed-ollama.json", 8, "all-minilm"}} {
		f := readFixture(t, c.file)
		var res Result
		if err := readEmbeddings(2, false)(strings.NewReader(f), start, tick(start), &res); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if res.Embeddings != 2 || res.PromptTokens != c.prompt || res.ServedModel != c.model || res.Chunks != 1 ||
			res.TTFT != 10*time.Millisecond || res.Total != res.TTFT || res.OutputTokens != 0 {
			t.Errorf("%s: got %+v", c.file, res)
		}
		if res.Embedding != nil {
			t.Errorf("%s: the vector kept without KeepText", c.file)
		}
		var kept Result
		if err := readEmbeddings(2, true)(strings.NewReader(f), start, tick(start), &kept); err != nil {
			t.Fatalf("%s, kept: %v", c.file, err)
		}
		if len(kept.Embedding) < 2 || kept.Embedding[0] == 0 {
			t.Errorf("%s: kept the first embedding as %v, want its numbers", c.file, kept.Embedding)
		}
		err := readEmbeddings(3, false)(strings.NewReader(f), start, tick(start), &Result{})
		if ErrorClass(err) != ClassMalformed || !strings.Contains(err.Error(), "2 embeddings for 3 inputs") {
			t.Errorf("%s for 3 inputs: %v, want malformed, 2 embeddings for 3 inputs", c.file, err)
		}
	}
	var fe *failure
	err := readEmbeddings(1, false)(strings.NewReader(`{"error":"model \"x\" not found"}`), start, tick(start), &Result{})
	if !errors.As(err, &fe) || ErrorClass(err) != ClassStreamError {
		t.Errorf("an error body with status 200: %v, want a stream error", err)
	}
}
