package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultInterval is the sampling interval when Options.Interval is zero.
const DefaultInterval = 200 * time.Millisecond

// minInterval is macmon's own floor: it raises -i below 100 ms to 100 ms.
const minInterval = 100 * time.Millisecond

// Options configure Start. The zero value is ready to use.
type Options struct {
	// Interval between samples; 0 means DefaultInterval. It is rounded to
	// whole milliseconds and, as macmon does, raised to at least 100 ms.
	Interval time.Duration
	// FirstSampleTimeout bounds how long Start waits for the first line;
	// 0 means 10 intervals but at least 5 s (macmon reads the chip's tables
	// before its first interval starts).
	FirstSampleTimeout time.Duration
	// Keep is how much history the Sampler holds; older samples are
	// dropped. 0 means 6 hours (about 20 MB at 200 ms).
	Keep time.Duration
}

// Sampler runs `macmon pipe -i <interval>` and keeps its samples, each
// stamped with the time it was read. Its methods are safe for concurrent
// use. Close stops macmon; a Sampler that failed mid-run keeps what it had
// and says why in Err.
type Sampler struct {
	bin      string
	interval time.Duration
	keep     int // most samples held

	cmd    *exec.Cmd
	stdout *os.File // read end of macmon's stdout
	stderr *tailBuffer

	exited     chan struct{} // closed when cmd.Wait has returned
	readerDone chan struct{} // closed when the reading goroutine has ended
	closeOnce  sync.Once

	mu      sync.Mutex
	samples []Sample
	waitErr error         // cmd.Wait's result, once exited is closed
	err     error         // first failure while running
	closing bool          // Close has begun: an exit is no failure
	ended   bool          // no more samples will come
	arrived chan struct{} // closed and replaced when a sample arrives or sampling ends
}

// Start runs `<bin> pipe -i <ms>` and returns once macmon has printed its
// first line and that line parsed as a sample. bin is a path or a name
// looked up in $PATH. Start fails, naming bin and the cause, if bin cannot
// be run, if macmon exits or prints nothing within
// Options.FirstSampleTimeout, or if its first line is not a macmon sample;
// it then leaves no process behind.
func Start(bin string, opts Options) (*Sampler, error) {
	interval := opts.Interval
	if interval == 0 {
		interval = DefaultInterval
	}
	interval = max(interval.Round(time.Millisecond), minInterval)
	timeout := opts.FirstSampleTimeout
	if timeout == 0 {
		timeout = max(10*interval, 5*time.Second)
	}
	keep := opts.Keep
	if keep == 0 {
		keep = 6 * time.Hour
	}
	ms := strconv.FormatInt(interval.Milliseconds(), 10)
	what := bin + " pipe -i " + ms

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", what, err)
	}
	cmd := exec.Command(bin, "pipe", "-i", ms)
	cmd.Stdout = pw
	stderr := &tailBuffer{max: 2048}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second // stderr's copier must not outlive macmon for long
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("telemetry: %s: %w", what, err)
	}
	pw.Close() // macmon holds the write end now

	s := &Sampler{
		bin:        bin,
		interval:   interval,
		keep:       max(int(keep/interval)+1, 16),
		cmd:        cmd,
		stdout:     pr,
		stderr:     stderr,
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		arrived:    make(chan struct{}),
	}
	first := make(chan error, 1)
	go s.wait()
	go s.read(first)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-first:
		if err == nil {
			return s, nil
		}
		s.Close()
		if errors.Is(err, errNoLine) {
			err = fmt.Errorf("exited without printing a line (%v)", s.exitStatus())
		}
		return nil, fmt.Errorf("telemetry: %s: %w%s", what, err, s.stderrNote())
	case <-timer.C:
		s.Close()
		return nil, fmt.Errorf("telemetry: %s printed nothing within %v%s", what, timeout, s.stderrNote())
	}
}

var errNoLine = errors.New("no line")

// wait reaps macmon and records an exit that Close did not ask for.
func (s *Sampler) wait() {
	err := s.cmd.Wait()
	s.mu.Lock()
	s.waitErr = err
	if !s.closing {
		s.failLocked(fmt.Errorf("telemetry: %s exited while sampling (%v)%s", s.bin, exitText(err), s.stderrNote()))
	}
	s.mu.Unlock()
	close(s.exited)
}

