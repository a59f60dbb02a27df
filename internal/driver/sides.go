package driver

import (
	"context"
	"strings"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Sides: two runtimes of one product (ollama@0.6.5 and ollama@0.17.4,
// config.Product) are two versions of one server served at once, on two
// ports. Their leaf runs alternate (BENCH_ORDER=alternate, LeafRuns), so
// that whatever disturbs the machine disturbs both, and before a leaf run
// of one the others unload their model where their server can (Ollama:
// keep_alive 0), so that two versions on one Mac do not hold two copies of
// it while one is measured.

// sidesOf are the other runtimes of rt's product that can be benchmarked.
func (d *Driver) sidesOf(rt *runtimes.Runtime) []*runtimes.Runtime {
	var out []*runtimes.Runtime
	for _, o := range d.Runtimes {
		if o != rt && config.Product(o.Name) == config.Product(rt.Name) && d.unavailable[o.Name] == nil {
			out = append(out, o)
		}
	}
	return out
}

// saySides says, at the start, each product with two sides or more: how
// their leaf runs go, and whether each unloads its model before the
// others' leaf runs.
func (d *Driver) saySides(ctx context.Context) {
	said := map[string]bool{}
	for _, rt := range d.Runtimes {
		product := config.Product(rt.Name)
		sides := d.sidesOf(rt)
		if said[product] || len(sides) == 0 || d.unavailable[rt.Name] != nil {
			continue
		}
		said[product] = true
		names := []string{rt.Name}
		var unload, keep []string
		for _, s := range append([]*runtimes.Runtime{rt}, sides...) {
			if s != rt {
				names = append(names, s.Name)
			}
			if s.FreshWay(ctx) == runtimes.FreshUnload {
				unload = append(unload, s.Name)
			} else {
				keep = append(keep, s.Name)
			}
		}
		order := "their leaf runs alternate, one run each in turn (" + envOrder + "=" + config.OrderAlternate + ")"
		if !d.Alternates() {
			order = "their leaf runs do not alternate (" + envOrder + "=" + d.Settings.Order + "; " + config.OrderAlternate + " would)"
		}
		d.logf("%s are sides of %s: %s", strings.Join(names, ", "), product, order)
		if len(unload) > 0 {
			d.logf("%s: before each leaf run of another side of %s, its model is unloaded (keep_alive 0), so that one copy is in memory", strings.Join(unload, ", "), product)
		}
		switch len(keep) {
		case 0:
		case 1:
			d.logf("%s: no way to unload a model is known for its server (Ollama's keep_alive 0 is the one): its model stays in memory during the other sides' leaf runs", keep[0])
		default:
			d.logf("%s: no way to unload a model is known for their servers (Ollama's keep_alive 0 is the one): their models stay in memory during the other sides' leaf runs", strings.Join(keep, ", "))
		}
	}
}

// unloadSides asks the other sides of rt's product to unload their model
// before a leaf run of rt, where their server can (runtimes.Runtime.
// Unload). A refusal is said once per side, and the leaf goes on.
func (d *Driver) unloadSides(ctx context.Context, rt *runtimes.Runtime) {
	for _, s := range d.sidesOf(rt) {
		if _, err := s.Unload(ctx); err != nil {
			d.sayOnce("unload "+s.Name, "%v; it may hold its model in memory during %s's leaf runs", err, rt.Name)
		}
	}
}
