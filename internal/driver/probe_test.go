package driver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Runtimes on one URL share a port, in the order given; a URL that does
// not parse has none.
func TestPortsOf(t *testing.T) {
	ports := portsOf([]config.Runtime{
		{Name: "ollama", URL: "http://127.0.0.1:11434"},
		{Name: "llamacpp", URL: "http://127.0.0.1:8080"},
		{Name: "broken", URL: "ftp://127.0.0.1:21"},
		{Name: "mlx", URL: "http://127.0.0.1:8080/"},
	})
	var got [][]string
	for _, p := range ports {
		var names []string
		for _, s := range p.specs {
			names = append(names, s.Name)
		}
		got = append(got, names)
	}
	assert.Equal(t, [][]string{{"ollama"}, {"llamacpp", "mlx"}}, got)
	assert.Equal(t, "http://127.0.0.1:8080", ports[1].url, "the first spec's URL")
}

// The naming rules of probe, one row each.
func TestNamePorts(t *testing.T) {
	spec := func(names ...string) []config.Runtime {
		var specs []config.Runtime
		for _, n := range names {
			specs = append(specs, config.Runtime{Name: n})
		}
		return specs
	}
	silent := runtimes.Probe{}
	says := func(servers ...string) runtimes.Probe { return runtimes.Probe{Answered: true, Says: servers} }
	for _, tc := range []struct {
		about       string
		ports       []*port
		names, whys []string
	}{
		{"llama-server on the shared port: its endpoint names it",
			[]*port{{specs: spec("llamacpp", "mlx"), p: says(runtimes.ServerLlamaCpp)}},
			[]string{"llamacpp"}, []string{" (it answers llama-server's GET /props)"}},
		{"no endpoint answered on the shared port: the name without one",
			[]*port{{specs: spec("llamacpp", "mlx"), p: says()}},
			[]string{"mlx"}, []string{" (it does not answer llama-server's GET /props)"}},
		{"a server on another's silent port takes its own name",
			[]*port{{specs: spec("vllm"), p: says(runtimes.ServerLMStudio)}, {specs: spec("lmstudio"), p: silent}},
			[]string{"lmstudio", ""}, []string{" (vllm's port; it answers LM Studio's GET /api/v0/models)", ""}},
		{"not when its own port answered",
			[]*port{{specs: spec("vllm"), p: says(runtimes.ServerLMStudio)}, {specs: spec("lmstudio"), p: says(runtimes.ServerLMStudio)}},
			[]string{"vllm", "lmstudio"}, []string{"", ""}},
		{"a name is taken once",
			[]*port{{specs: spec("vllm"), p: says(runtimes.ServerOllama)}, {specs: spec("sglang"), p: says(runtimes.ServerOllama)}, {specs: spec("ollama"), p: silent}},
			[]string{"ollama", "sglang", ""}, []string{" (vllm's port; it answers Ollama's GET /api/version)", "", ""}},
		{"a port of names with endpoints, none answered: its first name",
			[]*port{{specs: spec("ollama"), p: says()}},
			[]string{"ollama"}, []string{""}},
	} {
		names, whys := namePorts(tc.ports)
		assert.Equal(t, tc.names, names, tc.about)
		assert.Equal(t, tc.whys, whys, tc.about)
	}
}

// What probing found is in the order of the known runtimes, each at the
// URL of the port that took its name.
func TestFoundOf(t *testing.T) {
	known := []config.Runtime{{Name: "ollama", URL: "http://127.0.0.1:11434"}, {Name: "vllm", URL: "http://127.0.0.1:8000"}, {Name: "lmstudio", URL: "http://127.0.0.1:1234"}}
	ports := []*port{{url: "http://127.0.0.1:8000"}, {url: "http://127.0.0.1:11434"}}
	got := foundOf(known, ports, []string{"lmstudio", "ollama"}, []string{" (why)", ""})
	assert.Equal(t, []found{
		{spec: config.Runtime{Name: "ollama", URL: "http://127.0.0.1:11434"}},
		{spec: config.Runtime{Name: "lmstudio", URL: "http://127.0.0.1:8000"}, why: " (why)"},
	}, got)
}
