package machine

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func at(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func TestBetween(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)
	a := Snapshot{At: t0, Cores: 2, Busy: ptr(at(100)), Self: &Proc{PID: 9, CPU: at(10)},
		Servers: []Proc{{PID: 1, Start: 5, CPU: at(20)}, {PID: 2, Start: 6, CPU: at(3)}, {PID: 3, Start: 7, CPU: at(1)}}}
	b := Snapshot{At: t0.Add(at(2)), Cores: 2, Busy: ptr(at(103.5)), Self: &Proc{PID: 9, CPU: at(10.5)},
		// 1 used 1 s; 2 ended; 3's PID is another process now, started
		// meanwhile (0.25 s), as is 4 (0.25 s).
		Servers: []Proc{{PID: 1, Start: 5, CPU: at(21)}, {PID: 3, Start: 900, CPU: at(0.25)}, {PID: 4, Start: 901, CPU: at(0.25)}}}
	u := Between(a, b)
	require.NoError(t, u.Err)
	assert.Equal(t, at(2), u.Wall)
	assert.Equal(t, 2, u.Cores)
	assert.Equal(t, at(3.5), *u.Busy)
	assert.Equal(t, at(0.5), *u.Self)
	assert.Equal(t, at(1.5), *u.Servers)
	other, ok := u.Other()
	require.True(t, ok)
	assert.InDelta(t, (3.5-0.5-1.5)/2, other, 1e-9)

	// The counters tick in hundredths: a little below 0 is 0.
	quiet := b
	quiet.Busy = ptr(at(101.9))
	other, ok = Between(a, quiet).Other()
	require.True(t, ok)
	assert.Zero(t, other)
}

func TestBetweenUnknown(t *testing.T) {
	t0 := time.Now()
	known := Snapshot{At: t0, Cores: 2, Busy: ptr(at(1)), Self: &Proc{CPU: at(1)}}
	later := known
	later.At, later.Busy = t0.Add(time.Second), ptr(at(2))
	_, ok := Between(known, later).Other()
	require.True(t, ok, "no server asked for: the servers used nothing")

	noBusy := later
	noBusy.Busy, noBusy.BusyErr = nil, errors.New("no /proc")
	u := Between(known, noBusy)
	assert.Nil(t, u.Busy)
	assert.ErrorContains(t, u.Err, "the machine's CPU time: no /proc")
	_, ok = u.Other()
	assert.False(t, ok)

	noServer := later
	noServer.ServersErr = errors.New("no process on this machine listens on TCP port 1")
	u = Between(known, noServer)
	assert.Nil(t, u.Servers)
	assert.ErrorContains(t, u.Err, "the servers' CPU time: no process")
	_, ok = u.Other()
	assert.False(t, ok, "a server whose time is unknown leaves the others' unknown")

	noSelf := later
	noSelf.Self = nil
	_, ok = Between(known, noSelf).Other()
	assert.False(t, ok)

	_, ok = Between(later, later).Other()
	assert.False(t, ok, "no wall time")
}

// On macOS the machine's busy time is its processes': one that ends
// between snapshots loses only its own time since the first.
func TestBetweenAllProcesses(t *testing.T) {
	t0 := time.Now()
	a := Snapshot{At: t0, Busy: ptr(at(30)), Self: &Proc{PID: 9, CPU: at(1)},
		all: map[key]time.Duration{{9, 0}: at(1), {10, 0}: at(20), {11, 0}: at(9)}}
	b := Snapshot{At: t0.Add(time.Second), Busy: ptr(at(23)), Self: &Proc{PID: 9, CPU: at(1.25)},
		all: map[key]time.Duration{{9, 0}: at(1.25), {10, 0}: at(20.5), {12, 0}: at(0.25)}} // 11 ended, 12 began
	u := Between(a, b)
	assert.Equal(t, at(1), *u.Busy)
	other, ok := u.Other()
	require.True(t, ok)
	assert.InDelta(t, 0.75, other, 1e-9)
}

func TestParsePS(t *testing.T) {
	procs, err := parsePS("    0     0  12:03.51      0\n    1     0   0:31.07  12800\n  512     1 1-02:03:04.50 1843200\n  600   512   0:00.00   1536\n")
	require.NoError(t, err)
	assert.Equal(t, []Proc{
		{PID: 0, PPID: 0, CPU: 12*time.Minute + at(3.51)},
		{PID: 1, PPID: 0, CPU: at(31.07), RSS: 12800 << 10},
		{PID: 512, PPID: 1, CPU: 26*time.Hour + 3*time.Minute + at(4.5), RSS: 1843200 << 10},
		{PID: 600, PPID: 512, RSS: 1536 << 10},
	}, procs)
	for out, want := range map[string]string{
		"":                   "no process",
		"1 0":                "2 fields",
		"1 0 12 5":           "want [[dd-]hh:]mm:ss",
		"1 0 x:00.1 5":       `"x" is not a number`,
		"1 0 0:zz 5":         "its seconds",
		"x 0 0:01.00 5":      "x",
		"1 0 q-01:00:00.0 5": "its days",
		"1 0 0:01.00 -5":     `"-5"`,
	} {
		_, err := parsePS(out)
		assert.ErrorContains(t, err, want, "%q", out)
	}
	pids, err := parsePIDs("512\n513\n")
	require.NoError(t, err)
	assert.Equal(t, []int{512, 513}, pids)
	_, err = parsePIDs("512\nCOMMAND\n")
	assert.ErrorContains(t, err, `"COMMAND" is not a PID`)
}

func TestDescend(t *testing.T) {
	procs := []Proc{{PID: 1}, {PID: 10, PPID: 1, Start: 7}, {PID: 11, PPID: 10}, {PID: 12, PPID: 11}, {PID: 20, PPID: 1}, {PID: 30, PPID: 10}, {PID: 31, PPID: 30}}
	got, err := descend(procs, []Proc{{PID: 10, Start: 7}}, 30)
	require.NoError(t, err)
	var pids []int
	for _, p := range got {
		pids = append(pids, p.PID)
	}
	assert.Equal(t, []int{10, 11, 12}, pids, "the server and below it, not self (30) and its child")

	_, err = descend(procs, []Proc{{PID: 10, Start: 8}}, 30)
	assert.ErrorContains(t, err, "the server process 10 ended", "its PID is another process's now")
	_, err = descend(procs, []Proc{{PID: 99}}, 30)
	assert.ErrorContains(t, err, "the server process 99 ended")
}

func TestServerOf(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	for raw, want := range map[string]Server{
		"http://127.0.0.1:11434":        {Port: 11434, Local: true},
		"http://localhost":              {Port: 80, Local: true},
		"https://[::1]/":                {Port: 443, Local: true},
		"http://0.0.0.0:8000":           {Port: 8000, Local: true},
		"http://u:p@127.0.0.2:8080/x":   {Port: 8080, Local: true},
		"http://" + host + ":1234":      {Port: 1234, Local: true},
		"http://192.0.2.7:8000":         {Port: 8000, Local: false},
		"https://[2001:db8::1]:30000/v": {Port: 30000, Local: false},
	} {
		got, err := ServerOf(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{"ftp://127.0.0.1", "http://127.0.0.1:0", "http://[::1", "http://127.0.0.1:99999"} {
		_, err := ServerOf(raw)
		assert.Error(t, err, raw)
	}
}
