package machine

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the helpers of TestServerMemoryLive hold, touched page by page so
// that it is resident.
const (
	holdServer = 24 << 20
	holdChild  = 48 << 20
)

var held []byte

// hold is a helper process (see TestMain) that keeps n bytes resident;
// the server ("hold") listens on a port of 127.0.0.1 and starts a child
// that holds more ("holdchild"), prints its port and the child's PID,
// and both live until their stdin closes or 30 s pass.
func hold(n int) {
	held = make([]byte, n)
	for i := range held {
		held[i] = byte(i)
	}
	var child *exec.Cmd
	if n == holdServer {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(2)
		}
		defer ln.Close()
		child = exec.Command(os.Args[0], "-test.run=^$")
		child.Env = append(os.Environ(), helperEnv+"=holdchild")
		in, _ := child.StdinPipe()
		out, _ := child.StdoutPipe()
		if child.Start() != nil {
			os.Exit(2)
		}
		defer in.Close()
		line, _ := bufio.NewReader(out).ReadString('\n') // the child is resident
		if line != "ready\n" {
			os.Exit(2)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port, child.Process.Pid)
	} else {
		fmt.Println("ready")
	}
	done := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadByte() // EOF when the test ends
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	}
	runtime.KeepAlive(held)
	if child != nil {
		_ = child.Process.Kill()
		_ = child.Wait()
	}
}

// psRSS is `ps -o rss= -p PIDS` summed, in bytes.
func psRSS(t *testing.T, pids []int) uint64 {
	t.Helper()
	var s []string
	for _, p := range pids {
		s = append(s, strconv.Itoa(p))
	}
	out, err := exec.Command("ps", "-o", "rss=", "-p", strings.Join(s, ",")).Output()
	require.NoError(t, err)
	var kb uint64
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.ParseUint(f, 10, 64)
		require.NoError(t, err)
		kb += n
	}
	return kb << 10
}

// A server whose child holds memory: the server's memory is both
// processes', as ps counts it.
func TestServerMemoryLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=hold")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	var port, child int
	_, err = fmt.Fscan(stdout, &port, &child)
	require.NoError(t, err, "the helper prints its port and child")

	servers := Find([]int{port})
	require.NoError(t, servers.Err())
	s := Take(servers)
	m, err := s.Memory()
	require.NoError(t, err)
	ps := psRSS(t, m.Pids)
	assert.ElementsMatch(t, []int{cmd.Process.Pid, child}, m.Pids)
	assert.False(t, m.InSelf)
	assert.GreaterOrEqual(t, m.RSS, uint64(holdServer+holdChild), "both hold what they touched")
	assert.InEpsilon(t, float64(ps), float64(m.RSS), 0.05, "against ps -o rss= over the same processes")
	assert.GreaterOrEqual(t, m.HWM, m.RSS)

	again, err := RSS(s.Servers)
	require.NoError(t, err)
	assert.InEpsilon(t, float64(m.RSS), float64(again.RSS), 0.05, "the cheap reading is the same")

	stdin.Close()
	require.NoError(t, cmd.Wait())
	_, err = RSS(s.Servers)
	assert.ErrorContains(t, err, fmt.Sprintf("the memory of process %d", s.Servers[0].PID), "a process that ended is unknown")
}
