package summary

import (
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// Telemetry is what was measured of a leaf run beside its requests, over
// its timed rounds: the machine's power and memory (macmon) and the
// server's own counters (Prometheus /metrics).
type Telemetry struct {
	// Power is nil where there was no macmon, or too few samples. With
	// an idle baseline its net figures are set (Figures.SetIdle).
	Power *telemetry.Figures
	// Energy is Power's net energy shared among the requests
	// (ShareEnergy), nil without an idle baseline or when the samples
	// cover too little of the timed part.
	Energy *stats.Energy
	// Server is nil where the server has no /metrics.
	Server *telemetry.ServerDelta
	// WarmupLoads counts the warm-up requests during which the server
	// loaded the model (see Loaded): after a fresh start (BENCH_FRESH=leaf
	// on Ollama) the requests of the first warm-up round.
	WarmupLoads int
	// LoadS is the model's load time in the leaf run's warm-ups, in
	// seconds, and LoadFrom whose figure it is: the mean load_duration of
	// the warm-up requests that waited for a load (LoadFromServer), or,
	// where the server states none and the model was unloaded before the
	// warm-ups (BENCH_FRESH=leaf through Ollama's /v1), the first warm-up
	// round's mean TTFT above the timed requests' (LoadFromClient). Nil
	// where no load was seen.
	LoadS    *float64
	LoadFrom string
	// Canary is the reply to the leaf run's canary request (nil: none
	// sent, or it failed); the row keeps the first leaf run's.
	Canary *canary.Reply
	// Machine is what else loaded the machine during the timed part;
	// nil where the driver did not measure it.
	Machine *LeafRun
}

// The LoadFrom words: whose figure a load time is.
const (
	// LoadFromServer: the server's own (Ollama's load_duration).
	LoadFromServer = "server"
	// LoadFromClient: the client's, the first warm-up's TTFT above the
	// timed requests' (an estimate, with their noise).
	LoadFromClient = "client ttft"
	// LoadFromMixed: a row's leaf runs had both.
	LoadFromMixed = "server and client ttft"
)

// pooledTelemetry is the telemetry of a row's leaf runs together.
type pooledTelemetry struct {
	warmupLoads    int
	loadS          float64 // the leaf runs' load times, summed
	loads          int
	loadFrom       string
	power          *telemetry.Figures // sums and maxima; means weighted by covered time
	sysCovered     float64            // covered time of the samples that had sys_power
	server         *telemetry.ServerDelta
	serverRequests int // requests sent while the server's counters were read

	// Energy, from the leaf runs whose samples covered enough of their
	// timed part (telemetry.MinCoverage): their energy per output token,
	// gross and net; with an idle baseline, the power above idle
	// weighted by covered time; their requests' shares.
	energy          stats.TokenEnergy
	netW, netCover  float64
	shared          *stats.Energy
	tempCPU0, tempG *float64 // at the start of the first leaf run with power
}

func (p *pooledTelemetry) add(t Telemetry, m stats.Metrics) {
	requests := m.Requests
	p.warmupLoads += t.WarmupLoads
	if t.LoadS != nil {
		p.loadS += *t.LoadS
		p.loads++
		if p.loadFrom == "" || p.loadFrom == t.LoadFrom {
			p.loadFrom = t.LoadFrom
		} else {
			p.loadFrom = LoadFromMixed
		}
	}
	if f := t.Power; f != nil {
		if p.power == nil {
			p.power = &telemetry.Figures{}
			p.tempCPU0, p.tempG = f.CPUTempCStart, f.GPUTempCStart
		}
		p.energy.Add(f, m.OutputTokens)
		if f.Covered() && f.IdlePowerW != nil {
			p.netW += f.NetPowerWMean * f.CoveredS
			p.netCover += f.CoveredS
		}
		if t.Energy != nil {
			if p.shared == nil {
				p.shared = &stats.Energy{}
			}
			p.shared.Add(t.Energy)
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

// addEnergy sets the row's energy figures from the pooled leaf runs:
// gross and net energy of those whose samples covered enough of their
// timed part, the coverage of all, the requests' shares, and the
// temperatures at the start.
func (row *Row) addEnergy(p *pooledTelemetry, f *telemetry.Figures) {
	row.PowerCoverage = num(f.Coverage())
	row.CPUTempCStart, row.GPUTempCStart = p.tempCPU0, p.tempG
	row.EnergyJ, row.EnergyJPerOutputToken = nil, nil
	if e := p.energy; e.Leaves > 0 {
		row.EnergyJ = num(e.J)
		if j, ok := e.PerToken(); ok {
			row.EnergyJPerOutputToken = num(j)
		}
	}
	if e := p.energy; e.NetLeaves > 0 {
		row.NetEnergyJ = num(e.NetJ)
		if p.netCover > 0 {
			row.NetPowerWMean = num(p.netW / p.netCover)
		}
		if j, ok := e.NetPerToken(); ok {
			row.NetEnergyJPerOutputToken = num(j)
		}
	}
	if e := p.shared; e != nil {
		if e.Requests > 0 {
			n := float64(e.Requests)
			row.EnergyJPerRequestMean = num(e.RequestsJ / n)
			row.PrefillEnergyJPerRequestMean = num(e.RequestsPrefillJ / n)
			row.DecodeEnergyJPerRequestMean = num((e.RequestsJ - e.RequestsPrefillJ) / n)
		}
		if e.PromptTokens > 0 {
			row.PrefillEnergyJPerPromptToken = num(e.PrefillJ / float64(e.PromptTokens))
		}
		if e.OutputTokens > 0 {
			row.DecodeEnergyJPerOutputToken = num(e.DecodeJ / float64(e.OutputTokens))
		}
	}
}
