package driver

import (
	"testing"

	"go.uber.org/goleak"
)

// Setup starts the simulator, probes and an interrupt handler; Close must
// stop them all.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
