package driver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// With BENCH_IMAGES, a runtime whose model takes no images is refused
// before any timed request, naming the setting, the runtime, the model
// and the way it was told: Ollama's /api/show capabilities without
// "vision", or, from a server that says nothing, its refusal of one
// request with the run's images (vLLM's words). A vision model, or a run
// without images, goes on.
func TestModelWithoutVisionRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ kind, flavor, told, why string }{
		{"ollama", "ollama", `serves e2e, which takes no images (/api/show capabilities has no "vision")`, ""},
		// LM Studio serves no /api/show: the server is asked, and
		// answers as vLLM does.
		{"openai", "lmstudio", "serving e2e refused a request of one token with the run's 2 images (sim (http://", "HTTP 400 Bad Request: e2e is not a multimodal model"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				env     map[string]string
				refused bool
			}{
				{map[string]string{"BENCH_IMAGES": "2@64x64"}, true},
				{map[string]string{"BENCH_IMAGES": "2@64x64", "SIM_MODEL_VISION": "on"}, false},
				{map[string]string{}, false},
			} {
				env := merge(isolated(t), map[string]string{
					"BENCH_RUNTIMES": "sim", "SIM_KIND": c.kind, "SIM_FLAVOR": c.flavor, "BENCH_PROMPTS": "short", "SIM_MODEL": "e2e", "SIM_SERVED_MODEL": "e2e",
				}, tc.env)
				var log bytes.Buffer
				d, err := setup(context.Background(), env, &log, Options{})
				if d != nil {
					d.Close()
				}
				if !tc.refused {
					require.NoError(t, err, "%v", tc.env)
					continue
				}
				require.Error(t, err)
				for _, want := range []string{`BENCH_IMAGES="2@64x64"`, "sim (http://", "e2e", c.told, c.why,
					"SIM_MODEL_VISION=on", "serve a vision model", "unset BENCH_IMAGES"} {
					assert.Contains(t, err.Error(), want)
				}
			}
		})
	}
}

