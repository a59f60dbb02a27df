package machine

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary a server that burns CPU (see
// TestMain): it listens on a port of 127.0.0.1, prints it, and spins with
// a child process that spins too, until its stdin closes or 30 s pass.
const helperEnv = "MACHINE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "server":
		serve()
		return
	case "hold":
		hold(holdServer)
		return
	case "holdchild":
		hold(holdChild)
		return
	}
	os.Exit(m.Run())
}

func serve() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	child := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
	if child.Start() != nil {
		os.Exit(2)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port, child.Process.Pid)
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadByte() // EOF when the test ends
		cancel()
	}()
	for ctx.Err() == nil { // spin
	}
	_ = child.Wait()
}

// burn starts a process outside this one that spins for at most 30 s,
// stopped at the test's end.
func burn(t *testing.T) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cmd := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// startServer starts the helper server and returns its port, its PID and
// its spinning child's.
func startServer(t *testing.T) (port, pid, child int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=server")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	_, err = fmt.Fscan(stdout, &port, &child)
	require.NoError(t, err, "the helper server prints its port and child")
	return port, cmd.Process.Pid, child
}

func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	p, err := procFS{root: "/proc"}.proc(pid)
	require.NoError(t, err)
	return p.CPU
}

// slack is the most two readings of /proc's counters, each in ticks of
// 10 ms and accounted per CPU, differ by over a second.
const slack = 60 * time.Millisecond

// A process outside this one that burns CPU is other processes' use:
// every tick it spent inside the window is in Other (which the other
// engineers of a shared machine only raise).
func TestOtherHasABurnerLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	pid := burn(t)
	time.Sleep(100 * time.Millisecond)
	a := Take(Servers{})
	before := cpuOf(t, pid)
	time.Sleep(time.Second)
	after := cpuOf(t, pid)
	u := Between(a, Take(Servers{}))
	require.NoError(t, u.Err)
	other, ok := u.Other()
	require.True(t, ok)
	burned := after - before
	require.Positive(t, burned, "the burner ran")
	assert.GreaterOrEqual(t, other*u.Wall.Seconds(), (burned - slack).Seconds(),
		"other processes' %.2f cores over %v include the burner's %v", other, u.Wall, burned)
	assert.Equal(t, runtime.NumCPU(), u.Cores)
}

// A server listening on a port, and its child, are the server's use, not
// other processes'.
func TestServerIsNotOtherLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	port, pid, child := startServer(t)
	servers := Find([]int{port})
	require.NoError(t, servers.Err())
	a := Take(servers)
	require.NoError(t, a.ServersErr)
	before := cpuOf(t, pid) + cpuOf(t, child)
	time.Sleep(time.Second)
	after := cpuOf(t, pid) + cpuOf(t, child)
	b := Take(servers)
	require.NoError(t, b.ServersErr)
	var pids []int
	for _, p := range b.Servers {
		pids = append(pids, p.PID)
	}
	assert.Contains(t, pids, pid, "the process listening on %d", port)
	assert.Contains(t, pids, child, "the server's child")
	assert.NotContains(t, pids, os.Getpid())
	u := Between(a, b)
	require.NoError(t, u.Err)
	burned := after - before
	require.Positive(t, burned, "the server ran")
	assert.GreaterOrEqual(t, *u.Servers, burned-slack, "the server's time holds what it and its child burned")
	assert.LessOrEqual(t, *u.Servers, *u.Busy+slack)
}

// A server in this process (the simulator) is this process's time.
func TestServerInThisProcessLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	servers := Find([]int{ln.Addr().(*net.TCPAddr).Port})
	require.NoError(t, servers.Err())
	s := Take(servers)
	require.NoError(t, s.ServersErr)
	assert.Empty(t, s.Servers)
	require.NotNil(t, s.Self)
	assert.Equal(t, os.Getpid(), s.Self.PID)
	assert.GreaterOrEqual(t, s.Cores, 1)
}
