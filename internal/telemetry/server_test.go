package telemetry

import (
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
