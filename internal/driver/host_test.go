package driver

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

func TestDetectHostFromSources(t *testing.T) {
	t.Parallel()
	linuxFiles := map[string]string{
		"/proc/sys/kernel/osrelease": "6.1.0\n",
		"/proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\n" +
			"processor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n",
		"/proc/meminfo": "MemTotal:       16318536 kB\nMemFree:         1234 kB\n",
	}
	darwinSysctl := map[string]string{
		"kern.osrelease":           "24.6.0",
		"machdep.cpu.brand_string": "Apple M4 Max",
		"hw.memsize":               "68719476736",
	}
	tests := []struct {
		name          string
		goos, goarch  string
		files, sysctl map[string]string
		want          summary.Host
	}{{
		name: "linux", goos: "linux", goarch: "amd64", files: linuxFiles,
		want: summary.Host{Platform: "linux-6.1.0-amd64", Machine: "amd64", OS: "linux", Arch: "amd64",
			CPU: "Intel(R) Xeon(R) CPU @ 2.20GHz", MemoryBytes: 16318536 * 1024},
	}, {
		name: "darwin", goos: "darwin", goarch: "arm64", sysctl: darwinSysctl,
		want: summary.Host{Platform: "darwin-24.6.0-arm64", Machine: "arm64", OS: "darwin", Arch: "arm64",
			CPU: "Apple M4 Max", MemoryBytes: 64 << 30},
	}, {
		name: "linux without /proc", goos: "linux", goarch: "arm64",
		want: summary.Host{Platform: "linux-arm64", Machine: "arm64", OS: "linux", Arch: "arm64"},
	}, {
		name: "darwin without sysctl", goos: "darwin", goarch: "arm64",
		want: summary.Host{Platform: "darwin-arm64", Machine: "arm64", OS: "darwin", Arch: "arm64"},
	}, {
		name: "linux with an odd meminfo", goos: "linux", goarch: "amd64",
		files: map[string]string{"/proc/meminfo": "MemTotal: lots\n", "/proc/cpuinfo": "Hardware\t: BCM2835\n"},
		want:  summary.Host{Platform: "linux-amd64", Machine: "amd64", OS: "linux", Arch: "amd64"},
	}, {
		name: "another system", goos: "plan9", goarch: "386", files: linuxFiles, sysctl: darwinSysctl,
		want: summary.Host{Platform: "plan9-386", Machine: "386", OS: "plan9", Arch: "386"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			readFile := func(name string) ([]byte, error) {
				if s, ok := tt.files[name]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			}
			sysctl := func(name string) (string, error) {
				if s, ok := tt.sysctl[name]; ok {
					return s, nil
				}
				return "", errors.New("sysctl: unknown oid")
			}
			got := detectHost(tt.goos, tt.goarch, sources{readFile: readFile, sysctl: sysctl, brand: func() string { return "" }})
			assert.Equal(t, runtime.Version(), got.Go)
			assert.Equal(t, runtime.NumCPU(), got.CPUs)
			assert.Nil(t, got.Python)
			got.Go, got.CPUs = "", 0
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetectHostHere(t *testing.T) {
	t.Parallel()
	h := DetectHost()
	assert.Equal(t, runtime.GOOS, h.OS)
	assert.Equal(t, runtime.GOARCH, h.Arch)
	assert.Equal(t, runtime.GOARCH, h.Machine)
	assert.True(t, strings.HasPrefix(h.Platform, runtime.GOOS+"-"), h.Platform)
	assert.True(t, strings.HasSuffix(h.Platform, "-"+runtime.GOARCH), h.Platform)
	assert.Positive(t, h.CPUs)
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		assert.Positive(t, h.MemoryBytes)
	}
}

// The .txt's cpu line is go test's own, byte for byte, or benchstat would
// put a saved go test output and the suite's .txt in separate tables. Go
// takes the x86 brand string first; /proc/cpuinfo's model name (with its
// clock, as Go adds it) only where there is none.
func TestCPUNameAsGoTestPrintsIt(t *testing.T) {
	t.Parallel()
	files := map[string]string{"/proc/cpuinfo": "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2450.000\n"}
	readFile := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	brand := "Oxide Virtual Turin-like Processor             "
	assert.Equal(t, brand, cpuName("linux", sources{readFile: readFile, brand: func() string { return brand }}))
	assert.Equal(t, "AMD EPYC @ 2450.000MHz", cpuName("linux", sources{readFile: readFile, brand: func() string { return "" }}))

	// Against go test itself: this test binary prints its cpu line when
	// it runs a benchmark.
	out, err := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkNothing$", "-test.benchtime=1x").Output()
	require.NoError(t, err, "%s", out)
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "cpu: ") {
			line = l
		}
	}
	if line == "" {
		assert.Empty(t, DetectHost().CPU, "go test printed no cpu line:\n%s", out)
		return
	}
	assert.Equal(t, line, "cpu: "+DetectHost().CPU)
}

// BenchmarkNothing is run by TestCPUNameAsGoTestPrintsIt for go test's
// header.
func BenchmarkNothing(b *testing.B) {
	for b.Loop() {
	}
}

func TestHostLabel(t *testing.T) {
	t.Parallel()
	named := func() (string, error) { return "studio.local", nil }
	unknown := func() (string, error) { return "", errors.New("no name") }
	assert.Equal(t, "mac-m4", hostLabel("mac-m4", named), "BENCH_HOST_LABEL wins")
	assert.Equal(t, "mac-m4", hostLabel("  mac-m4 ", named))
	assert.Equal(t, "studio.local", hostLabel("", named), "else the host name")
	assert.Equal(t, "", hostLabel("", unknown))
}
