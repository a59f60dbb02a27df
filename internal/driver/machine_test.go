package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/runtimes"
)

// fakeMachine stands in for machine.Take: every pair of snapshots (a leaf
// run's start and end) is one second apart, on 2 cores, and other
// processes use 0.1 core more in each leaf run than in the one before
// (0.1, 0.2, … 0.5, which is not over BusyMax, and 0.7 for the sixth,
// which is); it keeps the ports whose servers it was asked to find.
type fakeMachine struct {
	calls int
	ports [][]int
	// serversErr, when set, is why the server's processes were not found.
	serversErr error
}

func (f *fakeMachine) find(ports []int) machine.Servers {
	f.ports = append(f.ports, ports)
	return machine.Servers{}
}

func (f *fakeMachine) take(machine.Servers) machine.Snapshot {
	f.calls++
	run := (f.calls + 1) / 2 // leaf run 1, 2, …
	at := time.Date(2026, 12, 7, 0, 0, run*10, 0, time.UTC)
	busy := time.Duration(run) * time.Minute
	self := machine.Proc{PID: 1, CPU: time.Duration(run) * time.Second}
	if f.calls%2 == 0 { // the end: the leaf's own CPU and the others'
		at = at.Add(time.Second)
		busy += 500*time.Millisecond + time.Duration(run)*100*time.Millisecond
		if run == 6 {
			busy += 100 * time.Millisecond // 0.7: over BusyMax
		}
		self.CPU += 500 * time.Millisecond
	}
	return machine.Snapshot{At: at, Cores: 2, Busy: &busy, Self: &self, ServersErr: f.serversErr}
}

// Each leaf run with a result line gets the machine's state over its
// timed part in its row's leaf_runs, in the order of the .txt's result
// lines; those over BusyMax of the cores are disturbed, with why, and the
// end of the run names them.
func TestLeafRunsInOrder(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0", "BENCH_MAX_TOKENS": "2"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 3})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	fake := &fakeMachine{}
	d.find, d.snapshot = fake.find, fake.take
	keys := slices.Collect(d.Leaves())
	require.Len(t, keys, 2, "conc=1 and conc=4")
	for range 3 { // as go test -count=3 runs them
		for _, k := range keys {
			runLeaf(t, d, k, 1)
		}
	}
	require.NoError(t, d.Finish())
	assert.Equal(t, 12, fake.calls, "a snapshot at each leaf run's timed start and end")
	require.Len(t, fake.ports, 6, "the server's processes found once a leaf run")
	for _, ports := range fake.ports {
		require.Len(t, ports, 1, "the simulator's port: its processes are this one")
	}
	w := readWritten(t, d)
	require.Len(t, w.Summary, 2)
	names := trimProcs(w.results)
	for i, want := range [][]float64{{0.1, 0.3, 0.5}, {0.2, 0.4, 0.7}} {
		row := w.Summary[i]
		lines := 0
		for _, n := range names {
			if strings.HasSuffix(n, fmt.Sprintf("conc=%d", row.Concurrency)) {
				lines++
			}
		}
		require.Len(t, row.LeafRuns, lines, "one leaf run per result line of conc=%d", row.Concurrency)
		for j, lr := range row.LeafRuns {
			require.NotNil(t, lr.OtherCPUCores)
			assert.InDelta(t, want[j], *lr.OtherCPUCores, 1e-9, "conc=%d #%d", row.Concurrency, j+1)
			assert.Equal(t, 2, lr.Cores)
			assert.Nil(t, lr.GPUMHzMean, "no macmon")
			assert.Equal(t, want[j] > BusyMax, lr.Disturbed, "conc=%d #%d", row.Concurrency, j+1)
		}
	}
	last := w.Summary[1].LeafRuns[2]
	assert.Equal(t, "other processes used 0.70 of 2 cores", last.Why)
	assert.Empty(t, w.Summary[0].LeafRuns[0].Why, "no why when not disturbed")
	assert.Contains(t, log.String(), "[inference] 1 of 6 leaf runs ran while other processes used more than 0.5 of the machine's 2 cores (busy_max; other_cpu_cores in leaf_runs of ")
	assert.Contains(t, log.String(), "): runtime=sim/prompt=short/conc=4 #3 (0.70)\n")
	assert.Equal(t, BusyMax, *w.Arguments.BusyMax, "the threshold is in the arguments")
}

