package telemetry

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestServerFiguresVLLM(t *testing.T) {
	d := Delta(parseFile(t, "vllm-before.txt"), parseFile(t, "vllm-after.txt"))
	f := DeriveServerFigures(d, 20)
	if f.PrefillSMean == nil || !approx(*f.PrefillSMean, 0.045) {
		t.Errorf("prefill mean %v, want 0.045", f.PrefillSMean)
	}
	if f.DecodeSMean == nil || !approx(*f.DecodeSMean, 1.28) {
		t.Errorf("decode mean %v, want 1.28", f.DecodeSMean)
	}
	if f.GeneratedTokens == nil || *f.GeneratedTokens != 5120 || f.GeneratedTokensSlack != 0 {
		t.Errorf("generated tokens %v ± %v, want 5120 ± 0", f.GeneratedTokens, f.GeneratedTokensSlack)
	}
	// vLLM's figures come from its own counts, not the caller's.
	if g := DeriveServerFigures(d, 0); g.PrefillSMean == nil || *g.PrefillSMean != *f.PrefillSMean {
		t.Errorf("with requests=0: %+v", g)
	}

	for client, agree := range map[int]bool{5120: true, 5080: true, 5170: true, 5000: false, 5200: false, 0: false} {
		err := CheckGeneratedTokens(f, client)
		if (err == nil) != agree {
			t.Errorf("CheckGeneratedTokens(5120 vs %d) = %v", client, err)
		}
	}
	err := CheckGeneratedTokens(f, 5000)
	if err == nil || !strings.Contains(err.Error(), "5120") || !strings.Contains(err.Error(), "5000") || !strings.Contains(err.Error(), "+2.4%") {
		t.Errorf("CheckGeneratedTokens(5120 vs 5000) = %v, want the two counts and +2.4%%", err)
	}
}

func TestServerFiguresLlamaCpp(t *testing.T) {
	d := Delta(parseFile(t, "llamacpp-before.txt"), parseFile(t, "llamacpp-after.txt"))
	f := DeriveServerFigures(d, 20)
	if f.PrefillSMean == nil || math.Abs(*f.PrefillSMean-0.045) > 1e-6 {
		t.Errorf("prefill mean %v, want 0.045", f.PrefillSMean)
	}
	if f.DecodeSMean == nil || math.Abs(*f.DecodeSMean-5.08) > 1e-6 {
		t.Errorf("decode mean %v, want 5.08", f.DecodeSMean)
	}
	if f.GeneratedTokens == nil || *f.GeneratedTokens != 5119 || f.GeneratedTokensSlack != 5 {
		t.Errorf("generated tokens %v ± %v, want 5119 ± 5", f.GeneratedTokens, f.GeneratedTokensSlack)
	}
	if err := CheckGeneratedTokens(f, 5120); err != nil {
		t.Error(err)
	}
	// llama.cpp's times are sums over requests: without the number of
	// requests there is no mean.
	if g := DeriveServerFigures(d, 0); g.PrefillSMean != nil || g.DecodeSMean != nil || g.GeneratedTokens == nil {
		t.Errorf("with requests=0: %+v", g)
	}
}

func TestServerFiguresAfterRestart(t *testing.T) {
	d := Delta(parseFile(t, "llamacpp-before.txt"), parseFile(t, "llamacpp-restarted.txt"))
	f := DeriveServerFigures(d, 20)
	if f.PrefillSMean != nil || f.DecodeSMean != nil || f.GeneratedTokens != nil {
		t.Errorf("figures from reset counters: %+v", f)
	}
	if err := CheckGeneratedTokens(f, 5120); err != nil {
		t.Errorf("no server count, nothing to check: %v", err)
	}
}

