package driver

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// DetectHost describes this machine. What it cannot find out stays empty
// or zero; it never fails.
func DetectHost() summary.Host {
	return detectHost(runtime.GOOS, runtime.GOARCH, sources{readFile: os.ReadFile, sysctl: sysctl, brand: cpuBrand})
}

// hostLabel is the machine's name in host.label: BENCH_HOST_LABEL, else
// the host name, else "" (the host name unknown).
func hostLabel(set string, hostname func() (string, error)) string {
	if set = strings.TrimSpace(set); set != "" {
		return set
	}
	if name, err := hostname(); err == nil {
		return name
	}
	return ""
}

// sources are where detectHost looks, passed in so that tests can fake
// them.
type sources struct {
	readFile func(string) ([]byte, error)
	sysctl   func(string) (string, error)
	brand    func() string // the processor's brand string (x86 CPUID), "" elsewhere
}

func detectHost(goos, goarch string, src sources) summary.Host {
	h := summary.Host{
		Platform: goos + "-" + goarch,
		Machine:  goarch,
		Go:       runtime.Version(),
		OS:       goos,
		Arch:     goarch,
		CPU:      cpuName(goos, src),
		CPUs:     runtime.NumCPU(),
	}
	var release string
	switch goos {
	case "linux":
		if b, err := src.readFile("/proc/sys/kernel/osrelease"); err == nil {
			release = strings.TrimSpace(string(b))
		}
		if b, err := src.readFile("/proc/meminfo"); err == nil {
			h.MemoryBytes = memTotal(procField(b, "MemTotal"))
		}
	case "darwin":
		if s, err := src.sysctl("kern.osrelease"); err == nil {
			release = s
		}
		if s, err := src.sysctl("hw.memsize"); err == nil {
			h.MemoryBytes, _ = strconv.ParseUint(s, 10, 64)
		}
	}
	if release != "" {
		h.Platform = goos + "-" + release + "-" + goarch
	}
	return h
}

// cpuName is the processor's name exactly as go test prints it on its
// "cpu:" line (the testing package's internal/sysinfo.CPUName), so that the
// .txt the suite writes and a saved go test output share that
// configuration line and benchstat compares them: the x86 brand string
// where there is one; else, on Linux, /proc/cpuinfo's model name (with
// " @ <MHz>MHz" when it gives a clock and the name none); on macOS the
// sysctl machdep.cpu.brand_string.
func cpuName(goos string, src sources) string {
	if name := src.brand(); name != "" {
		return name
	}
	switch goos {
	case "linux":
		b, err := src.readFile("/proc/cpuinfo")
		if err != nil {
			return ""
		}
		if len(b) > 512 { // Go reads only the first 512 bytes (CPU 0's lines)
			b = b[:512]
		}
		var model, mhz string
		s := bufio.NewScanner(bytes.NewReader(b))
		for s.Scan() {
			k, v, ok := strings.Cut(s.Text(), ": ")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "Model Name", "model name":
				model = v
			case "CPU MHz", "cpu MHz":
				mhz = v
			}
		}
		if model == "" || mhz == "" || strings.Contains(model, "GHz") || strings.Contains(model, "MHz") {
			return model
		}
		return model + " @ " + mhz + "MHz"
	case "darwin", "freebsd", "netbsd", "openbsd":
		name, _ := src.sysctl("machdep.cpu.brand_string")
		return name
	}
	return ""
}

// brandString is the x86 CPUID brand string as Go's internal/cpu.Name
// reads it: leading spaces trimmed, cut at the first NUL.
func brandString(cpuid func(eax, ecx uint32) (a, b, c, d uint32)) string {
	if max, _, _, _ := cpuid(0x80000000, 0); max < 0x80000004 {
		return ""
	}
	data := make([]byte, 0, 48)
	for op := uint32(0x80000002); op <= 0x80000004; op++ {
		a, b, c, d := cpuid(op, 0)
		for _, r := range [...]uint32{a, b, c, d} {
			data = append(data, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	data = bytes.TrimLeft(data, " ")
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	return string(data)
}

// procField returns the value of the first "key : value" line of a /proc
// file whose key is key.
func procField(b []byte, key string) string {
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// memTotal parses MemTotal's "16318536 kB" into bytes; 0 if it cannot.
func memTotal(v string) uint64 {
	n, unit, _ := strings.Cut(v, " ")
	kb, err := strconv.ParseUint(n, 10, 64)
	if err != nil || strings.TrimSpace(unit) != "kB" {
		return 0
	}
	return kb * 1024
}

func sysctl(name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sysctl", "-n", name).Output()
	return strings.TrimSpace(string(out)), err
}
