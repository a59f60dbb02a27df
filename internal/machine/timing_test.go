//go:build timing

package machine

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// other measures Other over d, with the servers on ports counted apart.
func other(t *testing.T, d time.Duration, ports ...int) float64 {
	t.Helper()
	servers := Find(ports)
	require.NoError(t, servers.Err())
	a := Take(servers)
	time.Sleep(d)
	u := Between(a, Take(servers))
	require.NoError(t, u.Err)
	o, ok := u.Other()
	require.True(t, ok)
	return o
}

// On a machine otherwise steady, a burner adds about one core to Other,
// and a server that burns two (itself and its child) adds about none.
func TestOtherCoresTiming(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("reads /proc; needs 2 cores")
	}
	base := other(t, 2*time.Second)
	if cores := float64(runtime.NumCPU()); base > cores-1.2 {
		t.Skipf("other processes already use %.2f of %.0f cores: a burner would take its core from them", base, cores)
	}
	port, _, _ := startServer(t)
	served := other(t, 2*time.Second, port)
	burn(t)
	burned := other(t, 2*time.Second, port)
	t.Logf("other processes: %.2f cores idle, %.2f with a server burning, %.2f with a burner too", base, served, burned)
	assert.Less(t, served-base, 0.4, "the server's CPU is not other processes'")
	assert.Greater(t, burned-served, 0.5, "a burner is")
}
