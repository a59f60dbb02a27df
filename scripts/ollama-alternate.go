//go:build ignore

// ollama-alternate compares the decode rate of two Ollama servers serving
// the same model, by each server's own counters (eval_count /
// eval_duration of POST /api/generate), in rounds that alternate between
// them (old then new, new then old, ...), so that a machine shared with
// other work slows both alike. At each concurrency it first unloads the
// model on both (-fresh), sends one warm-up round to each, then -rounds
// rounds to each; a round is -conc requests at once, each with a prompt
// of its own, and its rate is the mean of their decode rates. It prints,
// per concurrency, each server's median rate and the median and range of
// the per-round ratio new/old, and the ratios themselves.
//
//	go run scripts/ollama-alternate.go -old http://127.0.0.1:11434 -new http://127.0.0.1:11435 -fresh
//
// It is a tool for checking an Ollama upgrade by hand (docs/e2e.md), not
// part of the suite.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

const text = "Explain in a few sentences why the sky is blue, and what changes at sunset."

var client = &http.Client{Timeout: 2 * time.Minute}

type reply struct {
	EvalCount    int    `json:"eval_count"`
	EvalDuration int64  `json:"eval_duration"`
	DoneReason   string `json:"done_reason"`
	Error        string `json:"error"`
}

// generate sends one request of n tokens and returns the server's decode
// rate, failing unless the server generated exactly n tokens.
func generate(url, model, prompt string, n int) (float64, error) {
	body, _ := json.Marshal(map[string]any{
		"model": model, "prompt": prompt, "stream": false, "keep_alive": "30m",
		"options": map[string]any{"num_predict": n, "temperature": 0, "seed": 1},
	})
	resp, err := client.Post(url+"/api/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, fmt.Errorf("POST %s/api/generate: status %d, reply not JSON: %v", url, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || r.Error != "" {
		return 0, fmt.Errorf("POST %s/api/generate: status %d: %s", url, resp.StatusCode, r.Error)
	}
	if r.EvalCount != n || r.EvalDuration <= 0 {
		return 0, fmt.Errorf("POST %s/api/generate: eval_count %d in %d ns, want %d tokens (done_reason %q)",
			url, r.EvalCount, r.EvalDuration, n, r.DoneReason)
	}
	return float64(r.EvalCount) / (float64(r.EvalDuration) / 1e9), nil
}

// round sends conc requests at once and returns the mean of their rates.
func round(url, model string, conc, n int, tag string) (float64, error) {
	rates := make([]float64, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for i := range conc {
		wg.Go(func() {
			rates[i], errs[i] = generate(url, model, fmt.Sprintf("[%s req %d] %s", tag, i, text), n)
		})
	}
	wg.Wait()
	sum := 0.0
	for i := range conc {
		if errs[i] != nil {
			return 0, errs[i]
		}
		sum += rates[i]
	}
	return sum / float64(conc), nil
}

// unload asks the server to unload the model (keep_alive 0) and waits,
// 10 s at most, until GET /api/ps lists no model.
func unload(url, model string) error {
	body, _ := json.Marshal(map[string]any{"model": model, "keep_alive": 0})
	resp, err := client.Post(url+"/api/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	for range 100 {
		r, err := client.Get(url + "/api/ps")
		if err != nil {
			return err
		}
		var ps struct{ Models []json.RawMessage }
		err = json.NewDecoder(r.Body).Decode(&ps)
		r.Body.Close()
		if err == nil && len(ps.Models) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s/api/ps still lists a loaded model 10 s after keep_alive 0", url)
}

// spread returns the minimum, median and maximum of x.
func spread(x []float64) (lo, med, hi float64) {
	s := slices.Sorted(slices.Values(x))
	med = s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[0], med, s[len(s)-1]
}

type settings struct {
	old, new, model, tag string
	rounds, n            int
	fresh                bool
}

// compare runs one concurrency's rounds and prints its figures.
func compare(s settings, conc int) error {
	sides := []string{s.old, s.new}
	for _, u := range sides {
		if s.fresh {
			if err := unload(u, s.model); err != nil {
				return err
			}
		}
	}
	for _, u := range sides {
		if _, err := round(u, s.model, conc, s.n, fmt.Sprintf("%s warm-up c%d %s", s.tag, conc, u)); err != nil {
			return err
		}
	}
	var olds, news, ratios []float64
	for r := range s.rounds {
		got := map[string]float64{}
		for k := range 2 {
			u := sides[(r+k)%2] // old first in even rounds, new first in odd ones
			v, err := round(u, s.model, conc, s.n, fmt.Sprintf("%s c%d r%d", s.tag, conc, r))
			if err != nil {
				return err
			}
			got[u] = v
			fmt.Fprintf(os.Stderr, "conc %d round %d %s: %.1f tok/s\n", conc, r, u, v)
		}
		olds, news = append(olds, got[s.old]), append(news, got[s.new])
		ratios = append(ratios, got[s.new]/got[s.old])
	}
	a, b, c := spread(olds)
	d, e, f := spread(news)
	g, h, i := spread(ratios)
	fmt.Printf("conc %d, %d rounds: old median %.1f tok/s (%.1f..%.1f); new median %.1f (%.1f..%.1f); new/old median %.3f (%.3f..%.3f)\n",
		conc, s.rounds, b, a, c, e, d, f, h, g, i)
	fmt.Printf("ratios conc %d: %.3f\n", conc, ratios)
	return nil
}

func main() {
	var s settings
	flag.StringVar(&s.old, "old", "http://127.0.0.1:11434", "the old server's URL")
	flag.StringVar(&s.new, "new", "http://127.0.0.1:11435", "the new server's URL")
	flag.StringVar(&s.model, "model", "inferencebench-e2e", "the model, as both servers name it")
	flag.IntVar(&s.rounds, "rounds", 10, "rounds on each server at each concurrency")
	flag.IntVar(&s.n, "n", 64, "tokens a request (num_predict)")
	flag.StringVar(&s.tag, "run", "a", "a tag in every prompt, to keep them unique across runs")
	flag.BoolVar(&s.fresh, "fresh", false, "unload the model on both servers before each concurrency")
	concs := flag.String("conc", "1,4", "concurrencies, comma-separated")
	flag.Parse()
	if s.rounds < 1 || s.n < 1 || s.old == s.new {
		fmt.Fprintln(os.Stderr, "ollama-alternate: -rounds and -n must be at least 1, and -old and -new differ")
		os.Exit(2)
	}
	for _, cs := range strings.Split(*concs, ",") {
		conc, err := strconv.Atoi(strings.TrimSpace(cs))
		if err != nil || conc < 1 {
			fmt.Fprintf(os.Stderr, "ollama-alternate: -conc: %q is not a concurrency of 1 or more\n", cs)
			os.Exit(2)
		}
		if err := compare(s, conc); err != nil {
			fmt.Fprintln(os.Stderr, "ollama-alternate:", err)
			os.Exit(1)
		}
	}
}
