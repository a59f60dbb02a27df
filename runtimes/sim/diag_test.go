package sim

import (
	"bufio"
	"fmt"
	"net/http"
	"sort"
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
// sent -> handler start (t0), deadline -> write, write -> flush, flush ->
// the client's read.
func TestDiagLateness(t *testing.T) {
	for _, timers := range []bool{false, true} {
		for _, conc := range []int{1, 64, 256} {
			t.Run(fmt.Sprintf("runtimeTimers=%v/conc=%d", timers, conc), func(t *testing.T) {
				useRuntimeTimers = timers
				defer func() { useRuntimeTimers = false }()
				diag(t, conc)
			})
		}
	}
}

func diag(t *testing.T, conc int) {
	cfg := Config{TTFT: 30 * time.Millisecond, TokensPerSec: 200}
	const n = 20
	srv, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	var recs []traceRec
	srv.trace = func(t0 time.Time, i int, began, flushed time.Time) {
		mu.Lock()
		recs = append(recs, traceRec{t0, i, began, flushed})
		mu.Unlock()
	}
	tr := &http.Transport{MaxIdleConnsPerHost: conc + 4, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	body := fmt.Sprintf(`{"messages":[{"content":"hi"}],"options":{"num_predict":%d}}`, n)
	type cl struct {
		start time.Time
		reads []time.Time
	}
	round := func() []cl {
		out := make([]cl, conc)
		var wg sync.WaitGroup
		for k := range conc {
			wg.Go(func() {
				st := time.Now()
				resp, err := c.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				br := bufio.NewReader(resp.Body)
				var reads []time.Time
				for {
					_, err := br.ReadBytes('\n')
					if err != nil {
						break
					}
					reads = append(reads, time.Now())
				}
				out[k] = cl{st, reads}
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
	t0s := map[time.Time]bool{}
	for _, r := range recs {
		late = append(late, r.began.Sub(r.t0.Add(cfg.Offset(r.i))))
		flush = append(flush, r.flushd.Sub(r.began))
		t0s[r.t0] = true
	}
	var starts []time.Time
	var ttft, first []time.Duration
	for _, c := range clients {
		starts = append(starts, c.start)
		ttft = append(ttft, c.reads[0].Sub(c.start))
	}
	// Match client starts to t0s by order (both sorted).
	var t0l []time.Time
	for k := range t0s {
		t0l = append(t0l, k)
	}
	sort.Slice(t0l, func(i, j int) bool { return t0l[i].Before(t0l[j]) })
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	for i := range t0l {
		first = append(first, t0l[i].Sub(starts[i]))
	}
	t.Logf("start->t0 (sorted-matched): %v", sum(first))
	t.Logf("deadline->write:            %v", sum(late))
	t.Logf("write->flushed:             %v", sum(flush))
	t.Logf("client TTFT:                %v", sum(ttft))
}

func sum(d []time.Duration) string {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return fmt.Sprintf("n %d min %v mean %v p50 %v p90 %v max %v", len(d), d[0], s/time.Duration(len(d)), d[len(d)/2], d[len(d)*9/10], d[len(d)-1])
}
