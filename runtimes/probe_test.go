package runtimes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The known servers are told apart by their answers: no two share a
// name or an endpoint, and of those that share a port at most one lacks
// an endpoint of its own (the probe names it by elimination: mlx_lm.server
// is what answers on 8080 without llama-server's GET /props).
func TestKnownServersToldApart(t *testing.T) {
	names := map[string]bool{}
	endpoints := map[string]string{}
	withoutEndpoint := map[int][]string{}
	for _, s := range KnownServers {
		assert.False(t, names[s.Name], "%s is listed twice", s.Name)
		names[s.Name] = true
		assert.NotEmpty(t, s.Product, s.Name)
		assert.Contains(t, []Kind{KindOllama, KindOpenAI}, s.Kind, s.Name)
		assert.True(t, s.Port > 0 && s.Port < 1<<16, "%s's port %d", s.Name, s.Port)
		if s.Endpoint == "" {
			withoutEndpoint[s.Port] = append(withoutEndpoint[s.Port], s.Name)
			assert.Empty(t, s.Proof(), s.Name)
			continue
		}
		assert.NotNil(t, s.is, "%s has an endpoint but no test of its shape", s.Name)
		assert.Empty(t, endpoints[s.Endpoint], "%s's endpoint %s is also %s's", s.Name, s.Endpoint, endpoints[s.Endpoint])
		endpoints[s.Endpoint] = s.Name
		assert.Contains(t, IdentifiedServers, s.Name)
	}
	for port, list := range withoutEndpoint {
		assert.Len(t, list, 1, "port %d: servers no answer tells apart: %v", port, list)
	}
	assert.Len(t, IdentifiedServers, len(endpoints))
}

// A server's default URL is the loopback address at its port, and its
// proof the endpoint a message names.
func TestKnownServer(t *testing.T) {
	s, ok := KnownServer(ServerOllama)
	assert.True(t, ok)
	assert.Equal(t, "http://127.0.0.1:11434", s.URL())
	assert.Equal(t, "Ollama's GET /api/version", s.Proof())
	s, ok = KnownServer(ServerMLX)
	assert.True(t, ok)
	assert.Equal(t, "http://127.0.0.1:8080", s.URL(), "llama-server's port")
	_, ok = KnownServer("vllm-metal")
	assert.False(t, ok, "a name of the user's own is no known server")
}
