package driver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The models side by side: what each runtime serves, said at the start and
// kept in the summary (model_metadata.<runtime>.served), and a warning
// for every pair of runtimes whose servers state different weights
// (parameters, quantization, or format: GGUF against MLX even where no
// quantization is stated), after the lines of all of them.

// describeServed records and says what rt's server says of its model. A
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
	if summary.NoneStated(info.Served) {
		d.logf("%s serves %s (%s)", rt.Name, rt.Model, summary.NothingStated)
	} else {
		d.logf("%s serves %s: %s", rt.Name, rt.Model, summary.ServedFacts(info.Served))
	}
}

// warnWeights warns, once every runtime is described, of each pair whose
// servers state different weights (parameters or quantization).
func (d *Driver) warnWeights() {
	for i, a := range d.Runtimes {
		ours, ok := summary.ServedIn(d.Run.ModelMetadata[a.Name])
		if !ok || d.unavailable[a.Name] != nil {
			continue
		}
		for _, b := range d.Runtimes[i+1:] {
			theirs, ok := summary.ServedIn(d.Run.ModelMetadata[b.Name])
			if !ok || d.unavailable[b.Name] != nil {
				continue
			}
			w := summary.NotSameWeights(a.Name, ours, b.Name, theirs)
			if w == "" {
				w = notSameFormat(a.Name, ours, b.Name, theirs)
			}
			if w != "" {
				d.logf("warning: %s", w)
			}
		}
	}
}

// notSameFormat is the warning for two runtimes whose servers state
// different formats of weights (GGUF and MLX) where NotSameWeights has
// none, as a quantization is not stated: a GGUF and an MLX conversion of a
// model are never the same weights. "" where a format is not stated or
// both are one.
func notSameFormat(nameA string, a summary.Served, nameB string, b summary.Served) string {
	if a.Format == nil || b.Format == nil || *a.Format == *b.Format {
		return ""
	}
	var unstated []string
	for _, s := range []struct {
		name   string
		served summary.Served
	}{{nameA, a}, {nameB, b}} {
		if s.served.Quantization == nil {
			unstated = append(unstated, s.name)
		}
	}
	why := ""
	if len(unstated) > 0 {
		why = " (the quantization of " + strings.Join(unstated, " and ") + " is not stated)"
	}
	return fmt.Sprintf("%s serves %s weights, %s serves %s: not the same weights%s", nameA, *a.Format, nameB, *b.Format, why)
}

// versionFromReply records the version a reply's system_fingerprint
// states (any reply's, warm-up or timed: a run with BENCH_WARMUPS=0 has
// only timed ones) (runtimes.FingerprintVersion) for a runtime
// whose server stated none before the run and whose NAME_VERSION is
// unset: mlx_lm.server has no version endpoint but names its version, and
// MLX's, in every chunk.
func (d *Driver) versionFromReply(rt *runtimes.Runtime, res runtimes.Result) {
	if res.Err != nil || d.Run.Versions[rt.Name] != nil {
		return
	}
	v := runtimes.FingerprintVersion(res.Fingerprint)
	if v == "" {
		return
	}
	d.Run.Versions[rt.Name] = &v
	d.logf("%s: version %s, as its replies' system_fingerprint %q states", rt.Name, v, res.Fingerprint)
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