// read turns macmon's lines into samples. The first line's outcome goes to
// first; later bad lines are recorded and skipped.
func (s *Sampler) read(first chan<- error) {
	defer close(s.readerDone)
	defer s.end()
	sc := bufio.NewScanner(s.stdout)
	sc.Buffer(make([]byte, 0, 16<<10), 1<<20)
	started := false
	for sc.Scan() {
		at := time.Now()
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		smp, err := ParseLine(sc.Bytes())
		smp.At = at
		switch {
		case !started:
			started = true
			if err != nil {
				first <- err
				return // Start stops macmon
			}
			s.add(smp) // before Start returns
			first <- nil
		case err != nil:
			s.fail(fmt.Errorf("telemetry: %s printed a bad line (skipped): %w", s.bin, err))
		default:
			s.add(smp)
		}
	}
	err := sc.Err()
	if !started {
		if err == nil {
			err = errNoLine
		}
		first <- err
		return
	}
	if err != nil {
		s.fail(fmt.Errorf("telemetry: reading %s's output: %w", s.bin, err))
	}
}

func (s *Sampler) add(smp Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) >= s.keep {
		drop := max(s.keep/4, 1)
		n := copy(s.samples, s.samples[drop:])
		clear(s.samples[n:])
		s.samples = s.samples[:n]
	}
	s.samples = append(s.samples, smp)
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// end marks that no more samples will come and wakes Figures.
func (s *Sampler) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		close(s.arrived)
		s.arrived = make(chan struct{})
	}
}

func (s *Sampler) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(err)
}

func (s *Sampler) failLocked(err error) {
	if s.err == nil && !s.closing {
		s.err = err
	}
}

// Close stops macmon (SIGTERM to its process group, SIGKILL if it is still
// there after 3 s), reaps it and ends the Sampler's goroutines. The samples
// stay readable. Close is idempotent and always returns nil.
func (s *Sampler) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()

		select {
		case <-s.exited:
		default:
			terminate(s.cmd, false)
			t := time.NewTimer(3 * time.Second)
			select {
			case <-s.exited:
			case <-t.C:
				terminate(s.cmd, true)
				<-s.exited
			}
			t.Stop()
		}
		// A child that left macmon's process group could still hold the
		// pipe open: closing our end ends the reader all the same.
		t := time.NewTimer(time.Second)
		select {
		case <-s.readerDone:
		case <-t.C:
			s.stdout.Close()
			<-s.readerDone
		}
		t.Stop()
		s.stdout.Close()
	})
	return nil
}

// Err returns the first thing that went wrong after Start returned: macmon
// exited (or was killed) before Close, its output could not be read, or it
// printed a line that is not a sample (that line is skipped and sampling
// goes on). Samples taken before the failure remain usable.
func (s *Sampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Interval returns the sampling interval macmon was started with.
func (s *Sampler) Interval() time.Duration { return s.interval }

// Samples returns a copy of the samples held, oldest first.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// Figures returns the figures for the window [from, to] (see WindowFigures
// and the package documentation). The sample that covers the end of the
// window arrives up to one interval after to, so Figures first waits for a
// sample read at or after to, for at most two intervals plus 2 s past to,
// and not past the end of sampling or of ctx (then it returns ctx's error).
// If that sample never comes, the figures cover less than the window
// (Figures.CoveredS < Figures.WindowS). Fewer than MinSamples samples in
// the window give an error wrapping ErrTooFewSamples.
func (s *Sampler) Figures(ctx context.Context, from, to time.Time) (Figures, error) {
	if err := s.waitPast(ctx, to); err != nil {
		return Figures{}, err
	}
	s.mu.Lock()
	// From the sample before the first one read after from (its At is where
	// that one's interval starts) to the first one read at or after to.
	lo := sort.Search(len(s.samples), func(i int) bool { return s.samples[i].At.After(from) })
	hi := sort.Search(len(s.samples), func(i int) bool { return !s.samples[i].At.Before(to) })
	window := append([]Sample(nil), s.samples[max(lo-1, 0):min(hi+1, len(s.samples))]...)
	s.mu.Unlock()
	return WindowFigures(window, s.interval, from, to)
}

// waitPast waits until a sample read at or after t has arrived, sampling
// has ended, or two intervals plus 2 s have passed since t.
func (s *Sampler) waitPast(ctx context.Context, t time.Time) error {
	deadline := time.NewTimer(time.Until(t) + 2*s.interval + 2*time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		n := len(s.samples)
		done := s.ended || (n > 0 && !s.samples[n-1].At.Before(t))
		arrived := s.arrived
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return nil
		}
	}
}

func (s *Sampler) exitStatus() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return exitText(s.waitErr)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// stderrNote returns macmon's last words on stderr, for error messages.
func (s *Sampler) stderrNote() string {
	msg := strings.TrimSpace(s.stderr.String())
	if msg == "" {
		return ""
	}
	return ": stderr: " + msg
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
