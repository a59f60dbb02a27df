package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Embeddings (BENCH_API=embeddings), not streamed: POST /v1/embeddings
// {"model","input":[…]} answers {"data":[{"embedding":[…],"index":i},…],
// "usage":{"prompt_tokens":N}} (vLLM with an embedding model, llama-server
// started with --embeddings, LM Studio, Ollama's /v1); Ollama's own POST
// /api/embed {"model","input":[…]} answers {"embeddings":[[…],…],
// "prompt_eval_count":N, "load_duration", "total_duration"}. A request
// sends Request.EmbedBatch inputs, each the prompt after its number
// ("1: …"), so that no two are the same. The Result's TTFT, TTFC and
// Total are all the time until the whole reply was read, Chunks is 1,
// PromptTokens the server's count of the inputs' tokens, OutputTokens 0;
// with Request.KeepText (the canary), Embedding is the first input's
// embedding, its numbers as the server sent them.

type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format,omitempty"` // OpenAI's: "float"
	KeepAlive      string   `json:"keep_alive,omitempty"`      // Ollama's
}

// newEmbeddingsBody is the body of an embeddings request for req.
func (rt *Runtime) newEmbeddingsBody(req Request) embeddingsRequest {
	n := max(req.EmbedBatch, 1)
	in := make([]string, n)
	for i := range in {
		in[i] = strconv.Itoa(i+1) + ": " + req.Prompt
	}
	body := embeddingsRequest{Model: rt.Model, Input: in}
	if rt.Protocol().KeepAlive {
		body.KeepAlive = req.KeepAlive
	} else {
		body.EncodingFormat = "float"
	}
	return body
}

func (rt *Runtime) embeddingsRequest(ctx context.Context, req Request) (*http.Request, error) {
	if len(req.Tools) > 0 {
		return nil, errNoToolsAPI(APIEmbeddings)
	}
	return rt.postJSON(ctx, APIEmbeddings.Path(rt.Kind), rt.newEmbeddingsBody(req), "application/json")
}

// embeddingsReply is both replies' fields we use: each embedding is kept
// raw, as only its presence counts.
type embeddingsReply struct {
	Model string `json:"model"`
	Data  []struct {
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
	Embeddings      []json.RawMessage `json:"embeddings"`
	PromptEvalCount int               `json:"prompt_eval_count"`
	LoadDuration    int64             `json:"load_duration"`
	Error           apiError          `json:"error"`
}

// readEmbeddings is the reader of the reply to an embeddings request of
// want inputs: it reads the whole reply and checks that it has one
// embedding per input; with keep, it keeps the first in
// Result.Embedding.
func readEmbeddings(want int, keep bool) streamReader {
	return func(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
		return readEmbeddingsOf(r, start, now, res, max(want, 1), keep)
	}
}

func readEmbeddingsOf(r io.Reader, start time.Time, now func() time.Time, res *Result, want int, keep bool) error {
	body, err := io.ReadAll(io.LimitReader(r, maxLineSize+1))
	t := now()
	res.Total = t.Sub(start)
	if err != nil {
		return err
	}
	if len(body) > maxLineSize {
		return fail(ClassMalformed, fmt.Sprintf("embeddings reply longer than %d MiB", maxLineSize>>20))
	}
	var rep embeddingsReply
	if err := json.Unmarshal(body, &rep); err != nil {
		if len(bytes.TrimSpace(body)) == 0 {
			return fail(ClassTruncated, "embeddings reply ended before any byte")
		}
		return fail(ClassMalformed, fmt.Sprintf("bad embeddings reply %s: %s", quote(body), jsonError(err)))
	}
	if rep.Error.set {
		return fail(ClassStreamError, "error in reply: "+rep.Error.msg)
	}
	n := len(rep.Embeddings)
	for _, d := range rep.Data {
		if len(bytes.TrimSpace(d.Embedding)) > 2 {
			n++
		}
	}
	res.ServedModel = rep.Model
	res.PromptTokens = rep.PromptEvalCount
	if rep.Usage != nil {
		res.PromptTokens = rep.Usage.PromptTokens
	}
	res.LoadDuration = time.Duration(rep.LoadDuration)
	if n == 0 {
		return fail(ClassNoOutput, "embeddings reply without any embedding")
	}
	res.TTFT, res.TTFC, res.Chunks, res.Embeddings = res.Total, res.Total, 1, n
	if n != want {
		return fail(ClassMalformed, fmt.Sprintf("embeddings reply has %d embeddings for %d inputs", n, want))
	}
	if keep {
		first := rep.Embeddings
		if len(first) == 0 {
			first = []json.RawMessage{rep.Data[0].Embedding}
		}
		if err := json.Unmarshal(first[0], &res.Embedding); err != nil {
			return fail(ClassMalformed, fmt.Sprintf("embedding %s is not a list of numbers: %s", quote(first[0]), jsonError(err)))
		}
	}
	return nil
}

// ErrToolsChatOnly is the error (errors.Is, and a *ToolsAPIError by
// errors.As) of a request with tools sent through an API other than the
// chat: this client sends tools with the chat only. It names no setting:
// the caller that chose the tools and the API words that.
var ErrToolsChatOnly = errors.New("tools are sent with the chat API only")

// ToolsAPIError is a request with tools refused before it was sent: API
// is the API it was to go through.
type ToolsAPIError struct{ API API }

func (e *ToolsAPIError) Error() string { return ErrToolsChatOnly.Error() + ", not " + string(e.API) }

// Is makes errors.Is(err, ErrToolsChatOnly) true.
func (e *ToolsAPIError) Is(target error) bool { return target == ErrToolsChatOnly }

// errNoToolsAPI refuses tools with an API that this client sends none
// with.
func errNoToolsAPI(api API) error { return &ToolsAPIError{API: api} }
