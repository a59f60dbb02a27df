package runtimes

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// ProbeTimeout bounds the check of each known local port when
// BENCH_RUNTIMES is unset.
const ProbeTimeout = 300 * time.Millisecond

// Candidate is a runtime discovery may find: its name, its protocol, the
// URL of its server's default port and the bearer token to send.
type Candidate struct {
	Name, URL, APIKey string
	Kind              Kind
}

// Found is a candidate that answered, at the URL where it did, with why
// it has that name when its answers chose it ("" when it answered on its
// own port as itself).
type Found struct {
	Candidate
	Why string
}

// Discover asks each port of known once, all at once, each within
// timeout, and names what answers by its answers, as two names may share
// a port (llama-server's and mlx_lm.server's: see KnownServers) and a
// server may run on another's: a port is named after
//
//  1. the runtime whose port it is, if the server answers that runtime's
//     own endpoint (Server.Endpoint, asked by Probe);
//  2. else another known runtime whose own endpoint it answers, if that
//     runtime's port did not answer (nor another port take the name);
//  3. else the first runtime whose port it is that has no such endpoint
//     (mlx_lm.server, vLLM, SGLang answer the OpenAI endpoints only), or
//     failing that the first whose port it is.
//
// The result is in the order of known. client sends the probes (nil: a
// client of its own).
func Discover(ctx context.Context, client *http.Client, known []Candidate, timeout time.Duration) []Found {
	ports := portsOf(known)
	probePorts(ctx, client, ports, timeout)
	names, whys := namePorts(ports)
	return foundOf(known, ports, names, whys)
}

// port is one URL of the known runtimes, and what its probe found.
type port struct {
	url   string      // as the first candidate on it gives it
	cands []Candidate // the known runtimes whose port it is
	p     Probe
}

// portsOf groups known by port (the server its URL reaches, ServerKey:
// localhost and 127.0.0.1 alike), in the order of known; a URL that does
// not parse has none.
func portsOf(known []Candidate) []*port {
	var ports []*port
	byURL := map[string]*port{}
	for _, c := range known {
		key := ServerKey(c.URL)
		if key == "" {
			continue
		}
		if p := byURL[key]; p != nil {
			p.cands = append(p.cands, c)
			continue
		}
		p := &port{url: c.URL, cands: []Candidate{c}}
		byURL[key] = p
		ports = append(ports, p)
	}
	return ports
}

// probePorts probes every port at once, each within timeout, as its
// first runtime.
func probePorts(ctx context.Context, client *http.Client, ports []*port, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, p := range ports {
		wg.Go(func() {
			c := p.cands[0]
			rt, err := New(Config{Name: c.Name, Kind: c.Kind, URL: c.URL, APIKey: c.APIKey, Client: client})
			if err != nil {
				return
			}
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			p.p = rt.Probe(pctx)
		})
	}
	wg.Wait()
}

// namePorts names each port that answered by its probe's answers, by the
// rules of Discover, and says why where the answers chose among names
// ("": a silent port, or one with a single name that answered as itself).
func namePorts(ports []*port) (names, whys []string) {
	// answeredOn: the names whose own port answered; only a name whose
	// port is silent may go to a server on another port.
	answeredOn := map[string]bool{}
	for _, p := range ports {
		for _, c := range p.cands {
			answeredOn[c.Name] = p.p.Answered
		}
	}
	identifiable := func(name string) bool { return slices.Contains(IdentifiedServers, name) }
	names = make([]string, len(ports))
	whys = make([]string, len(ports))
	taken := map[string]bool{}
	for i, p := range ports {
		if !p.p.Answered {
			continue
		}
		for _, c := range p.cands { // 1. its own, by its endpoint
			if names[i] == "" && p.p.Is(c.Name) {
				names[i] = c.Name
				if len(p.cands) > 1 {
					whys[i] = fmt.Sprintf(" (it answers %s)", serverDesc(c.Name))
				}
			}
		}
		for _, s := range p.p.Says { // 2. another's
			if _, known := answeredOn[s]; names[i] == "" && known && !answeredOn[s] && !taken[s] {
				names[i] = s
				whys[i] = fmt.Sprintf(" (%s's port; it answers %s)", p.cands[0].Name, serverDesc(s))
			}
		}
		for _, c := range p.cands { // 3. its own without an endpoint of its own
			if names[i] == "" && !identifiable(c.Name) {
				names[i] = c.Name
				if len(p.cands) > 1 {
					whys[i] = fmt.Sprintf(" (it does not answer %s)", ownEndpoints(p.cands))
				}
			}
		}
		if names[i] == "" {
			names[i] = p.cands[0].Name
		}
		taken[names[i]] = true
	}
	return names, whys
}

// foundOf is what probing found: the runtime of each name given to a
// port, at that port's URL, in the order of known.
func foundOf(known []Candidate, ports []*port, names, whys []string) []Found {
	var out []Found
	for _, c := range known {
		for i, p := range ports {
			if names[i] != c.Name {
				continue
			}
			c.URL = p.url
			why := whys[i]
			if len(p.p.Unread) > 0 {
				why += " (unread, so its name may be wrong: " + strings.Join(p.p.Unread, "; ") + ")"
			}
			out = append(out, Found{Candidate: c, Why: why})
		}
	}
	return out
}

// serverDesc is the endpoint that names a known runtime's server, for a
// message: "llama-server's GET /props" (Server.Proof).
func serverDesc(name string) string {
	if s, ok := KnownServer(name); ok && s.Endpoint != "" {
		return s.Proof()
	}
	return name
}

// ownEndpoints lists the endpoints that would have named the runtimes of
// cands, or of none: "llama-server's GET /props".
func ownEndpoints(cands []Candidate) string {
	var list []string
	for _, c := range cands {
		if slices.Contains(IdentifiedServers, c.Name) {
			list = append(list, serverDesc(c.Name))
		}
	}
	return strings.Join(list, " or ")
}
