package machine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// VM is the kernel's memory state at one moment (Linux /proc): what a
// leaf run needs to tell that the machine swapped during it. On macOS
// macmon says it instead (telemetry.Sample).
type VM struct {
	// SwapUsed and SwapTotal are /proc/meminfo's SwapTotal − SwapFree and
	// SwapTotal, bytes.
	SwapUsed, SwapTotal uint64
	// SwapOut is /proc/vmstat's pswpout, the pages written to swap since
	// boot, in bytes (pages × the page size); HasSwapOut says it was read.
	SwapOut    uint64
	HasSwapOut bool
	// MemStall is /proc/pressure/memory's "some" total: the time during
	// which some task waited on memory (reclaim, swap-in) since boot;
	// HasStall says it was read (a kernel without PSI has no such file).
	MemStall time.Duration
	HasStall bool
}

// vm reads fs's /proc/meminfo (required), /proc/vmstat and
// /proc/pressure/memory (where present).
func (fs procFS) vm() (*VM, error) {
	data, err := os.ReadFile(fs.path("meminfo"))
	if err != nil {
		return nil, err
	}
	v := &VM{}
	if v.SwapUsed, v.SwapTotal, err = parseMeminfoSwap(data); err != nil {
		return nil, fmt.Errorf("%s: %w", fs.path("meminfo"), err)
	}
	if data, err := os.ReadFile(fs.path("vmstat")); err == nil {
		if pages, ok := fieldOf(data, "pswpout"); ok {
			v.SwapOut, v.HasSwapOut = pages*uint64(os.Getpagesize()), true
		}
	}
	if data, err := os.ReadFile(fs.path("pressure", "memory")); err == nil {
		if us, ok := parsePressureSome(data); ok {
			v.MemStall, v.HasStall = time.Duration(us)*time.Microsecond, true
		}
	}
	return v, nil
}

// parseMeminfoSwap reads SwapTotal and SwapFree (kB) from /proc/meminfo.
func parseMeminfoSwap(data []byte) (used, total uint64, err error) {
	t, okT := fieldOf(data, "SwapTotal:")
	f, okF := fieldOf(data, "SwapFree:")
	if !okT || !okF {
		return 0, 0, errors.New("no SwapTotal or SwapFree line")
	}
	if f > t {
		return 0, 0, fmt.Errorf("SwapFree %d kB above SwapTotal %d kB", f, t)
	}
	return (t - f) * 1024, t * 1024, nil
}

// fieldOf is the number after name at the start of a line of data
// ("pswpout 12", "SwapTotal:   8 kB").
func fieldOf(data []byte, name string) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == name {
			n, err := strconv.ParseUint(f[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// parsePressureSome reads the total (µs) of the "some" line of a
// /proc/pressure file ("some avg10=0.00 avg60=0.00 avg300=0.00 total=42").
func parsePressureSome(data []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "some" {
			continue
		}
		for _, kv := range f[1:] {
			if v, ok := strings.CutPrefix(kv, "total="); ok {
				n, err := strconv.ParseUint(v, 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// VMUse is what the kernel's memory did between two snapshots.
type VMUse struct {
	// SwapStart and SwapEnd are the swap in use at each, bytes; Growth is
	// end − start (negative where it shrank).
	SwapStart, SwapEnd uint64
	Growth             int64
	// SwapOut is the bytes written to swap between them; nil where
	// /proc/vmstat could not be read.
	SwapOut *uint64
	// StallShare is the share of the wall time during which some task
	// waited on memory (PSI "some"), 0–1; nil without /proc/pressure.
	StallShare *float64
}

// VMBetween is what the kernel's memory did from a to b; ok is false
// where either snapshot has no VM (not Linux, or /proc/meminfo unread).
func VMBetween(a, b Snapshot) (u VMUse, ok bool) {
	if a.VM == nil || b.VM == nil {
		return VMUse{}, false
	}
	u.SwapStart, u.SwapEnd = a.VM.SwapUsed, b.VM.SwapUsed
	u.Growth = int64(b.VM.SwapUsed) - int64(a.VM.SwapUsed)
	if a.VM.HasSwapOut && b.VM.HasSwapOut && b.VM.SwapOut >= a.VM.SwapOut {
		out := b.VM.SwapOut - a.VM.SwapOut
		u.SwapOut = &out
	}
	if wall := b.At.Sub(a.At); a.VM.HasStall && b.VM.HasStall && wall > 0 && b.VM.MemStall >= a.VM.MemStall {
		share := min(1, (b.VM.MemStall-a.VM.MemStall).Seconds()/wall.Seconds())
		u.StallShare = &share
	}
	return u, true
}