// With nothing measured over the threshold, the end of the run says
// nothing of it; a real run on Linux measures other processes' CPU.
func TestLeafRunsMeasured(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0", "BENCH_MAX_TOKENS": "40", "BENCH_CONCURRENCY": "1"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 1})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	runLeaf(t, d, slices.Collect(d.Leaves())[0], 3) // 0.45 s timed: 50 ms + 40 tokens at 400/s a round
	require.NoError(t, d.Finish())
	w := readWritten(t, d)
	require.Len(t, w.Summary, 1)
	require.Len(t, w.Summary[0].LeafRuns, 1)
	lr := w.Summary[0].LeafRuns[0]
	assert.GreaterOrEqual(t, lr.Cores, 1)
	if runtime.GOOS == "linux" {
		require.NotNil(t, lr.OtherCPUCores, "measured from /proc")
		assert.GreaterOrEqual(t, *lr.OtherCPUCores, 0.0)
		// Its counters tick every 10 ms on each core: over 0.45 s a
		// reading can be a few ticks above the machine's cores.
		assert.LessOrEqual(t, *lr.OtherCPUCores, float64(lr.Cores)+0.5)
		assert.Equal(t, *lr.OtherCPUCores > BusyMax, lr.Disturbed)
		assert.Equal(t, lr.Disturbed, strings.Contains(log.String(), "leaf runs ran while other processes used"))
	}
	assert.NotContains(t, log.String(), "not measured")
}

// A server elsewhere is not this machine's: other processes are still
// measured, said once; a local one is found by its port; a URL without
// one cannot be told apart.
func TestMachineServer(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	d := &Driver{log: &log}
	remote := &runtimes.Runtime{Name: "far", BaseURL: "http://192.0.2.7:8000"}
	for range 2 {
		ports, ok := d.machineServer(remote)
		assert.True(t, ok)
		assert.Empty(t, ports)
	}
	assert.Equal(t, 1, strings.Count(log.String(), "far: its server (http://192.0.2.7:8000) is not on this machine"), log.String())

	ports, ok := d.machineServer(&runtimes.Runtime{Name: "near", BaseURL: "http://127.0.0.1:11434"})
	assert.True(t, ok)
	assert.Equal(t, []int{11434}, ports)

	_, ok = d.machineServer(&runtimes.Runtime{Name: "odd", BaseURL: "unix:///tmp/sock"})
	assert.False(t, ok)
	assert.Contains(t, log.String(), "odd: other processes' CPU cannot be told from its server's")
}

// A local server whose processes cannot be found leaves other_cpu_cores
// null (not 0, not undisturbed by measure), said once for the run.
func TestLeafRunsNotMeasured(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0", "BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 2})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	fake := &fakeMachine{serversErr: errors.New("the process listening on TCP port 11434 could not be found")}
	d.find, d.snapshot = fake.find, fake.take
	k := slices.Collect(d.Leaves())[0]
	runLeaf(t, d, k, 1)
	runLeaf(t, d, k, 1)
	require.NoError(t, d.Finish())
	w := readWritten(t, d)
	require.Len(t, w.Summary, 1)
	require.Len(t, w.Summary[0].LeafRuns, 2)
	for _, lr := range w.Summary[0].LeafRuns {
		assert.Nil(t, lr.OtherCPUCores)
		assert.Equal(t, 2, lr.Cores)
		assert.False(t, lr.Disturbed)
	}
	assert.Equal(t, 1, strings.Count(log.String(), "sim: other processes' CPU use is not measured (other_cpu_cores null): the servers' CPU time: the process listening on TCP port 11434 could not be found"), log.String())
	assert.NotContains(t, log.String(), "leaf runs ran while")
}
