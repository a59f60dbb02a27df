package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FreshWay is how a server is returned to a known state between leaves:
// the state it keeps from one request to the next (a prompt cache, the
// caches of its parallel sequences) is dropped, so that a leaf's figures do
// not depend on the leaves that ran before it.
type FreshWay string

const (
	// FreshUnload: Ollama (native or its /v1) unloads the model, a chat
	// request with no messages and keep_alive 0; the next request loads
	// it again, with its runner's state new.
	FreshUnload FreshWay = "unload"
	// FreshEraseSlots: llama-server erases every slot's cache, POST
	// /slots/ID?action=erase (it needs --slot-save-path: SlotSavePathHint).
	FreshEraseSlots FreshWay = "erase-slots"
	// FreshResetPrefixCache: vLLM drops its prefix cache, POST
	// /reset_prefix_cache (served in its development mode only).
	FreshResetPrefixCache FreshWay = "reset-prefix-cache"
	// FreshFlushCache: SGLang drops its radix cache, POST /flush_cache.
	FreshFlushCache FreshWay = "flush-cache"
	// FreshNone: the server offers no way (LM Studio, mlx_lm.server, or a
	// vLLM outside development mode); nothing is done.
	FreshNone FreshWay = "none"
)

// unloadWait bounds the wait for Ollama to have unloaded the model after
// it said so: it stops the runner after answering.
const unloadWait = 30 * time.Second

// FreshWay finds, once, how this runtime's server can be returned to a
// known state: by its kind and by which endpoints answer. It sends no
// request that changes the server's state.
func (rt *Runtime) FreshWay(ctx context.Context) FreshWay {
	rt.freshOnce.Do(func() { rt.fresh = rt.findFreshWay(ctx) })
	return rt.fresh
}

func (rt *Runtime) findFreshWay(ctx context.Context) FreshWay {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	if own, ok := KnownServer(rt.Protocol().Server); ok {
		return own.Fresh // the protocol is that server's own API
	}
	// Each known server's way, where the server answers as one that has
	// it (llama-server's /props slots, vLLM's and SGLang's /version: which
	// reset they allow is found by trying it, Fresh, as neither lists its
	// endpoints; Ollama's /api/version beside its /v1, last).
	for _, s := range byOllamaLast() {
		if s.freshCheck != nil && s.freshCheck(ctx, rt) {
			return s.Fresh
		}
	}
	return FreshNone
}

// slotCount is llama-server's /props total_slots, 0 elsewhere.
func (rt *Runtime) slotCount(ctx context.Context) int {
	body, err := rt.get(ctx, http.MethodGet, pathProps, nil)
	if err != nil {
		return 0
	}
	var p struct {
		TotalSlots int `json:"total_slots"`
	}
	if json.Unmarshal(body, &p) != nil {
		return 0
	}
	return p.TotalSlots
}

// Fresh returns the server to a known state the way FreshWay found, and
// returns the way it used. A server that refuses (an HTTP error) returns
// the way and an error that names the runtime and quotes the server; the
// caller says so and goes on. For vLLM-like servers a refused
// /reset_prefix_cache is tried as SGLang's /flush_cache before it counts as
// refused, and the way that worked is kept for the next call; where the
// server serves neither (404 or 405: a vLLM outside its development
// mode), the way becomes FreshNone, with no error.
func (rt *Runtime) Fresh(ctx context.Context) (FreshWay, error) {
	way := rt.FreshWay(ctx)
	ctx, cancel := context.WithTimeout(ctx, unloadWait+metaTimeout)
	defer cancel()
	var err error
	switch way {
	case FreshNone:
		return way, nil
	case FreshUnload:
		err = rt.unload(ctx)
	case FreshEraseSlots:
		err = rt.eraseSlots(ctx)
	case FreshResetPrefixCache, FreshFlushCache:
		if _, err = rt.post(ctx, "/"+pathOf(way)); err != nil && way == FreshResetPrefixCache {
			_, ferr := rt.post(ctx, "/flush_cache")
			switch {
			case ferr == nil:
				rt.fresh = FreshFlushCache
				return FreshFlushCache, nil
			case notServed(err) && notServed(ferr):
				// Neither is served (vLLM outside its development
				// mode, or another server): nothing to do.
				rt.fresh = FreshNone
				return FreshNone, nil
			}
		}
	}
	if err != nil {
		return way, rt.errorf("returning the server to a known state (%s): %w", way, err)
	}
	return way, nil
}

