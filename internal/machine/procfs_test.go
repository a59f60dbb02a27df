package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/proc is a /proc captured on a 2-core Linux machine (stat, the
// format of net/tcp and of a process's stat), with processes made up in
// its format: 100 a server on port 11434 (0x2CAA), 101 its child whose
// name has spaces and parentheses, 102 its grandchild; 200 the process
// reading (self), serving port 45678 (0xB26E), and 201 its child; 300 a
// bystander; 400 a server on port 8080 over IPv6; port 2024 (0x07E8) is
// held by no readable process. Its fd entries are files whose text is
// the link's. The status files of 100, 101, 102 and 200 are this
// machine's /proc/self/status with their name, PID, VmRSS and VmHWM
// changed; 400 has none.
var fixture = procFS{root: filepath.Join("testdata", "proc"), self: 200, readlink: readText}

// readText reads a captured fd entry: a file whose text is the link's.
func readText(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

func TestParseStat(t *testing.T) {
	data, err := os.ReadFile(fixture.path("stat"))
	require.NoError(t, err)
	busy, cores, err := parseStat(data)
	require.NoError(t, err)
	// user 12639 + nice 0 + system 4571 + irq 0 + softirq 57 + steal 83,
	// not idle 61680 or iowait 371: ticks of 10 ms.
	assert.Equal(t, 17350*10*time.Millisecond, busy)
	assert.Equal(t, 2, cores)

	_, _, err = parseStat([]byte("intr 1 2 3\n"))
	assert.ErrorContains(t, err, `no "cpu" line`)
	_, _, err = parseStat([]byte("cpu  1 2 3\n"))
	assert.ErrorContains(t, err, "3 fields")
	_, _, err = parseStat([]byte("cpu  1 2 x 4 5 6 7 8\n"))
	assert.ErrorContains(t, err, "field 3")
}

func TestParsePIDStat(t *testing.T) {
	data, err := os.ReadFile(fixture.path("101", "stat"))
	require.NoError(t, err)
	p, err := parsePIDStat(data)
	require.NoError(t, err)
	assert.Equal(t, Proc{PID: 101, PPID: 100, Start: 5200, CPU: (45000 + 5000) * 10 * time.Millisecond}, p)

	for text, want := range map[string]string{
		"101 no name S 1 2":        "no (name)",
		"x (sh) S 1":               "its pid",
		"101 (sh) S 1 2 3":         "4 fields after the name",
		"101 (sh) S one" + pad(30): "its field 4",
	} {
		_, err := parsePIDStat([]byte(text))
		assert.ErrorContains(t, err, want, "%q", text)
	}
}

func pad(n int) string { return strings.Repeat(" 0", n) }

func TestParseListening(t *testing.T) {
	f, err := os.Open(fixture.path("net", "tcp"))
	require.NoError(t, err)
	defer f.Close()
	got := map[int][]uint64{}
	require.NoError(t, parseListening(f, []int{11434, 45678, 8080}, got))
	// 5009 is a connection to 11434, not its listening socket; 8080 is
	// in tcp6; 2024 was not asked for.
	assert.Equal(t, map[int][]uint64{11434: {5001}, 45678: {5002}}, got)

	err = parseListening(strings.NewReader("header\n 0: 0100007F 00000000:0000 0A 0 0 0 0 0 0 5001\n"), []int{1}, got)
	assert.ErrorContains(t, err, "ADDR:PORT")
	err = parseListening(strings.NewReader("header\n 0: 0100007F:0001\n"), []int{1}, got)
	assert.ErrorContains(t, err, "2 fields")
}

func TestTakeFixture(t *testing.T) {
	now := time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)
	servers := fixture.find([]int{11434})
	require.NoError(t, servers.Err())
	s := fixture.take(servers, now)
	require.NoError(t, s.BusyErr)
	require.NoError(t, s.ServersErr)
	assert.Equal(t, now, s.At)
	assert.Equal(t, 2, s.Cores)
	assert.Equal(t, 173500*time.Millisecond, *s.Busy)
	require.NotNil(t, s.Self)
	assert.Equal(t, 10*time.Second, s.Self.CPU, "self's utime 900 + stime 100 ticks")
	var pids []int
	for _, p := range s.Servers {
		pids = append(pids, p.PID)
	}
	assert.Equal(t, []int{100, 101, 102}, pids, "the server, its child and grandchild; not self's child 201 nor the bystander")
	assert.Equal(t, 15*time.Second, s.Servers[0].CPU, "the server's utime 1200 + stime 300 ticks")

	self := fixture.find([]int{45678})
	assert.NoError(t, self.Err())
	assert.Empty(t, fixture.take(self, now).Servers, "a server in this process is Self's")

	v6 := fixture.take(fixture.find([]int{8080, 45678}), now)
	require.NoError(t, v6.ServersErr)
	require.Len(t, v6.Servers, 1)
	assert.Equal(t, 400, v6.Servers[0].PID)

	assert.ErrorContains(t, fixture.find([]int{9999}).Err(), "no process on this machine listens on TCP port 9999")
	hidden := fixture.find([]int{2024})
	assert.ErrorContains(t, hidden.Err(), "the process listening on TCP port 2024 could not be found")
	assert.ErrorContains(t, hidden.Err(), "not readable")
	assert.Equal(t, hidden.Err(), fixture.take(hidden, now).ServersErr, "servers not found are unknown in every snapshot")

	none := fixture.take(Servers{}, now)
	assert.NoError(t, none.ServersErr)
	assert.Empty(t, none.Servers)

	gone := procFS{root: filepath.Join("testdata", "nothing"), self: 200, readlink: readText}
	assert.Error(t, gone.find([]int{11434}).Err())
	snap := gone.take(servers, now)
	assert.Nil(t, snap.Busy, "unknown, not 0")
	assert.Error(t, snap.BusyErr)
	assert.Nil(t, snap.Self)
	assert.ErrorContains(t, snap.ServersErr, "the server process 100 ended")
	_, ok := Between(snap, snap).Other()
	assert.False(t, ok)
}

func TestParseStatus(t *testing.T) {
	data, err := os.ReadFile(fixture.path("101", "status"))
	require.NoError(t, err)
	rss, hwm, err := parseStatus(string(data))
	require.NoError(t, err)
	assert.Equal(t, uint64(1843200*1024), rss, "VmRSS: 1843200 kB")
	assert.Equal(t, uint64(1901056*1024), hwm, "VmHWM: 1901056 kB")

	for text, want := range map[string]string{
		"Name:\tkthreadd\nPid:\t2\n":            "no VmRSS and VmHWM",
		"VmHWM:\t 10 kB\nVmRSS:\t 9 MB\n":       `VmRSS: "9 MB", want a number of kB`,
		"VmHWM:\t 1x kB\nVmRSS:\t 9 kB\n":       "VmHWM",
		"VmRSS:\t 9 kB\n":                       "no VmRSS and VmHWM",
		"VmHWM:\t 10 kB\nVmRSS:\t 9 kB extra\n": `VmRSS: "9 kB extra"`,
	} {
		_, _, err := parseStatus(text)
		assert.ErrorContains(t, err, want, "%q", text)
	}
}

// The servers' memory is their processes' summed; a server in this
// process is this process's, said as such; a process whose status cannot
// be read makes it unknown, never 0.
func TestMemoryFixture(t *testing.T) {
	now := time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)
	s := fixture.take(fixture.find([]int{11434}), now)
	m, err := s.Memory()
	require.NoError(t, err)
	// 100, 101 and 102: 52340 + 1843200 + 1536 kB resident, peaks
	// 61200 + 1901056 + 1536 kB.
	assert.Equal(t, Memory{RSS: 1897076 << 10, HWM: 1963792 << 10, Pids: []int{100, 101, 102}}, m)

	in := fixture.take(fixture.find([]int{45678}), now)
	m, err = in.Memory()
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 30720 << 10, HWM: 41984 << 10, Pids: []int{200}, InSelf: true}, m)

	v6 := fixture.take(fixture.find([]int{8080}), now) // 400 has no status
	require.NoError(t, v6.ServersErr)
	_, err = v6.Memory()
	assert.ErrorContains(t, err, "the memory of process 400")

	hidden := fixture.take(fixture.find([]int{2024}), now)
	_, err = hidden.Memory()
	assert.ErrorContains(t, err, "could not be found")
}
