package driver

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With BENCH_TOOLS, a runtime whose server says its model takes no tools
// (Ollama's /api/show capabilities) is refused before any request, naming
// the runtime, the model, where that was read and what to do; Ollama's
// kind and its /v1 alike. Without BENCH_TOOLS, or where the model takes
// tools, the run goes on.
func TestModelWithoutToolsRefused(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"ollama", "openai"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				env     map[string]string
				refused bool
			}{
				{map[string]string{"BENCH_TOOLS": sampleTools, "SIM_MODEL_TOOLS": "off"}, true},
				{map[string]string{"BENCH_TOOLS": sampleTools}, false},
				{map[string]string{"SIM_MODEL_TOOLS": "off"}, false},
			} {
				env := merge(isolated(t), map[string]string{
					"BENCH_RUNTIMES": "sim", "SIM_KIND": kind, "BENCH_PROMPTS": "short", "SIM_MODEL": "e2e",
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
				msg := err.Error()
				for _, want := range []string{`BENCH_TOOLS="` + sampleTools + `"`, "sim (http://", "serves e2e, which takes no tools",
					"/api/show capabilities", "does not support tools", "template uses .Tools", "ollama show --template MODEL"} {
					assert.Contains(t, msg, want)
				}
			}
		})
	}
}
