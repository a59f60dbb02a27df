package runtimes

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchMessage is about 2 KiB of text, 512 tokens for a real tokenizer
// (about 4 bytes a token), with a quote and a newline to escape as a
// model's reply has; tag makes each message its own.
func benchMessage(tag string) string {
	var b strings.Builder
	b.WriteString(tag)
	b.WriteString(": \"quoted\"\n")
	for b.Len() < 2048 {
		b.WriteString("The quiet river carries a letter across the old bridge. ")
	}
	return b.String()[:2048]
}

// turnRequest is turn k of a conversation whose messages, the user's and
// the replies, are each benchMessage's 2 KiB: k-1 earlier turns in
// History, as Converse sends them, and a new user message.
func turnRequest(k int) Request {
	req := Request{MaxTokens: 256, System: "You are a helpful assistant."}
	for j := 1; j < k; j++ {
		req.History = append(req.History,
			Message{Role: "user", Content: benchMessage(fmt.Sprint("question ", j))},
			Message{Role: "assistant", Content: benchMessage(fmt.Sprint("answer ", j))})
	}
	req.Prompt = benchMessage(fmt.Sprint("question ", k))
	return req
}

// BenchmarkTurnBody is the cost of building turn 20's request (19 earlier
// turns of 2 KiB messages, about 80 KiB of body) for each protocol, as Do
// builds it: the messages, the JSON body, the *http.Request. Turn 1 for
// scale. b.SetBytes is the body's size, so MB/s is the encoding rate.
func BenchmarkTurnBody(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []Kind{KindOllama, KindOpenAI} {
		rt, err := New(Config{Name: "bench", Kind: kind, URL: "http://127.0.0.1:1", Model: "qwen3:8b"})
		if err != nil {
			b.Fatal(err)
		}
		proto := rt.Protocol()
		for _, k := range []int{1, 20} {
			req := turnRequest(k)
			b.Run(fmt.Sprintf("%s/turn=%d", kind, k), func(b *testing.B) {
				hreq, err := proto.build(rt, ctx, proto.Chat, req)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(hreq.ContentLength)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := proto.build(rt, ctx, proto.Chat, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
