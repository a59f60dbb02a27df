package driver

import (
	"encoding/json"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The models side by side: what each runtime serves, said at the start and
// kept in the summary (model_metadata.<runtime>.served), and a warning
// for every pair of runtimes whose servers state different weights.

// describeServed records and says what rt's server says of its model,
// and warns of each runtime added before it that serves other weights. A
// runtime that could not be described says nothing: its error was said.
func (d *Driver) describeServed(rt *runtimes.Runtime, info runtimes.Info) {
	if d.unavailable[rt.Name] != nil {
		return
	}
	raw, err := json.Marshal(info.Served)
	if err != nil {
		return
	}
	d.Run.SetMetadata(rt.Name, summary.ServedKey, raw)
	d.logf("%s serves %s: %s", rt.Name, rt.Model, summary.ServedFacts(info.Served))
	for _, other := range d.Runtimes {
		if other == rt || d.unavailable[other.Name] != nil {
			continue
		}
		theirs, ok := summary.ServedIn(d.Run.ModelMetadata[other.Name])
		if !ok {
			continue
		}
		if w := summary.NotSameWeights(other.Name, theirs, rt.Name, info.Served); w != "" {
			d.logf("warning: %s", w)
		}
	}
}

// version is the version to record for rt: NAME_VERSION where it is set
// (said when it replaces another the server states), else the server's.
func (d *Driver) version(rt *runtimes.Runtime, server *string) *string {
	var set string
	for _, spec := range d.Settings.Specs {
		if spec.Name == rt.Name {
			set = spec.Version
		}
	}
	if set == "" {
		return server
	}
	if server != nil && *server != set {
		d.logf("%s: %sVERSION=%q is recorded as its version, instead of the %q its server states", rt.Name, config.EnvPrefix(rt.Name), set, *server)
	}
	return &set
}
