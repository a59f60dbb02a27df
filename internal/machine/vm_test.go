package machine

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/proc's meminfo, vmstat and pressure/memory are in the kernel's
// format, with figures of a machine that had swapped: 2 GiB of swap of
// which 512 MiB in use, 131072 pages written to swap, 2.5 s of memory
// stall since boot.
func TestVMFromProc(t *testing.T) {
	v, err := fixture.vm()
	require.NoError(t, err)
	assert.Equal(t, uint64(512<<20), v.SwapUsed, "SwapTotal 2097148 kB − SwapFree 1572860 kB")
	assert.Equal(t, uint64(2097148*1024), v.SwapTotal)
	assert.True(t, v.HasSwapOut)
	assert.Equal(t, uint64(131072*os.Getpagesize()), v.SwapOut)
	assert.True(t, v.HasStall)
	assert.Equal(t, 2500*time.Millisecond, v.MemStall)

	s := fixture.take(Servers{}, time.Now())
	require.NoError(t, s.VMErr)
	require.NotNil(t, s.VM)
	assert.Equal(t, v.SwapUsed, s.VM.SwapUsed)
}

func TestVMWithoutMeminfoOrPressure(t *testing.T) {
	gone := procFS{root: filepath.Join("testdata", "nothing"), self: 200, readlink: readText}
	s := gone.take(Servers{}, time.Now())
	assert.Nil(t, s.VM)
	assert.ErrorIs(t, s.VMErr, os.ErrNotExist)

	// A kernel without PSI or vmstat: swap only.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "meminfo"), []byte("SwapTotal: 100 kB\nSwapFree: 40 kB\n"), 0o644))
	v, err := procFS{root: dir}.vm()
	require.NoError(t, err)
	assert.Equal(t, uint64(60*1024), v.SwapUsed)
	assert.False(t, v.HasSwapOut)
	assert.False(t, v.HasStall)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemTotal: 100 kB\n"), 0o644))
	_, err = procFS{root: dir}.vm()
	assert.ErrorContains(t, err, "no SwapTotal or SwapFree")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "meminfo"), []byte("SwapTotal: 10 kB\nSwapFree: 40 kB\n"), 0o644))
	_, err = procFS{root: dir}.vm()
	assert.ErrorContains(t, err, "SwapFree 40 kB above SwapTotal 10 kB")
}

func TestVMBetween(t *testing.T) {
	at := time.Now()
	a := Snapshot{At: at, VM: &VM{SwapUsed: 100 << 20, SwapOut: 1 << 20, HasSwapOut: true, MemStall: time.Second, HasStall: true}}
	b := Snapshot{At: at.Add(10 * time.Second), VM: &VM{SwapUsed: 164 << 20, SwapOut: 65 << 20, HasSwapOut: true, MemStall: 3 * time.Second, HasStall: true}}
	u, ok := VMBetween(a, b)
	require.True(t, ok)
	assert.Equal(t, uint64(100<<20), u.SwapStart)
	assert.Equal(t, uint64(164<<20), u.SwapEnd)
	assert.Equal(t, int64(64<<20), u.Growth)
	require.NotNil(t, u.SwapOut)
	assert.Equal(t, uint64(64<<20), *u.SwapOut)
	require.NotNil(t, u.StallShare)
	assert.InDelta(t, 0.2, *u.StallShare, 1e-9, "2 s of stall in 10 s")

	// Shrinking swap is a negative growth; no vmstat or PSI on one side
	// leaves those unknown, not 0.
	b.VM = &VM{SwapUsed: 50 << 20}
	u, ok = VMBetween(a, b)
	require.True(t, ok)
	assert.Equal(t, int64(-50<<20), u.Growth)
	assert.Nil(t, u.SwapOut)
	assert.Nil(t, u.StallShare)

	_, ok = VMBetween(a, Snapshot{At: b.At})
	assert.False(t, ok, "a snapshot without VM")
}

func TestVMLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	s := Take(Servers{})
	require.NoError(t, s.VMErr)
	require.NotNil(t, s.VM)
	assert.LessOrEqual(t, s.VM.SwapUsed, s.VM.SwapTotal)
}
