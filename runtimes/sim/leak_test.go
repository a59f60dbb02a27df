package sim

import (
	"testing"

	"go.uber.org/goleak"
)

// Close must end every stream and the clock: no goroutine may outlive a
// server.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
