package stats

import (
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
)

const ms = time.Millisecond

// done is a successful request: first text at ttft, done at total, with
// tokens output tokens and no server timings.
func done(ttft, total time.Duration, tokens int) runtimes.Result {
	return runtimes.Result{TTFT: ttft, TTFC: ttft, Total: total, OutputTokens: tokens, Chunks: tokens}
}

// failed is a failed request that had measured something before failing,
// so a figure that counted it would show.
func failed() runtimes.Result {
	return runtimes.Result{
		TTFT: 9 * time.Second, Total: 99 * time.Second, OutputTokens: 9999,
		PromptTokens: 10, PromptEval: ms, Eval: ms, TokensApprox: true,
		Err: runtimes.NewError(runtimes.ClassReset, "vllm-metal (http://127.0.0.1:8001): reading the stream: read tcp 127.0.0.1:50712->127.0.0.1:8001: read: connection reset by peer"),
	}
}

// names are the settings the notes name, as a caller calls them.
var names = NoteSettings{KeepAlive: "KEEP_ALIVE_SETTING", NumCtx: "NUM_CTX_SETTING", Cache: "CACHE_SETTING"}
