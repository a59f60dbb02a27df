//go:build !amd64

package driver

// cpuBrand is "" where there is no CPUID: go test names the processor from
// the operating system there.
func cpuBrand() string { return "" }
