package sim

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type traceRec struct {
	t0            time.Time
	i             int
	began, flushd time.Time
}

// TestDiagLateness breaks the client's view of the schedule down: request
// sent -> handler start (t0), deadline -> write, write -> flush, and the
// client's TTFT. Run with SIM_DIAG=1.
func TestDiagLateness(t *testing.T) {
	if os.Getenv("SIM_DIAG") == "" {
		t.Skip("set SIM_DIAG=1 to run")
	}
	concs := []int{1, 64, 256}
	if v := os.Getenv("SIM_DIAG_CONC"); v != "" {
		n, _ := strconv.Atoi(v)
		concs = []int{n}
	}
	for _, timers := range []bool{false, true} {
		for _, path := range []string{"/api/chat", "/v1/chat/completions"} {
			for _, conc := range concs {
				t.Run(fmt.Sprintf("runtimeTimers=%v%s/conc=%d", timers, path, conc), func(t *testing.T) {
					useRuntimeTimers = timers
					defer func() { useRuntimeTimers = false }()
					diag(t, path, conc, Config{TTFT: 80 * time.Millisecond, TokensPerSec: 250}, 50)
				})
			}
		}
	}
}

func diag(t *testing.T, path string, conc int, cfg Config, n int) {
	var mu sync.Mutex
	var recs []traceRec
	t0s := map[int]time.Time{}
	srv, err := start(cfg, hooks{
		trace: func(t0 time.Time, i int, began, flushed time.Time) {
			mu.Lock()
			recs = append(recs, traceRec{t0, i, began, flushed})
			mu.Unlock()
		},
		onStart: func(r *http.Request, t0 time.Time) {
			k, _ := strconv.Atoi(r.Header.Get("X-K"))
			mu.Lock()
			t0s[k] = t0
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: conc + 4, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	body := fmt.Sprintf(`{"messages":[{"content":"hi"}],"stream":true,"max_tokens":%d,"options":{"num_predict":%[1]d}}`, n)
	type cl struct {
		start time.Time
		first time.Time
	}
	round := func() []cl {
		out := make([]cl, conc)
		var wg sync.WaitGroup
		for k := range conc {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
				req.Header.Set("X-K", strconv.Itoa(k))
				st := time.Now()
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				br := bufio.NewReader(resp.Body)
				var first time.Time
				for {
					l, err := br.ReadBytes('\n')
					if err != nil {
						break
					}
					if first.IsZero() && strings.Contains(string(l), Token("hi", 0)) {
						first = time.Now()
					}
				}
				out[k] = cl{st, first}
			})
		}
		wg.Wait()
		return out
	}
	round()
	mu.Lock()
	recs = nil
	mu.Unlock()
	clients := round()

	var late, flush []time.Duration
	for _, r := range recs {
		late = append(late, r.began.Sub(r.t0.Add(cfg.Offset(r.i))))
		flush = append(flush, r.flushd.Sub(r.began))
	}
	var startT0, ttft, afterT0 []time.Duration
	for k, c := range clients {
		startT0 = append(startT0, t0s[k].Sub(c.start))
		ttft = append(ttft, c.first.Sub(c.start))
		afterT0 = append(afterT0, c.first.Sub(t0s[k]))
	}
	t.Logf("client start -> t0:     %v", sum(startT0))
	t.Logf("t0 -> client 1st token: %v", sum(afterT0))
	t.Logf("client TTFT:            %v", sum(ttft))
	t.Logf("deadline -> write:      %v", sum(late))
	t.Logf("write -> flushed:       %v", sum(flush))
}

func sum(d []time.Duration) string {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return fmt.Sprintf("n %4d min %9v mean %9v p50 %9v p90 %9v max %9v", len(d), d[0], s/time.Duration(len(d)), d[len(d)/2], d[len(d)*9/10], d[len(d)-1])
}
