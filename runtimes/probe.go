package runtimes

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
)

// Probe is what a server's answers to Runtime.Probe say of it.
type Probe struct {
	// Answered: one of the endpoints asked answered with a success.
	Answered bool
	// Says are the servers (IdentifiedServers, in their order) whose own
	// endpoint answered in its shape; none for a server that answers only
	// the OpenAI endpoints (vLLM, SGLang, mlx_lm.server). The simulator,
	// which serves Ollama's endpoints whatever its flavor, says two.
	Says []string
}

// Is reports whether the answers name server.
func (p Probe) Is(server string) bool {
	for _, s := range p.Says {
		if s == server {
			return true
		}
	}
	return false
}

// probeEndpoints are the GETs of a probe, each with the test its reply
// must pass to name its server ("": it only shows that a server answers):
// /v1/models, then each identified server's own endpoint.
var probeEndpoints = probes()

type probeEndpoint struct {
	path, server string
	is           func(map[string]json.RawMessage) bool
}

func probes() []probeEndpoint {
	list := []probeEndpoint{{"/v1/models", "", func(m map[string]json.RawMessage) bool { return true }}}
	for _, name := range IdentifiedServers {
		s, _ := KnownServer(name)
		list = append(list, probeEndpoint{s.Endpoint, s.Name, s.is})
	}
	return list
}

func has(m map[string]json.RawMessage, key string) bool {
	v, ok := m[key]
	return ok && string(v) != "null"
}

// Probe asks the server, all at once and within ctx's deadline, the
// endpoints that tell servers apart, and says which answered how. A
// server that does not answer in time is not Answered.
func (rt *Runtime) Probe(ctx context.Context) Probe {
	said := make([]bool, len(probeEndpoints))
	answered := make([]bool, len(probeEndpoints))
	var wg sync.WaitGroup
	for i, e := range probeEndpoints {
		wg.Go(func() {
			body, err := rt.get(ctx, http.MethodGet, e.path, nil)
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) != nil {
				return
			}
			answered[i] = !has(m, "error")
			said[i] = e.is(m)
		})
	}
	wg.Wait()
	var p Probe
	for _, server := range IdentifiedServers {
		for i, e := range probeEndpoints {
			if e.server == server && said[i] {
				p.Says = append(p.Says, server)
			}
		}
	}
	for i := range probeEndpoints {
		p.Answered = p.Answered || answered[i]
	}
	return p
}
