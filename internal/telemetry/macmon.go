package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// What `macmon pipe` prints, as read in github.com/vladkens/macmon:
//
//   - src/main.rs (v0.6–v0.8.x): the pipe loop calls
//     sampler.get_metrics(interval.max(100)), which blocks for the interval
//     and averages it, serializes the Metrics to a serde_json::Value, sets
//     doc["timestamp"] = chrono::Utc::now().to_rfc3339() and prints the value
//     with println!: one compact JSON object per line, keys sorted (serde_json
//     without preserve_order), one line per interval. -i below 100 ms is
//     raised to 100 ms. Errors end the process through `?` (exit status 1,
//     "Error: …" on stderr).
//   - src/metrics.rs (v0.6–v0.7): temp.{cpu_temp_avg,gpu_temp_avg} (°C, 0
//     when no sensor is read), memory.{ram_total,ram_usage,swap_total,
//     swap_usage} (bytes), ecpu_usage/pcpu_usage/gpu_usage as [MHz, ratio
//     0–1], cpu_power, gpu_power, ane_power, ram_power, gpu_ram_power (W),
//     all_power = cpu_power + gpu_power + ane_power (W), sys_power (W, the
//     SMC's PSTR raised to at least all_power; 0 when the Mac does not
//     report it).
//   - v0.8.0 renamed the frequency figures (gpu_freq_mhz, gpu_scaled_ratio,
//     gpu_active_ratio, ecpu_*/pcpu_* likewise, per-core ecpu_cores/pcpu_cores,
//     fans); v0.8.1 put back gpu_usage, ecpu_usage, pcpu_usage and
//     cpu_usage_pct as aliases (JsonMetrics in src/main.rs, "JSON output
//     keeps the v0.7 field names as deprecated aliases"), so the power,
//     memory and temperature names above hold from v0.6 to v0.8.2.
//   - timestamp appeared in v0.6.0 (changelog.md); earlier lines lack it.
//   - crates/macmon/src/ffi.rs (a later development layout, in no release up
//     to v0.8.2) prints another shape: power.{cpu,gpu,ane,board,…},
//     temp.{cpu_avg,gpu_avg}, usage.gpu.{NAME: [units, MHz, ratio]}.
//     ParseLine reads it too, mapping it onto the same fields.
//   - `macmon --version` is clap's `#[command(version)]`: "macmon 0.8.2".

// Sample is one line of `macmon pipe`, stamped when it was read.
//
// A line describes the interval that ended when macmon printed it: the power
// figures are that interval's averages, memory and temperatures are readings
// taken at its end.
type Sample struct {
	// At is when the line was read, from time.Now (it carries the monotonic
	// clock reading that Sampler's windows are measured with). ParseLine
	// leaves it zero.
	At time.Time
	// Timestamp is macmon's own "timestamp" (wall clock, UTC); zero for
	// lines from macmon before 0.6.0.
	Timestamp time.Time

	AllPowerW float64 // all_power: CPU + GPU + ANE, W
	CPUPowerW float64 // cpu_power, W
	GPUPowerW float64 // gpu_power, W
	ANEPowerW float64 // ane_power, W
	SysPowerW float64 // sys_power (whole system), W; 0 = not reported

	RAMUsedBytes   uint64 // memory.ram_usage
	RAMTotalBytes  uint64 // memory.ram_total
	SwapUsedBytes  uint64 // memory.swap_usage
	SwapTotalBytes uint64 // memory.swap_total

	GPUMHz   float64 // gpu_usage[0] (gpu_freq_mhz in macmon ≥ 0.8)
	GPURatio float64 // gpu_usage[1]: frequency-scaled GPU use, 0–1
	// GPUActive is gpu_active_ratio (macmon ≥ 0.8): the share of the
	// interval the GPU was active (its residency in any active state),
	// 0–1; GPUMHz is its mean frequency while active. HasGPUActive says
	// the line had it (older macmon prints only the scaled ratio).
	GPUActive    float64
	HasGPUActive bool

	CPUTempC float64 // temp.cpu_temp_avg, °C; 0 = no sensor read
	GPUTempC float64 // temp.gpu_temp_avg, °C; 0 = no sensor read
}

// macmonLine is the union of the shapes ParseLine accepts. Pointers tell a
// missing field from a zero one.
type macmonLine struct {
	Timestamp *string `json:"timestamp"`

	AllPower *float64 `json:"all_power"`
	CPUPower *float64 `json:"cpu_power"`
	GPUPower *float64 `json:"gpu_power"`
	ANEPower *float64 `json:"ane_power"`
	SysPower *float64 `json:"sys_power"`

	GPUUsage       []float64 `json:"gpu_usage"`
	GPUFreqMHz     *float64  `json:"gpu_freq_mhz"`
	GPUScaledRatio *float64  `json:"gpu_scaled_ratio"`
	GPUActiveRatio *float64  `json:"gpu_active_ratio"`

	Memory *struct {
		RAMTotal  uint64 `json:"ram_total"`
		RAMUsage  uint64 `json:"ram_usage"`
		SwapTotal uint64 `json:"swap_total"`
		SwapUsage uint64 `json:"swap_usage"`
	} `json:"memory"`

	Temp struct {
		CPUTempAvg float64 `json:"cpu_temp_avg"`
		GPUTempAvg float64 `json:"gpu_temp_avg"`
		CPUAvg     float64 `json:"cpu_avg"` // development layout
		GPUAvg     float64 `json:"gpu_avg"` // development layout
	} `json:"temp"`

	// Development layout (crates/macmon/src/ffi.rs).
	Power *struct {
		CPU   float64 `json:"cpu"`
		GPU   float64 `json:"gpu"`
		ANE   float64 `json:"ane"`
		Board float64 `json:"board"`
	} `json:"power"`
	Usage *struct {
		GPU map[string][]float64 `json:"gpu"` // name → [units, MHz, ratio]
	} `json:"usage"`
}