func pathOf(w FreshWay) string {
	if w == FreshFlushCache {
		return "flush_cache"
	}
	return "reset_prefix_cache"
}

func (rt *Runtime) post(ctx context.Context, path string) ([]byte, error) {
	c, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	return rt.get(c, http.MethodPost, path, []byte("{}"))
}

// Unload asks the server to unload the model, where it can (FreshWay
// FreshUnload: Ollama, native or its /v1), and waits, up to 30 s, until
// it no longer lists it; ok is false, and nothing is sent, where it
// cannot. The driver unloads the other side of a product (ollama@old)
// before a leaf run of one (ollama@new), so that one copy of the model is
// in memory.
func (rt *Runtime) Unload(ctx context.Context) (ok bool, err error) {
	if rt.FreshWay(ctx) != FreshUnload {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, unloadWait+metaTimeout)
	defer cancel()
	if err := rt.unload(ctx); err != nil {
		return true, rt.errorf("unloading the model (keep_alive 0): %w", err)
	}
	return true, nil
}

// unload asks Ollama to unload the model (no messages, keep_alive 0) and
// waits, up to unloadWait, until /api/ps no longer lists it: Ollama answers
// before its runner has stopped, and a request sent meanwhile would find
// the old runner.
func (rt *Runtime) unload(ctx context.Context) error {
	body, _ := json.Marshal(map[string]any{"model": rt.Model, "messages": []any{}, "keep_alive": 0, "stream": false})
	c, cancel := context.WithTimeout(ctx, metaTimeout)
	reply, err := rt.get(c, http.MethodPost, Ollama.Chat, body)
	cancel()
	if err != nil {
		return err
	}
	var r struct {
		DoneReason string `json:"done_reason"`
	}
	if json.Unmarshal(reply, &r) != nil || r.DoneReason != "unload" {
		return fmt.Errorf("POST /api/chat with keep_alive 0 answered %.200q, not done_reason \"unload\"", reply)
	}
	deadline := time.Now().Add(unloadWait)
	for {
		if !rt.listed(ctx) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the model was still loaded %v after Ollama said it unloaded it (GET /api/ps)", unloadWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// listed reports whether /api/ps lists the model; false where it cannot
// be asked.
func (rt *Runtime) listed(ctx context.Context) bool {
	return rt.ps(ctx) != nil
}

// SlotSavePathHint says how to start a llama-server whose slots the suite
// can erase: it serves slot actions, erase among them, only when started
// with --slot-save-path; without it it refuses each with HTTP 501 and a
// message that names the flag.
const SlotSavePathHint = "llama-server serves slot actions, erase among them, only when started with a folder for saved slots: " +
	"llama-server -m MODEL.gguf --slot-save-path DIR (e.g. /tmp/llama-slots; erasing writes nothing there)"

// eraseSlots erases every slot of a llama-server.
func (rt *Runtime) eraseSlots(ctx context.Context) error {
	n := rt.slotCount(ctx)
	if n == 0 {
		return errors.New("GET /props no longer says how many slots there are")
	}
	for id := range n {
		if _, err := rt.post(ctx, "/slots/"+strconv.Itoa(id)+"?action=erase"); err != nil {
			var he *httpError
			if errors.As(err, &he) && he.code == http.StatusNotImplemented && strings.Contains(he.msg, "slot-save-path") {
				// Its message, "This server does not support slots
				// action. Start it with `--slot-save-path`", said in
				// full, with the command.
				return fmt.Errorf("POST /slots/%d?action=erase: HTTP 501: %s", id, SlotSavePathHint)
			}
			return err
		}
	}
	return nil
}
