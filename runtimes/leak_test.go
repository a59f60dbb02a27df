package runtimes

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: a connection that outlives its
// request (its transport goroutines), a stuck reader or a server handler
// would show here. (A pending timer has no goroutine; stream() stops its
// idle watch explicitly.)
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
