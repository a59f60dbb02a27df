package driver

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptWait bounds how long an interrupt waits for a write of the
// run's files under way: a write that hangs (a stuck network folder) must
// not keep the run from ending.
const interruptWait = 5 * time.Second

// HandleInterrupts makes SIGINT (Ctrl-C) and SIGTERM end the run at once,
// after a write of the run's files under way has finished (or
// interruptWait has passed): the files keep every leaf run that finished,
// the one under way is lost. The process exits with 128 + the signal's
// number; a second signal kills it at once.
func (d *Driver) HandleInterrupts() {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			f := d.files
			switch {
			case !f.freeze(interruptWait):
				d.logNow("interrupted (%v): a write of %s did not finish within %v; the files may lack the last benchmarks", sig, f.dir, interruptWait)
			case f.saved > 0:
				d.logNow("interrupted (%v): %s in %s and %s; the one under way is lost",
					sig, finished(f.saved), f.json, f.txt)
			default:
				d.logNow("interrupted (%v) before any benchmark finished; nothing was written", sig)
			}
			// Nothing is closed: the exit ends the simulator and the
			// connections, and Close may be running on another goroutine.
			code := 130
			if n, ok := sig.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	d.stopSignals = func() {
		signal.Stop(ch)
		close(done)
	}
}

// finished says how many benchmark runs the files hold, in words.
func finished(n int) string {
	if n == 1 {
		return "the 1 finished benchmark run is"
	}
	return fmt.Sprintf("the %d finished benchmark runs are", n)
}
