package runtimes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Runtimes on one URL share a port, in the order given; a URL that does
// not parse has none.
func TestPortsOf(t *testing.T) {
	ports := portsOf([]Candidate{
		{Name: "ollama", URL: "http://127.0.0.1:11434"},
		{Name: "llamacpp", URL: "http://127.0.0.1:8080"},
		{Name: "broken", URL: "ftp://127.0.0.1:21"},
		{Name: "mlx", URL: "http://127.0.0.1:8080/"},
	})
	var got [][]string
	for _, p := range ports {
		var names []string
		for _, s := range p.cands {
			names = append(names, s.Name)
		}
		got = append(got, names)
	}
	assert.Equal(t, [][]string{{"ollama"}, {"llamacpp", "mlx"}}, got)
	assert.Equal(t, "http://127.0.0.1:8080", ports[1].url, "the first spec's URL")
}

// The naming rules of Discover, one row each.
func TestNamePorts(t *testing.T) {
	spec := func(names ...string) []Candidate {
		var specs []Candidate
		for _, n := range names {
			specs = append(specs, Candidate{Name: n})
		}
		return specs
	}
	silent := Probe{}
	says := func(servers ...string) Probe { return Probe{Answered: true, Says: servers} }
	for _, tc := range []struct {
		about       string
		ports       []*port
		names, whys []string
	}{
		{"llama-server on the shared port: its endpoint names it",
			[]*port{{cands: spec("llamacpp", "mlx"), p: says(ServerLlamaCpp)}},
			[]string{"llamacpp"}, []string{" (it answers llama-server's GET /props)"}},
		{"no endpoint answered on the shared port: the name without one",
			[]*port{{cands: spec("llamacpp", "mlx"), p: says()}},
			[]string{"mlx"}, []string{" (it does not answer llama-server's GET /props)"}},
		{"a server on another's silent port takes its own name",
			[]*port{{cands: spec("vllm"), p: says(ServerLMStudio)}, {cands: spec("lmstudio"), p: silent}},
			[]string{"lmstudio", ""}, []string{" (vllm's port; it answers LM Studio's GET /api/v0/models)", ""}},
		{"not when its own port answered",
			[]*port{{cands: spec("vllm"), p: says(ServerLMStudio)}, {cands: spec("lmstudio"), p: says(ServerLMStudio)}},
			[]string{"vllm", "lmstudio"}, []string{"", ""}},
		{"a name is taken once",
			[]*port{{cands: spec("vllm"), p: says(ServerOllama)}, {cands: spec("sglang"), p: says(ServerOllama)}, {cands: spec("ollama"), p: silent}},
			[]string{"ollama", "sglang", ""}, []string{" (vllm's port; it answers Ollama's GET /api/version)", "", ""}},
		{"a port of names with endpoints, none answered: its first name",
			[]*port{{cands: spec("ollama"), p: says()}},
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
	known := []Candidate{{Name: "ollama", URL: "http://127.0.0.1:11434"}, {Name: "vllm", URL: "http://127.0.0.1:8000"}, {Name: "lmstudio", URL: "http://127.0.0.1:1234"}}
	ports := []*port{{url: "http://127.0.0.1:8000"}, {url: "http://127.0.0.1:11434"}}
	got := foundOf(known, ports, []string{"lmstudio", "ollama"}, []string{" (why)", ""})
	assert.Equal(t, []Found{
		{Candidate: Candidate{Name: "ollama", URL: "http://127.0.0.1:11434"}},
		{Candidate: Candidate{Name: "lmstudio", URL: "http://127.0.0.1:8000"}, Why: " (why)"},
	}, got)
}
