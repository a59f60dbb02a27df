package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
)

// summaryCmd checks the summary JSON of a suite run against real Ollama.
func summaryCmd(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ExitOnError)
	path := fs.String("json", "", "summary JSON file")
	rts := fs.String("runtimes", "ollama,ollama-v1", "runtimes the run benchmarked")
	prompts := fs.String("prompts", "short,medium,code", "prompts the run benchmarked")
	conc := fs.String("conc", "1,4", "concurrencies the run benchmarked")
	rounds := fs.Int("rounds", 3, "timed rounds per leaf (-benchtime=Nx)")
	count := fs.Int("count", 2, "go test -count")
	maxTokens := fs.Int("max-tokens", 128, "BENCH_MAX_TOKENS")
	version := fs.String("version", "0.6.5", "Ollama version the native runtime must report")
	native := fs.String("native", "ollama", "the runtime of kind ollama whose version is checked")
	fs.Parse(args)
	if *path == "" {
		return fmt.Errorf("-json is required")
	}
	cs, err := ints(*conc)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(*path)
	if err != nil {
		return err
	}
	want := summaryWant{
		runtimes: names(*rts), prompts: names(*prompts), conc: cs,
		rounds: *rounds, count: *count, maxTokens: *maxTokens,
		native: *native, version: *version,
	}
	f := checkSummary(b, want)
	if len(f) == 0 {
		fmt.Printf("summary OK: %s: %d rows, every request succeeded with %d output tokens, %s reports version %s\n",
			*path, len(want.runtimes)*len(want.prompts)*len(want.conc), *maxTokens, *native, *version)
	}
	return f.err()
}

type summaryWant struct {
	runtimes, prompts []string
	conc              []int
	rounds, count     int
	maxTokens         int
	native, version   string
}

// checkSummary returns the failed checks of a summary JSON. It prints one
// line per row.
//
// Every request's token count is checked through the rows'
// output_tokens_min and output_tokens_max.
func checkSummary(b []byte, w summaryWant) failures {
	var f failures
	var doc struct {
		Versions  map[string]*string `json:"versions"`
		Arguments struct {
			MaxTokens int `json:"max_tokens"`
		} `json:"arguments"`
		Runtimes []struct {
			Name, Kind, Model string
		} `json:"runtimes"`
		ModelMetadata map[string]json.RawMessage `json:"model_metadata"`
		Summary       []map[string]any           `json:"summary"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		f.add("summary JSON does not parse: %v", err)
		return f
	}
	if doc.Arguments.MaxTokens != w.maxTokens {
		f.add("arguments.max_tokens is %d, want %d", doc.Arguments.MaxTokens, w.maxTokens)
	}
	if v := doc.Versions[w.native]; v == nil || *v != w.version {
		got := "null"
		if v != nil {
			got = fmt.Sprintf("%q", *v)
		}
		f.add("versions.%s is %s, want %q", w.native, got, w.version)
	}
	var meta struct {
		Show json.RawMessage `json:"show"`
	}
	if json.Unmarshal(doc.ModelMetadata[w.native], &meta) != nil || len(meta.Show) == 0 {
		f.add("model_metadata.%s has no /api/show reply", w.native)
	}

	type key struct {
		rt, prompt string
		conc       int
	}
	seen := map[key]bool{}
	fmt.Printf("%-10s %-7s %4s %5s %5s %5s %9s %9s %9s %8s\n",
		"runtime", "prompt", "conc", "req", "ok", "fail", "ttft_ms", "decode/s", "agg/s", "tokens")
	for _, r := range doc.Summary {
		k := key{str(r["runtime"]), str(r["prompt"]), int(num(r["concurrency"]))}
		name := fmt.Sprintf("row %s/%s/conc=%d", k.rt, k.prompt, k.conc)
		if seen[k] {
			f.add("%s appears twice", name)
		}
		seen[k] = true
		req, ok, fail := int(num(r["requests"])), int(num(r["successes"])), int(num(r["failures"]))
		tokMin, tokMax := num(r["output_tokens_min"]), num(r["output_tokens_max"])
		fmt.Printf("%-10s %-7s %4d %5d %5d %5d %9.1f %9.1f %9.1f %8.2f\n",
			k.rt, k.prompt, k.conc, req, ok, fail, 1000*num(r["ttft_s_mean"]), num(r["decode_tps_mean"]), num(r["aggregate_output_tps_mean"]), tokMin)

		if wantReq := k.conc * w.rounds * w.count; req != wantReq {
			f.add("%s: %d requests, want %d (conc × rounds × count)", name, req, wantReq)
		}
		if ok <= 0 || ok != req {
			f.add("%s: %d of %d requests succeeded", name, ok, req)
		}
		if fail != 0 {
			f.add("%s: %d failures", name, fail)
		}
		if approx, _ := r["output_tokens_approx"].(bool); approx {
			f.add("%s: output tokens were counted by chunks: the server gave no token count", name)
		}
		for _, m := range []string{"decode_tps_mean", "decode_tps_p50", "decode_tps_p95", "ttft_s_mean", "total_s_mean", "aggregate_output_tps_mean"} {
			if v := num(r[m]); !(v > 0) {
				f.add("%s: %s is %v, want > 0", name, m, r[m])
			}
		}
		if T := float64(w.maxTokens); tokMin != T || tokMax != T {
			f.add("%s: output tokens per request from %v to %v, want every request exactly %d", name, r["output_tokens_min"], r["output_tokens_max"], w.maxTokens)
		}
	}
	for _, rt := range w.runtimes {
		for _, p := range w.prompts {
			for _, c := range w.conc {
				if !seen[key{rt, p, c}] {
					f.add("no row for %s/%s/conc=%d", rt, p, c)
				}
			}
		}
	}
	for k := range seen {
		if !slices.Contains(w.runtimes, k.rt) || !slices.Contains(w.prompts, k.prompt) || !slices.Contains(w.conc, k.conc) {
			f.add("unexpected row %s/%s/conc=%d", k.rt, k.prompt, k.conc)
		}
	}
	return f
}

func str(v any) string { s, _ := v.(string); return s }

// num returns a JSON number, or NaN for null or another type.
func num(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return math.NaN()
}
