package driver

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// The simulator serves from this process: its leaf runs' memory is this
// process's, said as such in the leaf runs and the row.
func TestServerMemoryOfTheSimulator(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0", "BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 2})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := slices.Collect(d.Leaves())[0]
	runLeaf(t, d, k, 1)
	runLeaf(t, d, k, 1)
	require.NoError(t, d.Finish())
	row := readWritten(t, d).Summary[0]
	require.Len(t, row.LeafRuns, 2)
	var sum uint64
	for _, lr := range row.LeafRuns {
		assert.Equal(t, summary.MemorySelf, lr.ServerMemory)
		require.NotNil(t, lr.ServerRSSBytes)
		require.NotNil(t, lr.ServerRSSPeakBytes)
		require.NotNil(t, lr.ServerRSSHWMBytes)
		assert.Greater(t, *lr.ServerRSSBytes, uint64(1<<20), "a Go test binary holds megabytes")
		assert.GreaterOrEqual(t, *lr.ServerRSSPeakBytes, *lr.ServerRSSBytes)
		assert.GreaterOrEqual(t, *lr.ServerRSSHWMBytes, *lr.ServerRSSBytes)
		sum += *lr.ServerRSSBytes
	}
	require.NotNil(t, row.ServerRSSBytes)
	assert.Equal(t, sum/2, *row.ServerRSSBytes, "the row's is the leaf runs' mean")
	assert.Equal(t, max(*row.LeafRuns[0].ServerRSSPeakBytes, *row.LeafRuns[1].ServerRSSPeakBytes), *row.ServerRSSPeakBytes)
	assert.Equal(t, summary.MemorySelf, row.ServerMemory)
	assert.NotContains(t, log.String(), "memory is not measured")
}

// During the timed part the server's processes found at its start are
// read again; the most any reading saw is the peak, beside the end's.
func TestServerMemorySampled(t *testing.T) {
	read := make(chan struct{})
	var once bool
	d := &Driver{}
	d.rss = func(procs []machine.Proc) (machine.Memory, error) {
		if len(procs) != 2 || procs[0].PID != 100 || procs[1].PID != 101 {
			return machine.Memory{}, errors.New("not the server's processes")
		}
		if !once {
			once = true
			close(read)
		}
		return machine.Memory{RSS: 900 << 20}, nil
	}
	start := &machine.Snapshot{Servers: []machine.Proc{{PID: 100, RSS: 100 << 20}, {PID: 101, RSS: 400 << 20, HWM: 700 << 20}}}
	l := &Leaf{d: d, ctx: context.Background(), machineFrom: start}
	l.key.Runtime = "ollama"
	l.startMemory()
	require.NotNil(t, l.mem)
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's memory was not read during the timed part")
	}
	peak := l.stopMemory()
	assert.Nil(t, d.memRun, "stopped")
	assert.Equal(t, uint64(900<<20), peak)

	end := &machine.Snapshot{Servers: []machine.Proc{{PID: 100, RSS: 100 << 20, HWM: 120 << 20}, {PID: 101, RSS: 500 << 20, HWM: 950 << 20}}}
	var lr summary.LeafRun
	l.memoryRun(&lr, end, peak)
	assert.Equal(t, summary.MemoryServer, lr.ServerMemory)
	assert.Equal(t, uint64(600<<20), *lr.ServerRSSBytes, "both processes at the end")
	assert.Equal(t, uint64(900<<20), *lr.ServerRSSPeakBytes, "the reading between the edges")
	assert.Equal(t, uint64(1070<<20), *lr.ServerRSSHWMBytes)
}

// A server on another machine has no memory here: said, not 0; a server
// whose processes cannot be read has none either, said once.
func TestServerMemoryUnknown(t *testing.T) {
	var log bytes.Buffer
	d := &Driver{log: &log}
	l := &Leaf{d: d, ctx: context.Background(), remote: true, machineFrom: &machine.Snapshot{Self: &machine.Proc{PID: os.Getpid(), RSS: 1 << 30}}}
	l.key.Runtime = "far"
	l.startMemory()
	assert.Nil(t, l.mem, "nothing to read here")
	var lr summary.LeafRun
	l.memoryRun(&lr, l.machineFrom, l.stopMemory())
	assert.Equal(t, summary.MemoryRemote, lr.ServerMemory)
	assert.Nil(t, lr.ServerRSSBytes, "not this process's, though it is what a snapshot holds")
	assert.Nil(t, lr.ServerRSSPeakBytes)

	gone := &machine.Snapshot{Servers: []machine.Proc{{PID: 100}}, MemErr: errors.New("the memory of process 100: no such file")}
	l = &Leaf{d: d, ctx: context.Background(), machineFrom: gone}
	l.key.Runtime = "near"
	for range 2 {
		l.startMemory()
		lr = summary.LeafRun{}
		l.memoryRun(&lr, gone, l.stopMemory())
		assert.Nil(t, lr.ServerRSSBytes)
		assert.Empty(t, lr.ServerMemory)
	}
	assert.Equal(t, 1, strings.Count(log.String(), "near: its server's memory is not measured (server_rss_bytes absent): the memory of process 100: no such file"), log.String())
}
