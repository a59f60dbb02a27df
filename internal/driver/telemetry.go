package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
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
			return nil, nil, fmt.Errorf(envPower+"="+config.PowerOn+", "+envMacmon+"=%q: %v (brew install macmon, or set "+envMacmon+" to its path)", st.Macmon, err)
		}
		if runtime.GOOS == "darwin" && runtime.GOARCH == "arm64" {
			d.logf("no macmon on PATH: no power figures (brew install macmon; %s=%s to say nothing)", envPower, config.PowerOff)
		}
		return nil, nil, nil
	}
	version, err := telemetry.Version(bin)
	if err == nil {
		var s *telemetry.Sampler
		if s, err = telemetry.Start(bin, telemetry.Options{Interval: time.Duration(st.PowerInterval)}); err == nil {
			d.logf("measuring power with %s (%s) every %v", version, bin, s.Interval())
			d.idleBaseline(s)
			return s, &version, nil
		}
	}
	if st.Power == config.PowerOn {
		return nil, nil, fmt.Errorf(envPower+"="+config.PowerOn+", "+envMacmon+"=%q: %w", st.Macmon, err)
	}
	d.logf("no power figures: %v ("+envPower+"="+config.PowerOff+" to say nothing)", err)
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

// noteCached says on the log, once per runtime, why its rows have no
// cached prompt tokens from the replies (cached_prompt_tokens_mean null):
// at the first leaf run whose successful replies all stated none, where
// the server's /metrics counted some (then
// server_cached_prompt_tokens_mean has them) or has no counter of them.
// A leaf run whose server counted none cached says nothing: there was
// nothing to state; so does one without a counter whose prompts could not
// be cached (BENCH_CACHE=cold, one turn, no shared prefix).
func (d *Driver) noteCached(l *Leaf, m stats.Metrics, server *telemetry.ServerDelta) {
	name := l.key.Runtime
	if l.control || m.Successes == 0 || m.CachedTokens.N > 0 || d.cachedSaid[name] {
		return
	}
	var sf telemetry.ServerFigures
	if server != nil {
		if len(server.Reset) > 0 {
			return // its counters measure nothing: End says so
		}
		sf = telemetry.DeriveServerFigures(*server, m.Requests)
	}
	why := cachedWhy(l.rt, server, sf)
	switch counted := sf.CachedPromptTokens; {
	case counted != nil && *counted > 0:
		d.logf("%s: its replies state no cached prompt tokens (%s); its /metrics counted %.0f cached tokens over the leaf (%s; server_cached_prompt_tokens_mean %.4g)",
			name, why, *counted, sf.CachedPromptTokensFrom, *counted/float64(max(m.Requests, 1)))
	case counted != nil || !l.cacheable():
		return // nothing was cached, or nothing could be: a null needs no reason
	case server == nil:
		d.logf("%s: its replies state no cached prompt tokens (%s) and it serves no /metrics that counts them: its rows' cached_prompt_tokens_mean and server_cached_prompt_tokens_mean are null",
			name, why)
	default:
		d.logf("%s: its replies state no cached prompt tokens (%s) and its /metrics has no counter of them (%s): its rows' cached_prompt_tokens_mean and server_cached_prompt_tokens_mean are null",
			name, why, strings.Join(telemetry.CachedCounters(), ", "))
	}
	if d.cachedSaid == nil {
		d.cachedSaid = map[string]bool{}
	}
	d.cachedSaid[name] = true
}

// cacheable reports whether the leaf's prompts could be served from a
// prompt cache: BENCH_CACHE=warm, a shared prefix, or turns after the
// first, which repeat the last.
func (l *Leaf) cacheable() bool {
	st := l.d.Settings
	return !l.cold() || st.SharedPrefix > 0 || st.Turns > 1
}

