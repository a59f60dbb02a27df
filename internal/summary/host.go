package summary

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
)

// DetectHost describes this machine. What it cannot find out stays empty
// or zero; it never fails.
func DetectHost() Host {
	return detectHost(runtime.GOOS, runtime.GOARCH, os.ReadFile, sysctl)
}

// detectHost is DetectHost with the system's sources passed in, so tests
// can fake them.
func detectHost(goos, goarch string, readFile func(string) ([]byte, error), sysctl func(string) (string, error)) Host {
	h := Host{
		Platform: goos + "-" + goarch,
		Machine:  goarch,
		Go:       runtime.Version(),
		OS:       goos,
		Arch:     goarch,
		CPUs:     runtime.NumCPU(),
	}
	var release string
	switch goos {
	case "linux":
		if b, err := readFile("/proc/sys/kernel/osrelease"); err == nil {
			release = strings.TrimSpace(string(b))
		}
		if b, err := readFile("/proc/cpuinfo"); err == nil {
			h.CPU = procField(b, "model name")
		}
		if b, err := readFile("/proc/meminfo"); err == nil {
			h.MemoryBytes = memTotal(procField(b, "MemTotal"))
		}
	case "darwin":
		if s, err := sysctl("kern.osrelease"); err == nil {
			release = s
		}
		if s, err := sysctl("machdep.cpu.brand_string"); err == nil {
			h.CPU = s
		}
		if s, err := sysctl("hw.memsize"); err == nil {
			h.MemoryBytes, _ = strconv.ParseUint(s, 10, 64)
		}
	}
	if release != "" {
		h.Platform = goos + "-" + release + "-" + goarch
	}
	return h
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
