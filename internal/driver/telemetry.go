package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// startPower starts macmon for the whole run, as BENCH_POWER says: auto
// where it is found (a note where it is not, on a Mac), on (it must work,
// or the run stops here, before any request), off. It returns the sampler
// and what to write as the host's power source, or nil for both.
func (d *Driver) startPower() (*telemetry.Sampler, *string, error) {
	st := d.Settings
	if st.Power == config.PowerOff {
		return nil, nil, nil
	}
	bin, err := exec.LookPath(st.Macmon)
	if err != nil {
		if st.Power == config.PowerOn {
			return nil, nil, fmt.Errorf("BENCH_POWER=on, BENCH_MACMON=%q: %v (brew install macmon, or set BENCH_MACMON to its path)", st.Macmon, err)
		}
		if runtime.GOOS == "darwin" && runtime.GOARCH == "arm64" {
			d.logf("no macmon on PATH: no power figures (brew install macmon; BENCH_POWER=off to say nothing)")
		}
		return nil, nil, nil
	}
	version, err := telemetry.Version(bin)
	if err == nil {
		var s *telemetry.Sampler
		if s, err = telemetry.Start(bin, telemetry.Options{Interval: time.Duration(st.PowerInterval)}); err == nil {
			d.logf("measuring power with %s (%s) every %v", version, bin, s.Interval())
			return s, &version, nil
		}
	}
	if st.Power == config.PowerOn {
		return nil, nil, fmt.Errorf("BENCH_POWER=on, BENCH_MACMON=%q: %w", st.Macmon, err)
	}
	d.logf("no power figures: %v (BENCH_POWER=off to say nothing)", err)
	return nil, nil, nil
}

// scrape reads rt's Prometheus counters, or returns nil where it has none
// (remembered, so that a runtime without /metrics is asked once). A
// failure other than "no /metrics" is logged once and also gives nil.
func (d *Driver) scrape(ctx context.Context, rt *runtimes.Runtime) *telemetry.Snapshot {
	if d.noMetrics[rt.Name] {
		return nil
	}
	body, err := rt.Metrics(ctx)
	if err == nil {
		var snap telemetry.Snapshot
		if snap, err = telemetry.Parse(bytes.NewReader(body)); err == nil {
			return &snap
		}
	}
	if d.noMetrics == nil {
		d.noMetrics = map[string]bool{}
	}
	d.noMetrics[rt.Name] = true
	if !errors.Is(err, runtimes.ErrNoMetrics) {
		d.logf("%s: not reading the server's counters: %v", rt.Name, err)
	}
	return nil
}
