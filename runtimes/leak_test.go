package runtimes

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: a stream reader, an idle timer or
// a connection that outlives its request would show here.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
