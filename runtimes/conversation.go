package runtimes

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Message is one earlier message of a conversation: a user's, an
// assistant's reply, or a tool's result.
type Message struct {
	Role    string // "user", "assistant" or "tool"
	Content string
	// ToolCalls are an assistant message's tool calls, sent back as the
	// reply streamed them.
	ToolCalls []ToolCall
	// ToolCallID and Name are a "tool" message's: the id of the call it
	// answers and the called tool's name. Ollama's API (0.6.5) has no
	// field for either: there a tool message is its role and content.
	ToolCallID, Name string
}

// ToolCall is one tool call of a reply, whole.
type ToolCall struct {
	// ID is the server's id for the call (OpenAI-compatible servers give
	// one, Ollama's native API before 0.8 none); Converse makes one up,
	// "call_<turn>_<i>" (i from 0), for a call that has none.
	ID   string
	Name string
	// Arguments are the arguments' JSON text as streamed: OpenAI's
	// fragments joined, Ollama's object as sent. Not checked: they may be
	// cut or no JSON at all.
	Arguments string
}

// ToolResult is the content of the "tool" message Converse sends back for
// every tool call of a reply: the suite runs no tool, so each call gets
// this same short result.
const ToolResult = `{"result": "ok"}`

// Converse sends a conversation of 1+len(followUps) turns, one after the
// other. Turn 1 is first. Turn k > 1 is first with every earlier message
// in History — each user message, each reply's answer text exactly as the
// server streamed it, reasoning left out — and followUps[k-2] as its
// Prompt. A reply that made tool calls is sent back with them (ToolCalls,
// as streamed), followed by one "tool" message per call, in order, whose
// content is ToolResult, before the next user message: an agent loop
// whose tools all answer the same. Its results are in turn order, each
// with Turn set (from 1) and first's Conversation, and each its Text and
// Calls if first.KeepText is set (otherwise none has). A turn that fails
// ends the conversation: the turns after it are not sent and have no
// Result.
//
// The history is kept once: each turn's request shares it, so turn k costs
// the encoding of its body, O(history), and no copy while its room lasts
// (two messages a turn; a reply's tool messages may outgrow it, and append
// then copies it once). It grows between turns, before the next turn's
// clock starts.
func (rt *Runtime) Converse(ctx context.Context, first Request, followUps []string) []Result {
	results := make([]Result, 0, 1+len(followUps))
	var history []Message
	if len(followUps) > 0 {
		history = make([]Message, 0, len(first.History)+2*len(followUps))
		history = append(history, first.History...)
	}
	req := first
	keep := first.KeepText // every turn's text, for the records
	for k := 0; ; k++ {
		last := k == len(followUps)
		req.KeepText = keep || !last
		res := rt.Do(ctx, req)
		res.Turn, res.Conversation = k+1, first.Conversation
		for i := range res.Calls {
			if c := &res.Calls[i]; c.ID == "" {
				c.ID = "call_" + strconv.Itoa(k+1) + "_" + strconv.Itoa(i)
			}
		}
		results = append(results, res)
		if last || res.Err != nil || ctx.Err() != nil {
			return results
		}
		history = append(history,
			Message{Role: "user", Content: req.Prompt},
			Message{Role: "assistant", Content: res.Text, ToolCalls: res.Calls})
		for _, c := range res.Calls { // shared with results[k]
			history = append(history, Message{Role: "tool", Content: ToolResult, ToolCallID: c.ID, Name: c.Name})
		}
		if !keep {
			// Kept in history; the result need not hold them too.
			results[k].Text, results[k].Calls = "", nil
		}
		req.History, req.Prompt = history, followUps[k]
	}
}

// Chats runs conversations at once, one per request of firsts, each of
// 1+len(followUps) turns (see Converse; with no follow-ups each is a
// single request), and waits for all of them. The goroutines are started
// before the clock and released together, so starting them costs nothing
// in the figures. wall runs from the release to the end of the last
// request as its own clock stamped it (the end of its stream, or its
// failure), so the work a client does after a stream has ended, such as
// draining the connection for reuse, is not counted.
func (rt *Runtime) Chats(ctx context.Context, firsts []Request, followUps []string) (wall time.Duration, results [][]Result) {
	return rt.ChatsEach(ctx, firsts, func(int) []string { return followUps })
}

// ChatsEach is Chats with each conversation's follow-ups of its own:
// conversation i's are followUps(i) (a replayed workload's turns).
func (rt *Runtime) ChatsEach(ctx context.Context, firsts []Request, followUps func(i int) []string) (wall time.Duration, results [][]Result) {
	n := len(firsts)
	results = make([][]Result, n)
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-release
			results[i] = rt.Converse(ctx, firsts[i], followUps(i))
		}()
	}
	ready.Wait()
	start := time.Now()
	close(release)
	done.Wait()
	for _, chat := range results {
		end := End(chat)
		if end.IsZero() {
			// Failed before it was sent: no stamps to go by.
			wall = max(wall, time.Since(start))
			continue
		}
		wall = max(wall, end.Sub(start))
	}
	return wall, results
}

// End is when the last of results ended, by its own clock: the end of its
// stream, or its failure; the zero time if none was sent.
func End(results []Result) time.Time {
	var end time.Time
	for _, r := range results {
		if r.Start.IsZero() {
			continue
		}
		if e := r.Start.Add(r.Total); e.After(end) {
			end = e
		}
	}
	return end
}
