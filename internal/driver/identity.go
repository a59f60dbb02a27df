package driver

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
)

// identityTimeout bounds the probe of a named runtime's server: longer
// than discovery's (runtimes.ProbeTimeout), as a server named in
// BENCH_RUNTIMES is expected to answer, and a slow answer of its own
// endpoint must not read as none.
const identityTimeout = 5 * time.Second

// checkIdentity asks, before any request, whether the server at the URL
// of a runtime of BENCH_RUNTIMES named after a known server with an
// endpoint of its own (Ollama's GET /api/version, llama-server's /props,
// LM Studio's /api/v0/models, TGI's /info; a name PRODUCT@TAG is
// PRODUCT's) is that server (runtimes.Probe). Where that endpoint does
// not answer but another server does, it says what answers there, and
// refuses the run unless that is harmless: a runtime of the OpenAI kind
// on a server that answers the OpenAI endpoints gets its requests
// answered (what it lacks is said), one of Ollama's kind none (HTTP 404
// for each request). A server that does not answer at all is left to
// Describe's messages.
func (d *Driver) checkIdentity(ctx context.Context, rt *runtimes.Runtime, spec config.Runtime) error {
	named, ok := runtimes.KnownServer(config.Product(spec.Name))
	if !ok || named.Endpoint == "" || spec.URL == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, identityTimeout)
	defer cancel()
	p := rt.Probe(ctx)
	if !p.Answered || p.Is(named.Name) {
		return nil
	}
	env := config.EnvPrefix(spec.Name) + "URL"
	what := fmt.Sprintf("%s %s answers as %s, not %s (%s does not answer there)",
		env, runtimes.RedactURL(spec.URL), answeringServer(p, spec.URL), named.Product, named.Proof())
	if spec.Kind != runtimes.KindOllama {
		d.logf("%s: its requests go to the OpenAI endpoints, which answer, but what %s offers beyond them (its state reset, its model facts) is not there", what, named.Product)
		return nil
	}
	return fmt.Errorf("%s: every request of %s's protocol would fail (HTTP 404); point %s at %s, or name the runtime after the server that answers (%s and its NAME_URL)",
		what, named.Product, env, named.Product, envRuntimes)
}

// answeringServer says which server answered probe p at rawURL: the known
// server whose own endpoint answered; else, where only the OpenAI
// endpoints did, the one of the servers without an endpoint of their own
// (mlx_lm.server, vLLM, SGLang) whose default port the URL has, or all of
// them.
func answeringServer(p runtimes.Probe, rawURL string) string {
	if len(p.Says) > 0 {
		s, _ := runtimes.KnownServer(p.Says[0])
		return fmt.Sprintf("%s (%s answers)", s.Product, s.Proof())
	}
	port := 0
	if u, err := url.Parse(rawURL); err == nil {
		port, _ = strconv.Atoi(u.Port())
	}
	var plain []string
	for _, s := range runtimes.KnownServers {
		if s.Endpoint != "" {
			continue
		}
		if s.Port == port {
			return fmt.Sprintf("%s (only the OpenAI endpoints answer, GET /v1/models, on its default port %d)", s.Product, port)
		}
		plain = append(plain, s.Product)
	}
	return fmt.Sprintf("an OpenAI server (only the OpenAI endpoints answer, GET /v1/models: %s)", strings.Join(plain, ", "))
}
