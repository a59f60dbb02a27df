package telemetry

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestParseLineShapes(t *testing.T) {
	for _, tc := range []struct {
		file  string
		first Sample
	}{
		{
			// The first line carries the values of the README's example.
			file: "macmon-0.7.jsonl",
			first: Sample{
				Timestamp: time.Date(2025, 2, 24, 20, 38, 15, 427569000, time.UTC),
				AllPowerW: 0.22231553, CPUPowerW: 0.20486385, GPUPowerW: 0.017451683, SysPowerW: 5.876533,
				RAMUsedBytes: 20985479168, RAMTotalBytes: 25769803776,
				SwapUsedBytes: 2602434560, SwapTotalBytes: 4294967296,
				GPUMHz: 461, GPURatio: 0.021497859,
				CPUTempC: 43.73614, GPUTempC: 36.95167,
			},
		},
		{
			file: "macmon-0.8.2.jsonl",
			first: Sample{
				Timestamp: time.Date(2026, 8, 18, 20, 38, 15, 427569000, time.UTC),
				AllPowerW: 11.455805, CPUPowerW: 1.6433052, GPUPowerW: 9.8125, SysPowerW: 19.338823,
				RAMUsedBytes: 21873012736, RAMTotalBytes: 25769803776,
				SwapUsedBytes: 2602434560, SwapTotalBytes: 4294967296,
				GPUMHz: 1278, GPURatio: 0.8914731, GPUActive: 0.98, HasGPUActive: true,
				CPUTempC: 51.20871, GPUTempC: 44.10535,
			},
		},
		{
			file: "macmon-dev.jsonl",
			first: Sample{
				Timestamp: time.Date(2026, 10, 17, 20, 38, 15, 427569000, time.UTC),
				AllPowerW: 1.6433052 + 9.8125, CPUPowerW: 1.6433052, GPUPowerW: 9.8125, SysPowerW: 19.338823,
				RAMUsedBytes: 21873012736, RAMTotalBytes: 25769803776,
				SwapUsedBytes: 2602434560, SwapTotalBytes: 4294967296,
				GPUMHz: 1278, GPURatio: 0.8914731,
				CPUTempC: 51.20871, GPUTempC: 44.10535,
			},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lines := readLines(t, tc.file)
			for i, line := range lines {
				s, err := ParseLine(line)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if s.AllPowerW <= 0 || s.RAMUsedBytes == 0 {
					t.Errorf("line %d: %+v", i+1, s)
				}
				if d := s.AllPowerW - (s.CPUPowerW + s.GPUPowerW + s.ANEPowerW); d > 1e-6 || d < -1e-6 {
					t.Errorf("line %d: all_power %v is not cpu+gpu+ane (off by %v)", i+1, s.AllPowerW, d)
				}
				if i > 0 {
					continue
				}
				if !s.Timestamp.Equal(tc.first.Timestamp) {
					t.Errorf("first line: timestamp %v, want %v", s.Timestamp, tc.first.Timestamp)
				}
				s.Timestamp, tc.first.Timestamp = time.Time{}, time.Time{}
				if s != tc.first {
					t.Errorf("first line:\n got %+v\nwant %+v", s, tc.first)
				}
			}
		})
	}
}

func TestParseLineStandIn(t *testing.T) {
	// What testdata/macmon prints must parse like the real thing.
	line := `{"all_power":12.5,"ane_power":0.500000,"cpu_power":2.000000,"gpu_power":10.000000,"gpu_usage":[1380,0.9738293],"memory":{"ram_total":25769803776,"ram_usage":21873012736,"swap_total":4294967296,"swap_usage":1073741824},"sys_power":0,"temp":{"cpu_temp_avg":55.47723,"gpu_temp_avg":49.3385},"timestamp":"2026-12-02T14:10:20+00:00"}`
	s, err := ParseLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if s.AllPowerW != 12.5 || s.GPUMHz != 1380 || s.SysPowerW != 0 || s.Timestamp.IsZero() {
		t.Errorf("%+v", s)
	}
}

func TestParseLineWithoutTimestamp(t *testing.T) {
	// macmon before 0.6.0 printed no timestamp.
	s, err := ParseLine([]byte(`{"all_power":3,"memory":{"ram_usage":1}}`))
	if err != nil || !s.Timestamp.IsZero() || s.AllPowerW != 3 {
		t.Errorf("%+v, %v", s, err)
	}
}

func TestParseLineRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"this is not JSON",
		"Error: failed to initialize sampler",
		`{"all_power":`,
		`[1,2]`,
		`{"memory":{"ram_usage":1}}`, // no power
		`{"all_power":1.5}`,          // no memory
		`{"all_power":"1.5","memory":{}}`,
		`{"all_power":1,"memory":{},"timestamp":"yesterday"}`,
	} {
		if s, err := ParseLine([]byte(line)); err == nil {
			t.Errorf("ParseLine(%q) = %+v, want an error", line, s)
		}
	}
}
