package driver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
)

// What a run holds per request, measured over a long leaf run against the
// in-process simulator at full speed (no pacing: its first token and
// every next one are due at once), through the whole path a benchmark's
// request takes: the client, the request records written to disk, the
// leaf's rounds and the run's figures.
//
//	go test -run '^$' -bench MillionRequests -benchtime 1000000x ./internal/driver/
//
// (-benchtime 20000x for a quick look.) b.N is the number of timed
// requests of one leaf run; bytes/request is the heap still in use once
// the leaf has ended and been added to the run (after a GC), less the
// heap in use before it began, over those requests: what a run keeps of
// each request until it ends. peak-rss-MiB is the process's peak resident
// memory (VmHWM), on Linux only.

const (
	// memConcurrency is the closed loop's requests a round and the open
	// loop's cap on those in flight.
	memConcurrency = 64
	// memRate is the open loop's arrival rate: faster than the client can
	// send, so that the cap decides.
	memRate = 1e6
)

// memEnv are the settings of a run against the simulator at full speed.
func memEnv(dir string) map[string]string {
	env := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_CANARY": "off", "BENCH_RUNTIMES": "sim", "BENCH_WARMUPS": "1",
		"BENCH_MAX_INFLIGHT": strconv.Itoa(memConcurrency),
		// The simulator is in the process: its prompt cache, two fixed
		// 2 MiB tables made at the first prompt, would be counted as the
		// client's.
		"SIM_TTFT": "1ns", "SIM_TOKENS_PER_SEC": "1e12", "SIM_PREFIX_CACHE": "off",
	}
	for _, name := range config.ProbeOrder {
		env[config.EnvPrefix(name)+"URL"] = "http://127.0.0.1:1" // nothing listens
	}
	return env
}

// heapInUse is the heap in use after a GC (two: what a pool holds goes
// with the second).
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// peakRSS is the process's peak resident memory in bytes (VmHWM), false
// where /proc/self/status has none.
func peakRSS() (uint64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// runRequests runs one leaf run of at least n timed requests of k on d and
// returns how many it sent.
func runRequests(tb testing.TB, d *Driver, k bench.Key, n int) int {
	tb.Helper()
	l, _, err := d.Begin(context.Background(), k)
	if err != nil {
		tb.Fatal(err)
	}
	l.WarmUp()
	sent := 0
	for sent < n {
		l.Next()
		if k.Rate > 0 {
			sent++
		} else {
			sent += k.Concurrency
		}
	}
	o := l.End()
	if o.Failed != nil || o.SaveErr != nil {
		tb.Fatal(o.Failed, o.SaveErr)
	}
	if o.Metrics.Successes != sent {
		tb.Fatalf("%d of %d requests succeeded", o.Metrics.Successes, sent)
	}
	return sent
}

// retained runs a leaf run of n requests of k on a new run and returns the
// heap it left in use per request.
func retained(tb testing.TB, k bench.Key, n int) (perRequest float64, sent int) {
	tb.Helper()
	// As go test -benchtime=<n>x tells a run how many to plan for.
	d, err := setup(context.Background(), memEnv(tb.TempDir()), io.Discard, Options{Benchtime: strconv.Itoa(n) + "x"})
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Close()
	before := heapInUse()
	sent = runRequests(tb, d, k, n)
	after := heapInUse()
	runtime.KeepAlive(d)
	return (float64(after) - float64(before)) / float64(sent), sent
}

// BenchmarkMillionRequests runs a leaf run of b.N requests, closed-loop
// (rounds of 64) and open-loop (at most 64 in flight); see the top of the
// file.
func BenchmarkMillionRequests(b *testing.B) {
	for _, k := range []bench.Key{
		{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: memConcurrency},
		{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1, Rate: memRate},
	} {
		name := "loop=closed"
		if k.Rate > 0 {
			name = "loop=open"
		}
		b.Run(name, func(b *testing.B) {
			per, _ := retained(b, k, b.N)
			b.ReportMetric(per, "bytes/request")
			if rss, ok := peakRSS(); ok {
				b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
			}
		})
	}
}
