//go:build timing

package sim_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A client's conversation of 4 turns: each turn's TTFT is SIM_TTFT + its
// uncached tokens / SIM_PREFILL_TPS within 2 ms (the suite's TTFT bound):
// with the prefix cache, the last reply and the new message; without, the
// whole history. One good try of three will do.
func TestConversationTTFTTiming(t *testing.T) {
	const rate = 10000.0
	ttft := 5 * time.Millisecond
	for _, mode := range []sim.PrefixCacheMode{sim.PrefixCacheOn, sim.PrefixCacheOff} {
		for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
			t.Run(fmt.Sprintf("%s/%s", mode, kind), func(t *testing.T) {
				var msgs []string
				for try := range 3 {
					msgs = nil
					srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: 10000, PrefillTPS: rate, PrefixCache: mode})
					client := &http.Client{Transport: runtimes.NewTransport(1)}
					rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second, Client: client})
					require.NoError(t, err)
					first := runtimes.Request{Prompt: strings.Repeat("Tell me about the river. ", 100), MaxTokens: 50, System: "Be brief."}
					results := rt.Converse(context.Background(), first, []string{"And the bridge?", "And the town?", "And the hills?"})
					client.CloseIdleConnections()
					require.Len(t, results, 4)
					prev := 0
					for k, r := range results {
						require.NoError(t, r.Err)
						uncached := r.PromptTokens
						if mode == sim.PrefixCacheOn {
							uncached -= prev
						}
						want := ttft + prefill(uncached, rate)
						if r.TTFT < want || r.TTFT > want+2*time.Millisecond {
							msgs = append(msgs, fmt.Sprintf("turn %d: TTFT %v, want %v + 2 ms", k+1, r.TTFT, want))
						}
						prev = r.PromptTokens
					}
					t.Logf("try %d: %v", try, msgs)
					if len(msgs) == 0 {
						return
					}
				}
				t.Errorf("prefill by turn not kept: %v", msgs)
			})
		}
	}
}
