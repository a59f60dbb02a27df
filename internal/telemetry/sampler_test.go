//go:build unix

package telemetry

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// fakeMacmon is the path of the stand-in, testdata/macmon.
func fakeMacmon(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("testdata", "macmon"))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// startFake starts the stand-in; a busy machine may take its time to run
// bash, so the first line gets 30 s.
func startFake(t *testing.T, opts Options) (*Sampler, error) {
	t.Helper()
	if opts.FirstSampleTimeout == 0 {
		opts.FirstSampleTimeout = 30 * time.Second
	}
	return Start(fakeMacmon(t), opts)
}

func TestSamplerEnergyOfAConstantPower(t *testing.T) {
	t.Setenv("FAKE_MACMON_WATTS", "12.5")
	t.Setenv("FAKE_MACMON_SWAP_STEP", "4096")
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Interval() != 100*time.Millisecond {
		t.Errorf("interval %v", s.Interval())
	}

	from := time.Now()
	time.Sleep(1500 * time.Millisecond)
	to := time.Now()
	f, err := s.Figures(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	window := to.Sub(from).Seconds()
	want := 12.5 * window
	t.Logf("window %.3fs, %d samples, covered %.3fs, energy %.3f J (12.5 W × window = %.3f J), mean %.3f W",
		window, f.Samples, f.CoveredS, f.EnergyJ, want, f.AllPowerWMean)
	if math.Abs(f.EnergyJ-want) > 0.05*want {
		t.Errorf("energy %.3f J, want %.3f J ± 5%%", f.EnergyJ, want)
	}
	if math.Abs(f.AllPowerWMean-12.5) > 1e-9 || math.Abs(f.GPUPowerWMean-10) > 1e-9 || math.Abs(f.GPUMHzMean-1380) > 1e-9 {
		t.Errorf("means: %+v", f)
	}
	// One sample per interval at most, give or take the edges and lines
	// that a busy machine let pile up before from; it can make the
	// stand-in late, never early.
	if maxN := int(window/0.1) + 4; f.Samples < MinSamples || f.Samples > maxN {
		t.Errorf("%d samples in %.3fs, want %d to %d", f.Samples, window, MinSamples, maxN)
	}
	if f.SysPowerWMean != nil {
		t.Errorf("sys power %v from a stand-in that reports none", *f.SysPowerWMean)
	}
	if f.SwapGrowthBytes != int64(4096*(f.Samples-1)) {
		t.Errorf("swap growth %d over %d samples, want %d", f.SwapGrowthBytes, f.Samples, 4096*(f.Samples-1))
	}
	if f.CPUTempCMax == nil || *f.CPUTempCMax != 55.47723 {
		t.Errorf("cpu temp %v", f.CPUTempCMax)
	}

	s.Close()
	if err := s.Err(); err != nil {
		t.Errorf("Err after a clean Close: %v", err)
	}
	if n := len(s.Samples()); n < f.Samples {
		t.Errorf("%d samples kept after Close, want at least %d", n, f.Samples)
	}
}

func TestSamplerCloseLeavesNoProcess(t *testing.T) {
	t.Setenv("FAKE_MACMON_WATTS", "7")
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pid := s.cmd.Process.Pid
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	// Reaped: not even a zombie answers a signal.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) after Close = %v, want ESRCH", pid, err)
	}
	// Its children (the stand-in's sleep) get the signal too; init reaps them.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still there after Close: %v", pid, err)
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err after Close: %v", err)
	}
	goleak.VerifyNone(t)
}

