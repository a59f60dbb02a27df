//go:build linux || darwin

package runtimes_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The client's memory and CPU at 256 streams, against the least a Go
// client can do: a bare net/http + bufio read loop that stamps each line
// and looks for its end, nothing else. Both run the same streams against
// the simulator, which runs in a process of its own so that neither its
// memory nor its CPU is counted.
//
//	go test -run '^$' -bench StreamMemory -benchtime 3x -count 6 ./runtimes/ | tee new.txt
//	benchstat -col /loop new.txt
//
// KiB/stream is the heap in use and the goroutine stacks (HeapInuse +
// StackInuse, after a GC) that a stream adds: what its idle connection
// holds (measured once the connections are open, against before) and
// what the request adds to that while it streams (sampled half-way
// through the round, against just before it). ns/chunk is the process's
// CPU time, user and system, per text chunk over the rounds, on
// connections already open, less the GC that samples the memory. B/chunk
// is what was allocated per text chunk.
//
// Nearly all of a chunk's CPU time is the network's and the scheduler's:
// two reads, a wake-up. How many chunks one wake-up serves depends on how
// the streams' chunks fall in time, which with streams started together
// changes from round to round with the order the server took them in. So
// the streams of a round start spread evenly over one token period:
// their chunks then arrive evenly spread, one wake-up each, in every
// round, and the figure is steady enough to compare.

const (
	memStreams = 256
	memTokens  = 128 // BENCH_MAX_TOKENS's default
	// A round's streams last TTFT + memTokens/memRate, 2.7 s; the memory
	// is sampled half-way through their decode.
	memTTFT = 100 * time.Millisecond
	memRate = 50.0

	// simProcessEnv makes the test binary a simulator (see init).
	simProcessEnv = "RUNTIMES_TEST_SIM_PROCESS"
)

// init turns the test binary into a simulator, and nothing else, when
// startSimProcess runs it: it prints the server's URL on a line, serves
// until its standard input is closed (or its parent exits), and exits.
func init() {
	if os.Getenv(simProcessEnv) == "" {
		return
	}
	var cfg sim.Config
	if err := json.Unmarshal([]byte(os.Getenv(simProcessEnv)), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	srv.Close()
	os.Exit(0)
}

// startSimProcess starts a simulator playing cfg in a process of its own
// (cfg goes to it as JSON in simProcessEnv: the package reads no SIM_
// variable, internal/config does), and returns its URL. It is stopped
// when tb's test ends.
func startSimProcess(tb testing.TB, cfg sim.Config) string {
	tb.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), simProcessEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("the simulator's process gave no URL: %v", err)
	}
	return strings.TrimSpace(line)
}

// startMemSim starts the simulator the memory measurements stream from.
func startMemSim(tb testing.TB) string {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.TokensPerSec = memTTFT, memRate
	return startSimProcess(tb, cfg)
}

// span is one stream as a loop saw it.
type span struct {
	start, end time.Time
	chunks     int
	err        error
}

// streamLoop sends one request asking for maxTokens tokens and reads its
// reply to the end.
type streamLoop func(ctx context.Context, maxTokens int) span

// clientLoop is the client: Runtime.Do, on the transport every runtime
// uses.
func clientLoop(tb testing.TB, kind runtimes.Kind, url string) (streamLoop, *http.Transport) {
	tr := runtimes.NewTransport(memStreams)
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: url, Model: sim.Model, Timeout: time.Minute, Client: &http.Client{Transport: tr}})
	if err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, maxTokens int) span {
		res := rt.Do(ctx, runtimes.Request{Prompt: "Hi.", MaxTokens: maxTokens})
		return span{start: res.Start, end: res.Start.Add(res.Total), chunks: res.Chunks, err: res.Err}
	}, tr
}

// bareLoop is the least a client can do: net/http's transport as net/http
// sets it up (its own 4 KiB buffers), keeping the connections, not asking
// for compression; a bufio.Reader of the default size on the body; each
// line stamped, its text found by a byte search, the reply's end by
// another; the rest of the body read so that the connection is reused.
func bareLoop(kind runtimes.Kind, url string) (streamLoop, *http.Transport) {
	tr := &http.Transport{MaxIdleConnsPerHost: memStreams + 4, DisableCompression: true}
	client := &http.Client{Transport: tr}
	path, end := "/v1/chat/completions", []byte("data: [DONE]")
	body := `{"model":%q,"messages":[{"role":"user","content":"Hi."}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true},"temperature":0}`
	if kind == runtimes.KindOllama {
		path, end = "/api/chat", []byte(`"done":true`)
		body = `{"model":%q,"messages":[{"role":"user","content":"Hi."}],"stream":true,"options":{"num_predict":%d,"temperature":0}}`
	}
	text := []byte(`"content":"`)
	return func(ctx context.Context, maxTokens int) span {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(fmt.Sprintf(body, sim.Model, maxTokens)))
		if err != nil {
			return span{err: err}
		}
		req.Header.Set("Content-Type", "application/json")
		s := span{start: time.Now()}
		resp, err := client.Do(req)
		if err != nil {
			s.err = err
			return s
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadSlice('\n')
			t := time.Now()
			if err != nil {
				s.err = err
				return s
			}
			if bytes.Contains(line, end) {
				s.end = t
				_, _ = io.Copy(io.Discard, resp.Body)
				return s
			}
			if i := bytes.Index(line, text); i >= 0 && line[i+len(text)] != '"' {
				s.chunks++
			}
		}
	}, tr
}

