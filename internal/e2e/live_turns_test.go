//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The turns of every conversation: the script's run has BENCH_TURNS=3,
// and TestTurns's own conversation as many, of replies up to
// proxyMaxTokens.
const (
	e2eTurns       = 3
	proxyMaxTokens = 24
)

// TestTurns checks a run of conversations of one prompt at concurrency 1
// against the server (E2E_TURNS_SUMMARY, its request records beside it):
// every turn of every conversation sent and answered in order, each
// turn's prompt longer than the one before, and Ollama's cache at work on
// the later turns. Then it sends a conversation of its own through
// package runtimes and a proxy that records what went over the wire: turn
// k's request has 2k−1 messages, user and assistant in turn, the
// assistant's being exactly the replies streamed before, the user's the
// prompt and the follow-ups in order.
func TestTurns(t *testing.T) {
	var env envVars
	base, model, path := env.str("E2E_URL"), env.str("E2E_MODEL"), env.str("E2E_TURNS_SUMMARY")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}

	t.Run("Run", func(t *testing.T) {
		f := readSummary(t, path)
		if len(f.Arguments.Prompts) != 1 {
			t.Fatalf("%s: arguments.prompts is %q, want one prompt", path, f.Arguments.Prompts)
		}
		// The driver's files: <id>.json and <id>.requests.jsonl.
		recs, err := records.Read(strings.TrimSuffix(path, ".json") + ".requests.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		table, fails := checkTurns(f, recs, defaultTurnsWant("ollama", f.Arguments.Prompts[0], e2eTurns))
		logChecks(t, table, fails)
	})

	t.Run("Messages", func(t *testing.T) {
		target, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		var chats chatLog
		srv := httptest.NewServer(chats.proxy(target))
		defer srv.Close() // a second Close does nothing
		rt := newRuntime(t, "ollama", runtimes.KindOllama, srv.URL, model)
		follow := prompts.FollowUps(e2eTurns)
		first := runtimes.Request{
			// Unique, so that nothing of it is cached from before.
			Prompt:    fmt.Sprintf("[turns %d]\nName three uses of a hash table, one line each.", time.Now().UnixNano()),
			MaxTokens: proxyMaxTokens, Seed: seeded(), Temperature: 0, Conversation: 1,
		}
		results := rt.Converse(t.Context(), first, follow)
		// Close waits for the proxy's handlers: every reply is recorded.
		srv.Close()
		ex := chats.all()

		// load ms: this conversation sends no num_ctx, the run did, so
		// turn 1 waits for the server to load the model again.
		t.Logf("conversation of %d turns through a recording proxy to %s/api/chat, max_tokens %d", e2eTurns, base, proxyMaxTokens)
		t.Logf("%-4s %8s %-38s %13s %14s %15s %9s %8s %11s", "turn", "messages", "roles", "prompt tokens", "prompt_eval ms", "ms/prompt-token", "TTFT ms", "load ms", "reply chars")
		for k, r := range results {
			roles, n, reply := "-", 0, 0
			if k < len(ex) {
				roles, n, reply = ex[k].roles(), len(ex[k].messages), len(ex[k].reply)
			}
			perToken := "-"
			if r.PromptTokens > 0 {
				perToken = fmt.Sprintf("%.3f", millis(r.PromptEval)/float64(r.PromptTokens))
			}
			t.Logf("%-4d %8d %-38s %13d %14.2f %15s %9.1f %8.1f %11d", k+1, n, roles, r.PromptTokens, millis(r.PromptEval), perToken, millis(r.TTFT), millis(r.LoadDuration), reply)
		}
		for k, r := range results {
			if !r.OK() {
				t.Errorf("turn %d: %v", k+1, r.Err)
			}
			if r.Turn != k+1 || r.Conversation != 1 {
				t.Errorf("result %d says turn %d of conversation %d, want turn %d of 1", k, r.Turn, r.Conversation, k+1)
			}
		}
		if len(results) != e2eTurns {
			t.Errorf("%d results, want %d", len(results), e2eTurns)
		}
		for _, msg := range checkMessages(ex, first.Prompt, follow) {
			t.Error(msg)
		}
		if !t.Failed() {
			t.Logf("messages OK: turn k sent 2k−1 messages, user and assistant in turn; each assistant message is the reply streamed before, byte for byte; the user messages are the prompt and then %q", follow)
		}
	})
}

// chatLog records the /api/chat exchanges that pass through its proxy, in
// the order the requests arrived.
type chatLog struct {
	mu sync.Mutex
	ex []*exchange
}

func (c *chatLog) all() []exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]exchange, len(c.ex))
	for i, e := range c.ex {
		out[i] = *e
	}
	return out
}

// proxy is a reverse proxy to target that records each /api/chat
// request's messages and the answer text of its NDJSON reply. Streaming
// goes through unbuffered (FlushInterval −1), so the client's clock sees
// each line as the server sent it.
func (c *chatLog) proxy(target *url.URL) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		// The reply as the server writes it, not compressed.
		r.Header.Del("Accept-Encoding")
		e := &exchange{}
		var req struct {
			Messages []runtimes.Message `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			e.err = fmt.Sprintf("request body: %v", err)
		}
		e.messages = req.Messages
		c.mu.Lock()
		c.ex = append(c.ex, e)
		c.mu.Unlock()

		tw := &teeWriter{ResponseWriter: w}
		rp.ServeHTTP(tw, r)
		reply, done, err := ollamaAnswer(tw.buf.Bytes())
		c.mu.Lock()
		defer c.mu.Unlock()
		e.reply, e.done = reply, done
		if err != nil && e.err == "" {
			e.err = fmt.Sprintf("reply: %v", err)
		}
	})
}

// teeWriter keeps a copy of what is written through it. Unwrap lets the
// proxy flush the writer under it.
type teeWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ollamaAnswer is the concatenated message.content of an /api/chat NDJSON
// reply, and whether it ended with its done line.
func ollamaAnswer(b []byte) (answer string, done bool, err error) {
	var sb strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			Done bool `json:"done"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return sb.String(), done, fmt.Errorf("line %q: %v", line, err)
		}
		sb.WriteString(l.Message.Content)
		done = done || l.Done
	}
	return sb.String(), done, sc.Err()
}
