package driver

// cpuid executes the CPUID instruction (cpuid_amd64.s).
func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func cpuBrand() string { return brandString(cpuid) }