// memFigures are a loop's figures over its rounds.
type memFigures struct {
	kibPerStream float64 // HeapInuse + StackInuse a stream adds, its connection's included
	nsPerChunk   float64 // process CPU time per text chunk
	bytesChunk   float64 // allocated per text chunk
}

func (f memFigures) String() string {
	return fmt.Sprintf("%.1f KiB/stream, %.0f ns/chunk, %.0f B/chunk", f.kibPerStream, f.nsPerChunk, f.bytesChunk)
}

// memMeter measures rounds of memStreams streams of one loop.
type memMeter struct {
	loop streamLoop
	idle float64 // bytes per stream its idle connections hold; set by open

	rounds  int
	kib     float64 // summed over the rounds whose sample saw every stream open
	sampled int     // those rounds
	cpu     time.Duration
	alloc   uint64
	chunks  int
}

// open opens the loop's connections, with a round of short requests, and
// measures what they hold.
func (m *memMeter) open(tb testing.TB) {
	tb.Helper()
	settle()
	before := memInUse()
	m.round(tb, 2, false)
	settle()
	m.idle = (float64(memInUse()) - float64(before)) / memStreams
}

// measure runs one round of memTokens-token streams and adds its figures.
func (m *memMeter) measure(tb testing.TB) {
	tb.Helper()
	m.round(tb, memTokens, true)
}

func (m *memMeter) round(tb testing.TB, tokens int, measure bool) {
	tb.Helper()
	var before uint64
	if measure {
		before = memInUse()
	}
	spans := make([]span, memStreams)
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	ready.Add(memStreams)
	done.Add(memStreams)
	for i := range memStreams {
		go func() {
			defer done.Done()
			ready.Done()
			<-release
			// Spread over one token period (see the top of the file).
			time.Sleep(time.Duration(float64(i) / memStreams / memRate * float64(time.Second)))
			spans[i] = m.loop(context.Background(), tokens)
		}()
	}
	ready.Wait()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	close(release)
	var at time.Time
	var inUse uint64
	var sampling time.Duration
	if measure {
		time.Sleep(memTTFT + time.Duration(float64(tokens)/memRate/2*float64(time.Second)))
		at = time.Now()
		c := cpuTime()
		inUse = memInUse()
		sampling = cpuTime() - c
	}
	done.Wait()
	cpu := cpuTime() - cpu0 - sampling
	runtime.ReadMemStats(&ms1)
	for i, s := range spans {
		if s.err != nil {
			tb.Fatalf("stream %d: %v", i, s.err)
		}
		if s.chunks != tokens {
			tb.Fatalf("stream %d: %d text chunks, want %d", i, s.chunks, tokens)
		}
	}
	if !measure {
		return
	}
	m.rounds++
	m.cpu += cpu
	m.chunks += memStreams * tokens
	m.alloc += ms1.TotalAlloc - ms0.TotalAlloc
	for _, s := range spans {
		if !s.start.Before(at) || !s.end.After(at) {
			return // a stream was not open when the memory was sampled
		}
	}
	m.sampled++
	m.kib += (m.idle + (float64(inUse)-float64(before))/memStreams) / 1024
}

// figures are the figures so far; tb fails if no round's memory sample
// saw every stream open.
func (m *memMeter) figures(tb testing.TB) memFigures {
	tb.Helper()
	if m.sampled == 0 {
		tb.Fatalf("none of %d rounds had all its streams open when its memory was sampled", m.rounds)
	}
	return memFigures{
		kibPerStream: m.kib / float64(m.sampled),
		nsPerChunk:   float64(m.cpu.Nanoseconds()) / float64(m.chunks),
		bytesChunk:   float64(m.alloc) / float64(m.chunks),
	}
}

// memInUse is the heap in use and the goroutine stacks after a GC (two:
// what a pool holds goes with the second).
func memInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// settle waits, up to a second, for goroutines on their way out (those of
// connections just closed, of requests just ended) to be gone.
func settle() {
	n := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return
		}
		n = m
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamMemory runs rounds of 256 streams of 128 tokens at 50
// tok/s, through the client (loop=client) and through a bare loop
// (loop=bare), for each protocol; see the top of the file.
func BenchmarkStreamMemory(b *testing.B) {
	url := startMemSim(b)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		for _, name := range []string{"client", "bare"} {
			b.Run(fmt.Sprintf("%s/loop=%s", kind, name), func(b *testing.B) {
				loop, tr := bareLoop(kind, url)
				if name == "client" {
					loop, tr = clientLoop(b, kind, url)
				}
				defer tr.CloseIdleConnections()
				m := &memMeter{loop: loop}
				m.open(b)
				for b.Loop() {
					m.measure(b)
				}
				f := m.figures(b)
				b.ReportMetric(f.kibPerStream, "KiB/stream")
				b.ReportMetric(f.nsPerChunk, "ns/chunk")
				b.ReportMetric(f.bytesChunk, "B/chunk")
			})
		}
	}
}
