package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// state is what the server keeps from one chat request to the next beside
// the prompt cache: whether the model is loaded (and with which num_ctx),
// whether decoding has degraded (Config.Degrade), and how many times a
// client reset it.
type state struct {
	degraded atomic.Bool  // Config.Degrade's flag
	resets   atomic.Int64 // successful resets, every way
	loads    atomic.Int64 // model loads, the first one's at Start not counted

	mu      sync.Mutex
	loaded  bool
	numCtx  int       // the num_ctx the model was loaded with
	readyAt time.Time // when its latest load ends
}

func newState(cfg Config) *state {
	return &state{loaded: true, numCtx: cfg.numCtxDefault()}
}

// use is a chat request whose schedule starts at t0 and that wants the
// model loaded with num_ctx numCtx (0: any; OpenAI-kind requests) using the
// model. If the model is unloaded, or loaded with another num_ctx, the
// request loads it: the load ends loadTime after t0. It returns how long
// the request waits for a load under way (its own or an earlier one's): 0
// when none is.
func (st *state) use(t0 time.Time, numCtx int, defaultNumCtx int, loadTime time.Duration) time.Duration {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded || (numCtx != 0 && numCtx != st.numCtx) {
		if numCtx == 0 {
			numCtx = defaultNumCtx
		}
		st.loaded, st.numCtx, st.readyAt = true, numCtx, t0.Add(loadTime)
		st.loads.Add(1)
	}
	if t0.Before(st.readyAt) {
		return st.readyAt.Sub(t0)
	}
	return 0
}

// isLoaded reports whether the model is loaded (or loading).
func (st *state) isLoaded() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.loaded
}

// reset returns the server to a known state: the prompt cache and the
// degradation forgotten and, if unload, the model unloaded. It returns
// the tokens of the last prompt the cache remembered (see
// promptCache.clear).
func (s *Server) reset(unload bool) int {
	last := s.cache.clear()
	s.state.degraded.Store(false)
	if unload {
		s.state.mu.Lock()
		s.state.loaded = false
		s.state.mu.Unlock()
	}
	s.state.resets.Add(1)
	return last
}

// Degraded reports whether the server decodes new requests slower
// (Config.Degrade): two chat requests have held a slot at the same time
// since it started or was last reset. Always false without Degrade.
func (s *Server) Degraded() bool { return s.state.degraded.Load() }

// Resets is the number of times a client has returned the server to a
// known state, by any of its reset endpoints (refusals not counted).
func (s *Server) Resets() int { return int(s.state.resets.Load()) }

// Loads is the number of times the model was loaded after Start: the first
// chat request (or Ollama load request) after an unload, and every
// Ollama-kind request whose num_ctx differs from the loaded model's.
func (s *Server) Loads() int { return int(s.state.loads.Load()) }