func TestServerFiguresSGLang(t *testing.T) {
	before := parseText(t, "# TYPE sglang:generation_tokens_total counter\nsglang:generation_tokens_total{model_name=\"m\"} 100\n")
	after := parseText(t, "# TYPE sglang:generation_tokens_total counter\nsglang:generation_tokens_total{model_name=\"m\"} 164\n")
	d := Delta(before, after)
	f := DeriveServerFigures(d, 8)
	if f.GeneratedTokens == nil || *f.GeneratedTokens != 64 || f.PrefillSMean != nil {
		t.Errorf("SGLang figures: %+v", f)
	}
}

func TestPrintSlack(t *testing.T) {
	for v, want := range map[float64]float64{0: 0, 998721: 0, 999999: 0, 1.00384e6: 5, 9.99999e6: 5, 1.23457e7: 50, 2.5e9: 5000} {
		if got := printSlack(v); !approx(got, want) {
			t.Errorf("printSlack(%v) = %v, want %v", v, got, want)
		}
	}
}

// The server's cached prompt tokens come from vLLM's own count where it
// has one, else from its prefix cache's hits, else from SGLang's or
// llama-server's; a server without any of them, or whose counter went
// down, gives none.
func TestServerCachedPromptTokens(t *testing.T) {
	// vLLM V1 without vllm:prompt_tokens_cached_total: the prefix cache's
	// hits, 5180 − 1480.
	d := Delta(parseFile(t, "vllm-before.txt"), parseFile(t, "vllm-after.txt"))
	if f := DeriveServerFigures(d, 20); f.CachedPromptTokens == nil || *f.CachedPromptTokens != 3700 {
		t.Errorf("vLLM V1 cached prompt tokens %v, want 3700 (Δvllm:prefix_cache_hits_total)", f.CachedPromptTokens)
	}

	const both = `# TYPE vllm:prompt_tokens_cached_total counter
vllm:prompt_tokens_cached_total{engine="0",model_name="m"} %d.0
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} %d.0
`
	d = Delta(parseText(t, fmt.Sprintf(both, 100, 100)), parseText(t, fmt.Sprintf(both, 612, 640)))
	if f := DeriveServerFigures(d, 4); f.CachedPromptTokens == nil || *f.CachedPromptTokens != 512 {
		t.Errorf("with both vLLM counters: %v, want 512 (Δvllm:prompt_tokens_cached_total, not the prefix cache's 540)", f.CachedPromptTokens)
	}

	const sglang = `# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="m",cache_source="device"} %d
sglang:cached_tokens_total{model_name="m",cache_source="host"} %d
`
	d = Delta(parseText(t, fmt.Sprintf(sglang, 10, 0)), parseText(t, fmt.Sprintf(sglang, 74, 16)))
	if f := DeriveServerFigures(d, 4); f.CachedPromptTokens == nil || *f.CachedPromptTokens != 80 {
		t.Errorf("SGLang cached prompt tokens %v, want 80 (summed over cache_source)", f.CachedPromptTokens)
	}

	// A restarted vLLM: its counter went down, and measures nothing.
	d = Delta(parseText(t, fmt.Sprintf(both, 900, 900)), parseText(t, fmt.Sprintf(both, 40, 40)))
	if f := DeriveServerFigures(d, 4); f.CachedPromptTokens != nil {
		t.Errorf("cached prompt tokens from reset counters: %v", *f.CachedPromptTokens)
	}

	// llama-server counts them in llamacpp:prompt_tokens_cached_total:
	// none over these 20 requests.
	d = Delta(parseFile(t, "llamacpp-before.txt"), parseFile(t, "llamacpp-after.txt"))
	if f := DeriveServerFigures(d, 20); f.CachedPromptTokens == nil || *f.CachedPromptTokens != 0 || f.CachedPromptTokensFrom != "llamacpp:prompt_tokens_cached_total" {
		t.Errorf("llama-server cached prompt tokens %v from %q, want 0 from llamacpp:prompt_tokens_cached_total", f.CachedPromptTokens, f.CachedPromptTokensFrom)
	}
}
