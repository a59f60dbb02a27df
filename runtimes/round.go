package runtimes

import (
	"context"
	"slices"
	"time"
)

// Round sends reqs at once, one request each, and waits for all of them:
// Chats of single-turn conversations.
func (rt *Runtime) Round(ctx context.Context, reqs []Request) (wall time.Duration, results []Result) {
	wall, chats := rt.Chats(ctx, reqs, nil)
	results = make([]Result, len(chats))
	for i, c := range chats {
		results[i] = c[0]
	}
	return wall, results
}

// Copies returns n copies of req, for a Round of identical requests.
func Copies(req Request, n int) []Request { return slices.Repeat([]Request{req}, n) }