func TestStartFailures(t *testing.T) {
	bin := fakeMacmon(t)
	notExec := filepath.Join(t.TempDir(), "macmon")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, bin, mode string
		timeout         time.Duration // for the first line: short only where nothing comes
		want            []string
	}{
		{"not found", filepath.Join(t.TempDir(), "no-macmon"), "", 0, []string{"no-macmon", "no such file"}},
		{"not executable", notExec, "", 0, []string{notExec, "permission denied"}},
		{"not in PATH", "macmon-that-is-not-installed", "", 0, []string{"macmon-that-is-not-installed", "not found"}},
		{"exits at once", bin, "exit", 30 * time.Second, []string{bin, "exited without printing a line", "exit status 1", "stand-in told to fail"}},
		{"prints nothing", bin, "silent", 700 * time.Millisecond, []string{bin, "printed nothing within 700ms"}},
		{"prints non-JSON", bin, "garbage", 30 * time.Second, []string{bin, "not a macmon JSON line", "this is not JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FAKE_MACMON_MODE", tc.mode)
			s, err := Start(tc.bin, Options{Interval: 100 * time.Millisecond, FirstSampleTimeout: tc.timeout})
			if err == nil {
				s.Close()
				t.Fatal("Start succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestSamplerMidRunFailure(t *testing.T) {
	t.Setenv("FAKE_MACMON_MODE", "die-after")
	t.Setenv("FAKE_MACMON_DIE_AFTER", "4")
	from := time.Now()
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(20 * time.Second)
	for s.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	err = s.Err()
	if err == nil {
		t.Fatal("no error after macmon died")
	}
	for _, w := range []string{"exited while sampling", "exit status 1", "stand-in told to die"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Err %q does not say %q", err, w)
		}
	}
	if n := len(s.Samples()); n != 4 {
		t.Errorf("%d samples, want the 4 printed", n)
	}
	// The samples taken still make figures, at once: none will come to
	// cover the rest of the window.
	start := time.Now()
	f, ferr := s.Figures(context.Background(), from, time.Now().Add(time.Hour))
	if ferr != nil || f.Samples != 4 || f.CoveredS >= f.WindowS {
		t.Errorf("figures after the failure: %+v, %v", f, ferr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Figures waited %v for a sampler that had ended", d)
	}
}

func TestSamplerSkipsABadLine(t *testing.T) {
	t.Setenv("FAKE_MACMON_MODE", "bad-line")
	t.Setenv("FAKE_MACMON_DIE_AFTER", "2")
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(20 * time.Second)
	for len(s.Samples()) < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(s.Samples()); n < 5 {
		t.Fatalf("%d samples: sampling stopped at the bad line", n)
	}
	err = s.Err()
	if err == nil || !strings.Contains(err.Error(), "bad line (skipped)") || !strings.Contains(err.Error(), "stand-in told to print a bad line") {
		t.Errorf("Err = %v, want the bad line", err)
	}
}

func TestSamplerFiguresHonoursContext(t *testing.T) {
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Figures(ctx, time.Now(), time.Now().Add(time.Hour)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Figures = %v, want the context's error", err)
	}
}

func TestSamplerKeepsBoundedHistory(t *testing.T) {
	s := &Sampler{keep: 16, arrived: make(chan struct{})}
	t0 := time.Now()
	for i := range 1000 {
		s.add(Sample{At: t0.Add(time.Duration(i) * time.Millisecond), AllPowerW: float64(i)})
	}
	got := s.Samples()
	if len(got) > 16 || len(got) < 12 {
		t.Fatalf("%d samples held, want 12 to 16", len(got))
	}
	for i, smp := range got {
		if want := float64(1000 - len(got) + i); smp.AllPowerW != want {
			t.Fatalf("sample %d is %v, want %v (the newest, in order)", i, smp.AllPowerW, want)
		}
	}
}

func TestStartRaisesIntervalToMacmonsFloor(t *testing.T) {
	s, err := startFake(t, Options{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Interval() != 100*time.Millisecond {
		t.Errorf("interval %v, want 100ms", s.Interval())
	}
}

func TestVersion(t *testing.T) {
	bin, _ := filepath.Abs(filepath.Join("testdata", "macmon"))
	v, err := Version(bin)
	if err != nil || v != "macmon 0.8.2" {
		t.Errorf("Version = %q, %v", v, err)
	}

	missing := filepath.Join(t.TempDir(), "macmon")
	if _, err := Version(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Version(missing) error = %v, want one naming %s", err, missing)
	}

	// A program that answers something else is not macmon.
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho 'other 1.0'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := Version(other); err == nil {
		t.Errorf("Version(other) = %q, want an error", v)
	}
}