// ParseLine parses one line of `macmon pipe` output. It accepts the shapes of
// macmon 0.4 to 0.8.x and the later development layout (see the comment at
// the top of macmon.go). A line that is not a JSON object, or lacks the power
// or memory figures, is an error. Fields that a version does not print stay
// zero. The returned Sample's At is zero: the caller stamps it.
func ParseLine(line []byte) (Sample, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Sample{}, fmt.Errorf("not a macmon JSON line: %q", abbreviate(line))
	}
	var raw macmonLine
	if err := json.Unmarshal(line, &raw); err != nil {
		return Sample{}, fmt.Errorf("not a macmon JSON line: %v: %q", err, abbreviate(line))
	}
	var s Sample
	switch {
	case raw.AllPower != nil:
		s.AllPowerW = *raw.AllPower
		s.CPUPowerW = deref(raw.CPUPower)
		s.GPUPowerW = deref(raw.GPUPower)
		s.ANEPowerW = deref(raw.ANEPower)
		s.SysPowerW = deref(raw.SysPower)
	case raw.Power != nil:
		s.CPUPowerW, s.GPUPowerW, s.ANEPowerW = raw.Power.CPU, raw.Power.GPU, raw.Power.ANE
		s.AllPowerW = s.CPUPowerW + s.GPUPowerW + s.ANEPowerW
		s.SysPowerW = raw.Power.Board
	default:
		return Sample{}, fmt.Errorf("macmon line without all_power: %q", abbreviate(line))
	}
	if raw.Memory == nil {
		return Sample{}, fmt.Errorf("macmon line without memory: %q", abbreviate(line))
	}
	s.RAMUsedBytes, s.RAMTotalBytes = raw.Memory.RAMUsage, raw.Memory.RAMTotal
	s.SwapUsedBytes, s.SwapTotalBytes = raw.Memory.SwapUsage, raw.Memory.SwapTotal

	switch {
	case len(raw.GPUUsage) == 2:
		s.GPUMHz, s.GPURatio = raw.GPUUsage[0], raw.GPUUsage[1]
	case raw.GPUFreqMHz != nil:
		s.GPUMHz, s.GPURatio = *raw.GPUFreqMHz, deref(raw.GPUScaledRatio)
	case raw.Usage != nil:
		s.GPUMHz, s.GPURatio = gpuFromUsage(raw.Usage.GPU)
	}

	if raw.GPUActiveRatio != nil {
		s.GPUActive, s.HasGPUActive = *raw.GPUActiveRatio, true
	}

	s.CPUTempC, s.GPUTempC = raw.Temp.CPUTempAvg, raw.Temp.GPUTempAvg
	if s.CPUTempC == 0 && s.GPUTempC == 0 {
		s.CPUTempC, s.GPUTempC = raw.Temp.CPUAvg, raw.Temp.GPUAvg
	}

	if raw.Timestamp != nil {
		ts, err := time.Parse(time.RFC3339Nano, *raw.Timestamp)
		if err != nil {
			return Sample{}, fmt.Errorf("macmon line with a bad timestamp: %v", err)
		}
		s.Timestamp = ts
	}
	return s, nil
}

// gpuFromUsage averages the development layout's GPU clusters
// (name → [units, MHz, ratio]) weighted by their units.
func gpuFromUsage(gpu map[string][]float64) (mhz, ratio float64) {
	var units float64
	for _, v := range gpu {
		if len(v) != 3 {
			continue
		}
		w := max(v[0], 1)
		units += w
		mhz += w * v[1]
		ratio += w * v[2]
	}
	if units == 0 {
		return 0, 0
	}
	return mhz / units, ratio / units
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func abbreviate(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// Version runs `<bin> --version` and returns its answer, e.g. "macmon 0.8.2".
// It fails if bin cannot be run, does not answer within 10 s, exits with an
// error, or prints something that does not start with "macmon ".
func Version(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, abbreviate([]byte(msg)))
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within 10s: %w", err)
		}
		return "", fmt.Errorf("telemetry: %s --version: %w", bin, err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	first = strings.TrimSpace(first)
	if !strings.HasPrefix(first, "macmon ") {
		return "", fmt.Errorf("telemetry: %s --version printed %q, not \"macmon <version>\"", bin, abbreviate([]byte(first)))
	}
	return first, nil
}
