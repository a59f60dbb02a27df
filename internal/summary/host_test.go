package summary

import (
	"errors"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDetectHostFromSources(t *testing.T) {
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
		want          Host
	}{{
		name: "linux", goos: "linux", goarch: "amd64", files: linuxFiles,
		want: Host{Platform: "linux-6.1.0-amd64", Machine: "amd64", OS: "linux", Arch: "amd64",
			CPU: "Intel(R) Xeon(R) CPU @ 2.20GHz", MemoryBytes: 16318536 * 1024},
	}, {
		name: "darwin", goos: "darwin", goarch: "arm64", sysctl: darwinSysctl,
		want: Host{Platform: "darwin-24.6.0-arm64", Machine: "arm64", OS: "darwin", Arch: "arm64",
			CPU: "Apple M4 Max", MemoryBytes: 64 << 30},
	}, {
		name: "linux without /proc", goos: "linux", goarch: "arm64",
		want: Host{Platform: "linux-arm64", Machine: "arm64", OS: "linux", Arch: "arm64"},
	}, {
		name: "darwin without sysctl", goos: "darwin", goarch: "arm64",
		want: Host{Platform: "darwin-arm64", Machine: "arm64", OS: "darwin", Arch: "arm64"},
	}, {
		name: "linux with an odd meminfo", goos: "linux", goarch: "amd64",
		files: map[string]string{"/proc/meminfo": "MemTotal: lots\n", "/proc/cpuinfo": "Hardware\t: BCM2835\n"},
		want:  Host{Platform: "linux-amd64", Machine: "amd64", OS: "linux", Arch: "amd64"},
	}, {
		name: "another system", goos: "plan9", goarch: "386", files: linuxFiles, sysctl: darwinSysctl,
		want: Host{Platform: "plan9-386", Machine: "386", OS: "plan9", Arch: "386"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
			got := detectHost(tt.goos, tt.goarch, readFile, sysctl)
			assert.Equal(t, runtime.Version(), got.Go)
			assert.Equal(t, runtime.NumCPU(), got.CPUs)
			assert.Nil(t, got.Python)
			got.Go, got.CPUs = "", 0
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetectHostHere(t *testing.T) {
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