// cachedWhy is why rt's replies state no cached prompt tokens, as far as
// the server's kind (rt nil: unknown) and counters tell.
func cachedWhy(rt *runtimes.Runtime, server *telemetry.ServerDelta, sf telemetry.ServerFigures) string {
	has := func(prefix string) bool {
		if strings.HasPrefix(sf.CachedPromptTokensFrom, prefix) {
			return true
		}
		if server != nil {
			for k := range server.Values {
				if strings.HasPrefix(k, prefix) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case rt != nil && rt.Protocol().Server == runtimes.ServerOllama:
		return "Ollama counts them within prompt_eval_count and states no cached count"
	case has("vllm:"):
		return "vLLM states them only when started with --enable-prompt-tokens-details"
	case has("sglang:"):
		return "SGLang states them only when started with --enable-cache-report"
	}
	return "the server's usage has no prompt_tokens_details.cached_tokens"
}

// idleBaseline samples BENCH_IDLE_POWER_S seconds of power with nothing
// in flight (before the first leaf) and records it in the host as the
// baseline net figures subtract. A baseline whose samples spread widely
// (the Mac was doing something else) is said and kept; one that could not
// be taken is said, and the run goes on without net figures.
func (d *Driver) idleBaseline(s *telemetry.Sampler) {
	secs := d.Settings.IdlePowerS
	if secs <= 0 {
		return
	}
	from := time.Now()
	time.Sleep(time.Duration(secs * float64(time.Second)))
	f, err := s.Figures(context.Background(), from, time.Now())
	if err != nil {
		d.logf("no idle baseline, so no net energy figures: %v ("+envIdlePowerS+"=%g with samples every %v)", err, secs, s.Interval())
		return
	}
	h := &d.Run.Host
	h.IdlePowerW, h.IdleCPUPowerW, h.IdleGPUPowerW, h.IdleANEPowerW = ptr(f.AllPowerWMean), ptr(f.CPUPowerWMean), ptr(f.GPUPowerWMean), ptr(f.ANEPowerWMean)
	h.IdlePowerWSD = ptr(f.AllPowerWSD)
	d.idleTempC = f.CPUTempCMax
	d.logf("idle power %.2f W (CPU %.2f, GPU %.2f, ANE %.2f; sd %.2f W) over %gs with nothing in flight: net figures subtract it ("+envIdlePowerS+")",
		f.AllPowerWMean, f.CPUPowerWMean, f.GPUPowerWMean, f.ANEPowerWMean, f.AllPowerWSD, secs)
	if f.Coverage() < telemetry.MinCoverage {
		d.logf("the idle baseline's samples cover %.0f%% of its %gs: macmon lagged; the baseline is kept", 100*f.Coverage(), secs)
	}
	if f.IdleSpreadLarge() {
		d.logf("the idle baseline spread widely (sd %.2f W around %.2f W): the Mac was not idle (another program, Spotlight, a download?); it is kept, and net figures are less certain", f.AllPowerWSD, f.AllPowerWMean)
	}
}

func ptr[T any](x T) *T { return &x }

// measurePower returns the power figures of the leaf run's timed part,
// from its start to to, with the idle baseline subtracted where there is
// one, and its net energy shared among its requests; notes gets what the
// log must say (too few samples, too little of the window covered).
func (l *Leaf) measurePower(to time.Time, notes []string) (*telemetry.Figures, *stats.Energy, []string) {
	d := l.d
	f, err := d.power.Figures(l.ctx, l.timedFrom, to)
	switch {
	case errors.Is(err, telemetry.ErrTooFewSamples):
		return nil, nil, append(notes, fmt.Sprintf("no power figures: the timed part took %v, too short for 3 macmon samples %v apart ("+envPowerInterval+")",
			to.Sub(l.timedFrom).Round(time.Millisecond), d.power.Interval()))
	case err != nil:
		return nil, nil, append(notes, "no power figures: "+err.Error())
	}
	if idle := d.Run.Host.IdlePowerW; idle != nil {
		f.SetIdle(*idle)
	}
	if !f.Covered() {
		why := "macmon lagged or stopped"
		if err := d.power.Err(); err != nil {
			why = err.Error()
		}
		notes = append(notes, fmt.Sprintf("no energy figures: macmon's samples cover %.0f%% of the timed part (%.2fs of %.2fs), less than %.0f%% (%s); power_coverage says so in the row",
			100*f.Coverage(), f.CoveredS, f.WindowS, 100*telemetry.MinCoverage, why))
	}
	return &f, stats.ShareEnergy(l.rounds, &f), notes
}

// hold keeps a timed round's records until the leaf run's end, where
// their share of the energy is known, and reports whether it did: with
// an idle baseline (without one there is no energy to share), for a leaf
// run that ends with End (not a control's). An interrupt writes them
// without energy (see files.freeze).
func (l *Leaf) hold(recs []records.Record) bool {
	if !l.holds() {
		return false
	}
	l.d.files.hold(recs)
	return true
}

// holds reports whether the leaf run's timed records are held for their
// share of its energy (see hold).
func (l *Leaf) holds() bool {
	return l.d.power != nil && l.d.Run.Host.IdlePowerW != nil && !l.control
}

// powerAdded writes the held records with their energy, once the leaf run
// is added to the run, and says when runtimes compared at the leaf's
// prompt and load started their timed parts more than
// startTempApart apart.
func (l *Leaf) powerAdded(e *stats.Energy) {
	if err := l.d.files.writeHeld(e); err != nil && l.recordErr == nil {
		l.recordErr = fmt.Errorf("writing request records to "+envOutputDir+"=%q: %w", l.d.Settings.OutputDir, err)
	}
	if l.d.power != nil && !l.control && l.count == 1 {
		l.d.compareStartTemps(l.key)
	}
}

// startTempApart is how far apart, in °C, the CPU or GPU temperatures at
// the start of two runtimes' rows of one prompt and load make the log
// warn: the hotter may have been throttled.
const startTempApart = 10

// compareStartTemps says on the log which runtimes' rows at k's prompt
// and load started more than startTempApart from k's row.
func (d *Driver) compareStartTemps(k bench.Key) {
	rows := d.Run.Rows()
	var mine *summary.Row
	for i := range rows {
		if sameLoad(rows[i], k) && rows[i].Runtime == k.Runtime {
			mine = &rows[i]
		}
	}
	if mine == nil {
		return
	}
	for _, r := range rows {
		if !sameLoad(r, k) || r.Runtime == k.Runtime {
			continue
		}
		for _, t := range []struct {
			what     string
			his, own *float64
		}{{"CPU", r.CPUTempCStart, mine.CPUTempCStart}, {"GPU", r.GPUTempCStart, mine.GPUTempCStart}} {
			if t.his == nil || t.own == nil || math.Abs(*t.his-*t.own) <= startTempApart {
				continue
			}
			d.logf("%s: %s started at %s %.0f °C, %s at %.0f °C, more than %d °C apart: the hotter may have run throttled ("+envOrder+"="+config.OrderInterleaved+" alternates runtimes; a pause or a cooler Mac evens it)",
				k.Workload(), r.Runtime, t.what, *t.his, k.Runtime, *t.own, startTempApart)
		}
	}
}

// sameLoad reports whether row r is of k's prompt and load.
func sameLoad(r summary.Row, k bench.Key) bool {
	if r.Prompt != k.Prompt || r.Concurrency != k.Concurrency {
		return false
	}
	if k.Rate > 0 {
		return r.RateRPS != nil && *r.RateRPS == k.Rate
	}
	return r.RateRPS == nil
}
