package sim

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// timerfdWaker is a timerfd(2) read through the runtime's netpoller. The
// kernel's hrtimer makes the fd readable on time to the microsecond, and the
// netpoller returns at once for a ready fd, whatever its own millisecond
// timeout. Reading parks the loop goroutine like a network read: no thread
// or P is held while it waits.
type timerfdWaker struct {
	fd int
	f  *os.File
}

const (
	clockMonotonic = 1                                // CLOCK_MONOTONIC
	tfdNonblock    = 0x800                            // TFD_NONBLOCK = O_NONBLOCK
	tfdCloexec     = 0x80000                          // TFD_CLOEXEC = O_CLOEXEC
	_              = tfdCloexec - syscall.O_CLOEXEC   // compile-time checks
	_              = tfdNonblock - syscall.O_NONBLOCK // (negative if they differ: error)
)

func newPlatformWaker() (waker, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, os.NewSyscallError("timerfd_create", errno)
	}
	// A non-blocking fd: os.NewFile registers it with the netpoller.
	return &timerfdWaker{fd: int(fd), f: os.NewFile(fd, "sim-timerfd")}, nil
}

type itimerspec struct {
	interval, value syscall.Timespec
}

func (w *timerfdWaker) arm(d time.Duration) {
	var its itimerspec // all zero: disarmed
	if d != noWake {
		its.value = syscall.NsecToTimespec(int64(max(d, 1))) // 0 would disarm
	}
	syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(w.fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

func (w *timerfdWaker) wait() {
	var b [8]byte // the number of expirations; re-arming resets it
	w.f.Read(b[:])
}

func (w *timerfdWaker) close() { w.f.Close() }
