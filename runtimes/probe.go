package runtimes

import (
	"context"
	"encoding/json"
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
	// Unread are the endpoints that could not be read ("GET /props:
	// why") from a server that answered others: what they would have
	// said is unknown.
	Unread []string
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

// Probe asks the server, a few at a time (metaParallel: a server of few
// HTTP threads answers them all) and within ctx's deadline, the
// endpoints that tell servers apart, and says which answered how. A
// server that does not answer in time is not Answered; an endpoint that
// could not be read while others were is in Unread.
func (rt *Runtime) Probe(ctx context.Context) Probe {
	paths := make([]string, len(probeEndpoints))
	for i, e := range probeEndpoints {
		paths[i] = e.path
	}
	got := rt.getEach(ctx, paths, 0)
	said := make([]bool, len(probeEndpoints))
	var p Probe
	for i, e := range probeEndpoints {
		var m map[string]json.RawMessage
		if got[i].err != nil || json.Unmarshal(got[i].body, &m) != nil {
			continue
		}
		p.Answered = p.Answered || !has(m, "error")
		said[i] = e.is(m)
	}
	for _, server := range IdentifiedServers {
		for i, e := range probeEndpoints {
			if e.server == server && said[i] {
				p.Says = append(p.Says, server)
			}
		}
	}
	if p.Answered {
		p.Unread = unread(paths, got, 0)
	}
	return p
}
