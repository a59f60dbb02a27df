package telemetry

import (
	"testing"

	"go.uber.org/goleak"
)

// The Sampler's goroutines (and exec's) must be gone once it is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
