package summary

import (
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// Telemetry is what was measured of a leaf run beside its requests, over
// its timed rounds: the machine's power and memory (macmon) and the
// server's own counters (Prometheus /metrics).
type Telemetry struct {
	// Power is nil where there was no macmon, or too few samples.
	Power *telemetry.Figures
	// Server is nil where the server has no /metrics.
	Server *telemetry.ServerDelta
	// WarmupLoads counts the warm-up requests during which the server
	// loaded the model (see Loaded): after a fresh start (BENCH_FRESH=leaf
	// on Ollama) the requests of the first warm-up round.
	WarmupLoads int
}

// pooledTelemetry is the telemetry of a row's leaf runs together.
type pooledTelemetry struct {
	warmupLoads    int
	power          *telemetry.Figures // sums and maxima; means weighted by covered time
	sysCovered     float64            // covered time of the samples that had sys_power
	tempCPU        bool
	server         *telemetry.ServerDelta
	serverRequests int // requests sent while the server's counters were read
}

func (p *pooledTelemetry) add(t Telemetry, requests int) {
	p.warmupLoads += t.WarmupLoads
	if f := t.Power; f != nil {
		if p.power == nil {
			p.power = &telemetry.Figures{}
		}
		q, w := p.power, f.CoveredS
		q.Samples += f.Samples
		q.WindowS += f.WindowS
		q.AllPowerWMean += f.AllPowerWMean * w // weighted sums until figures()
		q.GPUPowerWMean += f.GPUPowerWMean * w
		q.GPUMHzMean += f.GPUMHzMean * w
		if f.SysPowerWMean != nil {
			if q.SysPowerWMean == nil {
				q.SysPowerWMean = new(float64)
			}
			*q.SysPowerWMean += *f.SysPowerWMean * w
			p.sysCovered += w
		}
		q.CoveredS += w
		q.EnergyJ += f.EnergyJ
		q.RAMUsedBytesMax = max(q.RAMUsedBytesMax, f.RAMUsedBytesMax)
		q.SwapUsedBytesMax = max(q.SwapUsedBytesMax, f.SwapUsedBytesMax)
		q.SwapGrowthBytes += f.SwapGrowthBytes
		q.CPUTempCMax = maxPtr(q.CPUTempCMax, f.CPUTempCMax)
		q.GPUTempCMax = maxPtr(q.GPUTempCMax, f.GPUTempCMax)
	}
	if t.Server != nil {
		if p.server == nil {
			p.server = &telemetry.ServerDelta{}
		}
		*p.server = p.server.Add(*t.Server)
		p.serverRequests += requests
	}
}

// figures are the pooled power figures, means divided out.
func (p *pooledTelemetry) figures() *telemetry.Figures {
	if p.power == nil || p.power.CoveredS <= 0 {
		return nil
	}
	f := *p.power
	f.AllPowerWMean /= f.CoveredS
	f.GPUPowerWMean /= f.CoveredS
	f.GPUMHzMean /= f.CoveredS
	if f.SysPowerWMean != nil {
		v := *f.SysPowerWMean / p.sysCovered
		f.SysPowerWMean = &v
	}
	return &f
}

func maxPtr(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil || *b > *a:
		v := *b
		return &v
	}
	return a
}

// Report reports a leaf run's figures through r (a *testing.B), as its
// result line in the .txt has them: m's (see Metrics.Report) and, where
// there are power figures, energy per output token and mean power.
func Report(r interface{ ReportMetric(float64, string) }, m Metrics, power *telemetry.Figures) {
	m.Report(r)
	if power == nil {
		return
	}
	if m.OutputTokens > 0 {
		r.ReportMetric(power.EnergyJ/float64(m.OutputTokens), UnitEnergy)
	}
	r.ReportMetric(power.AllPowerWMean, UnitPower)
}
