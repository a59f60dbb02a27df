package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fixtureCreated = time.Date(2026, 8, 31, 11, 47, 27, 622260000, time.UTC)

// seedPath is the repository's copy of the seed harness's summary.
const seedPath = "../../testdata/seed-summary.json"

// node is a decoded JSON value that remembers the order of object keys.
type node struct {
	kind string // "object", "array", "string", "number", "bool", "null"
	keys []string
	obj  map[string]*node
	arr  []*node
}

func parseOrdered(t *testing.T, data []byte) *node {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec)
	require.NoError(t, err)
	return n
}

func decodeNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n := &node{kind: "object", obj: map[string]*node{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				key := k.(string)
				if _, dup := n.obj[key]; dup {
					return nil, fmt.Errorf("duplicate key %q", key)
				}
				n.keys = append(n.keys, key)
				n.obj[key] = v
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: "array"}
			for dec.More() {
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return &node{kind: "string"}, nil
	case json.Number:
		return &node{kind: "number"}, nil
	case bool:
		return &node{kind: "bool"}, nil
	case nil:
		return &node{kind: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// mustNull lists the seed keys whose value we write as null by design.
var mustNull = map[string]bool{"host.python": true}

// dataMaps lists the objects whose keys are data (runtime or prompt names), not
// part of the format.
var dataMaps = map[string]bool{"versions": true, "model_metadata": true, "prompts": true}

// assertContract checks that ours has every key of seed, in the seed's
// order, with a value of the seed's type (anything where the seed has
// null), recursively.
func assertContract(t *testing.T, seed, ours *node, path string) {
	t.Helper()
	if seed.kind == "null" {
		return
	}
	if mustNull[path] {
		assert.Equal(t, "null", ours.kind, path)
		return
	}
	if !assert.Equal(t, seed.kind, ours.kind, "type of %s", path) {
		return
	}
	switch seed.kind {
	case "object":
		if dataMaps[path] {
			for _, k := range ours.keys {
				if v := ours.obj[k]; path == "versions" {
					assert.Contains(t, []string{"string", "null"}, v.kind, "%s.%s", path, k)
				} else if path == "prompts" {
					assert.Equal(t, "string", v.kind, "%s.%s", path, k)
				}
			}
			return
		}
		var order []string
		for _, k := range ours.keys {
			if _, ok := seed.obj[k]; ok {
				order = append(order, k)
			}
		}
		assert.Equal(t, seed.keys, order, "keys of %s, in the seed's order", pathOr(path))
		for _, k := range seed.keys {
			if v, ok := ours.obj[k]; ok {
				assertContract(t, seed.obj[k], v, join(path, k))
			}
		}
	case "array":
		if len(seed.arr) == 0 {
			return
		}
		require.NotEmpty(t, ours.arr, path)
		for i, v := range ours.arr {
			assertContract(t, seed.arr[0], v, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func pathOr(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

func TestJSONKeepsTheSeedContract(t *testing.T) {
	seedData, err := os.ReadFile(seedPath)
	require.NoError(t, err)
	ourData, err := fixtureRun("0.28.0+cpu", fixtureCreated).File().Encode()
	require.NoError(t, err)
	seed, ours := parseOrdered(t, seedData), parseOrdered(t, ourData)

	assertContract(t, seed, ours, "")

	assert.Equal(t, append(slices.Clone(seed.keys), "complete", "format"), ours.keys, "top level: the seed's keys, in its order, then complete and format")
	row := ours.obj["summary"].arr[0]
	seedRow := seed.obj["summary"].arr[0]
	want := append([]string{}, seedRow.keys[:2]...)
	want = append(want, "prompt")
	failures := slices.Index(seedRow.keys, "failures")
	require.Positive(t, failures)
	want = append(want, seedRow.keys[2:failures+1]...)
	want = append(want, "errors")
	want = append(want, seedRow.keys[failures+1:]...)
	want = append(want, "output_tokens_approx", "output_tokens_min", "output_tokens_max",
		"ttft_s_p99", "total_s_p99",
		"ttfc_s_mean", "ttfc_s_p50", "ttfc_s_p95", "ttfc_s_p99",
		"tpot_s_mean", "tpot_s_p50", "tpot_s_p95", "tpot_s_p99",
		"itl_s_mean", "itl_s_p50", "itl_s_p95", "itl_s_p99", "itl_s_max",
		"burst_replies", "server_decode_tps_mean", "server_decode_tps_p50", "server_decode_tps_p95",
		"tokens_per_chunk_mean", "reasoning_tokens_mean",
		"prompt_tokens_mean", "cached_prompt_tokens_mean", "finish_reasons", "short_outputs", "served_model",
		"power_w_mean", "gpu_power_w_mean", "sys_power_w_mean", "energy_j", "energy_j_per_output_token",
		"ram_used_bytes_max", "swap_used_bytes_max", "swap_growth_bytes", "gpu_mhz_mean", "cpu_temp_c_max", "gpu_temp_c_max", "power_samples",
		"net_power_w_mean", "net_energy_j", "net_energy_j_per_output_token", "power_coverage",
		"energy_j_per_request_mean", "prefill_energy_j_per_request_mean", "decode_energy_j_per_request_mean", "prefill_energy_j_per_prompt_token", "decode_energy_j_per_output_token",
		"cpu_temp_c_start", "gpu_temp_c_start",
		"server_prefill_s_mean", "server_decode_s_mean", "server_generated_tokens", "server_cached_prompt_tokens_mean", "model_loads", "warmup_model_loads",
		"input_tokens_target", "truncated_prompts", "cache_hit_ratio", "not_sent", "canary",
		"rate_rps", "achieved_rps", "send_lag_s_p50", "send_lag_s_p99", "inflight_max", "inflight_capped", "throughput_rps",
		"goodput_rps", "slo_attainment")
	assert.Equal(t, want, row.keys, "rows: the seed's keys with prompt after model, errors after failures, and then the keys added since")
	assert.Equal(t, append(append([]string{}, seed.obj["measurement_notes"].keys...),
		"request_tps", "prompt_tps", "percentiles", "output_tokens", "ttfc", "tpot", "itl", "turns"), ours.obj["measurement_notes"].keys)
	assert.Equal(t, []string{"platform", "machine", "python", "go", "os", "arch", "cpu", "cpus", "memory_bytes", "power_source", "label",
		"idle_power_w", "idle_cpu_power_w", "idle_gpu_power_w", "idle_ane_power_w", "idle_power_w_sd"},
		ours.obj["host"].keys)
	assert.Equal(t, append(append([]string{}, seed.obj["arguments"].keys...),
		"temperature", "prompts", "count", "benchtime", "idle_timeout", "cache", "ignore_eos", "keep_alive",
		"rates", "burstiness", "max_inflight", "slo", "sweep", "power", "fresh", "control", "input_tokens", "num_ctx", "turns", "shared_prefix", "order", "canary", "record_text", "idle_power_s",
		"workload", "workload_n", "trace_speed", "tools", "tools_sha256"), ours.obj["arguments"].keys)
	assert.Equal(t, []string{"short", "code"}, ours.obj["prompts"].keys, "prompts in the order run, not sorted")
}

// The seed's notes keep their meaning; ours may only say more.
func TestNotesKeepTheSeedMeanings(t *testing.T) {
	var seed struct {
		Notes map[string]string `json:"measurement_notes"`
	}
	data, err := os.ReadFile(seedPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &seed))
	ours := map[string]string{
		"ttft": figureNotes.TTFT, "total": figureNotes.Total,
		"decode_tps": figureNotes.DecodeTPS, "aggregate_output_tps": figureNotes.AggregateOutputTPS,
	}
	require.ElementsMatch(t, slices.Collect(maps.Keys(seed.Notes)), slices.Collect(maps.Keys(ours)))
	assert.Contains(t, figureNotes.TTFT, "first chunk carrying non-empty generated text")
	assert.Contains(t, figureNotes.Total, "until stream completion")
	assert.Contains(t, figureNotes.DecodeTPS, "Ollama server eval metric")
	assert.Contains(t, figureNotes.DecodeTPS, "output tokens / (total - TTFT)")
	assert.Contains(t, figureNotes.AggregateOutputTPS, "Sum of successful output tokens / concurrent group wall time")
	assert.Contains(t, figureNotes.Percentiles, "R type 7")
}

func TestGoldenJSON(t *testing.T) {
	got, err := fixtureRun("0.28.0+cpu", fixtureCreated).File().Encode()
	require.NoError(t, err)
	golden(t, "testdata/golden.json", got)
}

func TestJSONDetails(t *testing.T) {
	base := func() *Run {
		r := NewRun(fixtureCreated)
		r.CompletedAt = fixtureCreated.Add(time.Minute)
		return r
	}
	decode := func(t *testing.T, r *Run) map[string]any {
		t.Helper()
		data, err := r.File().Encode()
		require.NoError(t, err)
		require.True(t, bytes.HasSuffix(data, []byte("}\n")), "trailing newline")
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		return doc
	}

	t.Run("times in the seed's form", func(t *testing.T) {
		r := base()
		r.CompletedAt = time.Date(2026, 8, 31, 13, 49, 15, 455115000, time.FixedZone("CEST", 2*3600))
		doc := decode(t, r)
		assert.Equal(t, "20260831T114727Z", doc["run_id"])
		assert.Equal(t, "2026-08-31T11:47:27.622260+00:00", doc["created_at"])
		assert.Equal(t, "2026-08-31T11:49:15.455115+00:00", doc["completed_at"])
	})
	t.Run("completed_at defaults to the time of writing", func(t *testing.T) {
		r := base()
		r.CompletedAt = time.Time{}
		before := time.Now().Truncate(time.Microsecond)
		doc := decode(t, r)
		after := time.Now()
		got, err := time.Parse(TimeFormat, doc["completed_at"].(string))
		require.NoError(t, err)
		assert.False(t, got.Before(before) || got.After(after), "%v not in [%v, %v]", got, before, after)
	})
	t.Run("an empty run writes empty collections, not null", func(t *testing.T) {
		doc := decode(t, base())
		assert.Equal(t, []any{}, doc["summary"])
		assert.Equal(t, []any{}, doc["runtimes"])
		assert.Equal(t, map[string]any{}, doc["versions"])
		assert.Equal(t, map[string]any{}, doc["model_metadata"])
		assert.Equal(t, map[string]any{}, doc["prompts"])
		args := doc["arguments"].(map[string]any)
		assert.Equal(t, []any{}, args["concurrency"])
		assert.Equal(t, []any{}, args["prompts"])
		assert.Nil(t, args["rounds"])
		assert.Nil(t, args["ollama_url"])
		assert.Nil(t, doc["host"].(map[string]any)["python"])
	})
	t.Run("non-finite numbers become null", func(t *testing.T) {
		r := base()
		r.Arguments.Timeout = stats.Number(math.Inf(1))
		r.Arguments.Temperature = stats.Number(math.NaN())
		args := decode(t, r)["arguments"].(map[string]any)
		assert.Contains(t, args, "timeout")
		assert.Nil(t, args["timeout"])
		assert.Nil(t, args["temperature"])
	})
	t.Run("model metadata: raw JSON kept, nil is null, other text a string", func(t *testing.T) {
		r := base()
		r.ModelMetadata = map[string]json.RawMessage{
			"a": json.RawMessage(`{"data":[{"id":"m","parent":null}]}`),
			"b": nil,
			"c": json.RawMessage("<html>502 Bad Gateway</html>"),
		}
		md := decode(t, r)["model_metadata"].(map[string]any)
		assert.Equal(t, map[string]any{"data": []any{map[string]any{"id": "m", "parent": nil}}}, md["a"])
		assert.Contains(t, md, "b")
		assert.Nil(t, md["b"])
		assert.Equal(t, "<html>502 Bad Gateway</html>", md["c"])
	})
	t.Run("text is not HTML-escaped", func(t *testing.T) {
		r := base()
		r.Prompts = []Prompt{{Name: "code", Text: "a < b && c > d"}}
		data, err := r.File().Encode()
		require.NoError(t, err)
		assert.Contains(t, string(data), `"code": "a < b && c > d"`)
	})
	t.Run("a prompt listed twice is an error", func(t *testing.T) {
		r := base()
		r.Prompts = []Prompt{{Name: "short", Text: "a"}, {Name: "short", Text: "b"}}
		_, err := r.File().Encode()
		assert.ErrorContains(t, err, `prompt "short" listed twice`)
	})
}

// golden compares got with the file at path (testkit.Golden).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testkit.Golden(t, path, got, "go test ./internal/summary -update")
}
