//go:build !linux

package sim

// Elsewhere the runtime's timers are fine-grained enough (kqueue and Windows
// high-resolution timers take nanosecond or 100 ns timeouts).
func newPlatformWaker() (waker, error) { return nil, nil }