// A server that says its model takes no images (llama-server's /props
// modalities, Ollama's /api/show capabilities) has the run refused before
// any request but the metadata's: no chat, and no BENCH_FRESH=leaf reset
// (llama-server's slot erase, Ollama's unload, a chat with no messages).
// The same server with a vision model (llama-server started with --mmproj)
// runs, every request with the images.
func TestVisionRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		flavor sim.Flavor
		told   string
	}{
		{"llamacpp", sim.FlavorLlamaCpp, `(/props modalities has "vision": false; llama-server takes images only when started with --mmproj`},
		{"ollama", sim.FlavorOllama, `(/api/show capabilities has no "vision")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, vision := range []string{"off", "on"} {
				srv := flavoredSim(t, c.flavor, "SIM_MODEL_VISION", vision, "SIM_MODEL", "e2e", "SIM_SERVED_MODEL", "e2e",
					"SIM_TTFT", "1ms", "SIM_TOKENS_PER_SEC", "4000")
				url, requests := countingProxy(t, srv.URL)
				settings := func(url string) map[string]string {
					return merge(isolated(t), map[string]string{
						"BENCH_RUNTIMES": c.name, strings.ToUpper(c.name) + "_URL": url, "BENCH_PROMPTS": "short",
						"BENCH_IMAGES": "2@56x56", "BENCH_FRESH": "leaf", "BENCH_WARMUPS": "0",
					})
				}
				var log bytes.Buffer
				d, err := setup(context.Background(), settings(url), &log, Options{})
				if vision == "off" {
					require.Error(t, err, log.String())
					assert.Nil(t, d)
					for _, want := range []string{`BENCH_IMAGES="2@56x56": ` + c.name + " (" + url + ") serves e2e, which takes no images " + c.told, "unset BENCH_IMAGES"} {
						assert.Contains(t, err.Error(), want)
					}
					assert.Zero(t, requests.chats.Load(), "no chat request")
					assert.Zero(t, requests.resets.Load(), "no reset")
					continue
				}
				require.NoError(t, err, log.String())
				if c.flavor == sim.FlavorLlamaCpp { // Ollama's unload (BENCH_FRESH) is a chat
					assert.Zero(t, requests.chats.Load(), "no chat request to find that the model takes images")
				}
				// The leaf against the simulator itself (countingProxy).
				d.Close()
				d, err = setup(context.Background(), settings(srv.URL), &log, Options{})
				require.NoError(t, err, log.String())
				t.Cleanup(d.Close)
				out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 2)
				require.NoError(t, out.SaveErr)
				recs, err := records.Read(d.files.records)
				require.NoError(t, err)
				require.NotEmpty(t, recs)
				for _, r := range recs {
					require.NoError(t, recordErr(r))
					assert.Equal(t, 2, r.Images)
				}
			}
		})
	}
}

// Every request of a run with BENCH_IMAGES sends them: the simulator
// counts their tokens in each prompt (⌈56/28⌉² = 4 an image), the
// records and the row say how many and their size, and the .txt has
// the images line that keeps runs with other images apart.
func TestImagesOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, kind := range simKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			run := func(env map[string]string) (*Driver, []records.Record) {
				d, _ := startSim(t, map[string]string{
					"SIM_KIND": kind, "SIM_MODEL_VISION": "on", "BENCH_PROMPTS": "short", "BENCH_CACHE": "warm",
					"BENCH_WARMUPS": "1", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "4000", "BENCH_CANARY": "off",
				}, env)
				k := slices.Collect(d.Leaves())[0]
				out := runLeaf(t, d, k, 2)
				require.NoError(t, out.SaveErr)
				recs, err := records.Read(d.files.records)
				require.NoError(t, err)
				require.NotEmpty(t, recs)
				return d, recs
			}
			_, plain := run(nil)
			d, seen := run(map[string]string{"BENCH_IMAGES": "2@56x56:jpeg"})
			require.NotNil(t, plain[0].PromptTokens)
			want := *plain[0].PromptTokens + 2*sim.ImageTokens(56, 56)
			for _, r := range seen {
				require.NoError(t, recordErr(r))
				require.NotNil(t, r.PromptTokens)
				assert.Equal(t, want, *r.PromptTokens, "the images' tokens in every prompt")
				assert.Equal(t, 2, r.Images)
				assert.Equal(t, "56x56", r.ImageSize)
			}
			for _, r := range plain {
				assert.Zero(t, r.Images)
				assert.Empty(t, r.ImageSize)
			}

			f, err := summary.Read(d.files.json)
			require.NoError(t, err)
			require.Len(t, f.Summary, 1)
			assert.Equal(t, 2, f.Summary[0].Images)
			assert.Equal(t, "56x56", f.Summary[0].ImageSize)
			assert.Equal(t, "2@56x56:jpeg", f.Arguments.Images)
			txt, err := os.ReadFile(d.files.txt)
			require.NoError(t, err)
			assert.Contains(t, string(txt), "\nimages: 2@56x56:jpeg\n")
		})
	}
}

func recordErr(r records.Record) error {
	if r.Error != nil {
		return fmt.Errorf("%s (%s)", *r.Error, *r.ErrorClass)
	}
	return nil
}

// An in<N> prompt is N tokens of text whatever the images: sized by
// requests (Ollama has no tokenize endpoint), its calibration requests
// send none, so its timed prompts are the images' tokens longer than
// the same run's without images.
func TestImagesOnTopOfSizedPrompts(t *testing.T) {
	t.Parallel()
	prompt := func(images string) int {
		d, _ := startSim(t, map[string]string{
			"SIM_KIND": "ollama", "SIM_MODEL_VISION": "on", "BENCH_IMAGES": images, "BENCH_INPUT_TOKENS": "300",
			"BENCH_CACHE": "warm", "BENCH_WARMUPS": "0", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "4000", "BENCH_CANARY": "off",
		})
		k := slices.Collect(d.Leaves())[0]
		require.Equal(t, "in300", k.Prompt)
		out := runLeaf(t, d, k, 1)
		require.NoError(t, out.SaveErr)
		recs, err := records.Read(d.files.records)
		require.NoError(t, err)
		n := 0
		for _, r := range recs {
			if r.Timed() {
				require.NotNil(t, r.PromptTokens)
				n = *r.PromptTokens
			}
		}
		require.Positive(t, n)
		return n
	}
	text := prompt("")
	assert.InDelta(t, 300, text, 2, "the in300 prompt")
	assert.Equal(t, text+sim.ImageTokens(56, 56), prompt("1@56x56"))
}
