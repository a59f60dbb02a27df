package suitetest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// simDocs are the docs whose examples run the suite against simulators
// that cmd/sim serves.
var simDocs = []string{"docs/simulator.md", "docs/comparing.md", "docs/report-example/README.md"}

// shCommands are the commands of the ```sh blocks of a markdown text, in
// order: lines continued with "\" joined, comments ("  # …") and a
// trailing "&" cut.
func shCommands(text string) []string {
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		joined := strings.ReplaceAll(block[1], "\\\n", " ")
		for line := range strings.SplitSeq(joined, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "&"))
			if line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// A served simulator a doc started.
type docSim struct {
	cmd     *exec.Cmd
	url     string // where it serves
	version string // the version the suite records for it
}

var docPort = regexp.MustCompile(`-port[= ](\d+)`)

// simBuild is a doc's go build of cmd/sim to a path, whose commands then
// start it.
var simBuild = regexp.MustCompile(`^go build -o (\S+) \./cmd/sim$`)

// The docs' examples with simulators run as written: every command of
// their ```sh blocks that starts cmd/sim (go run ./cmd/sim …, or the
// binary a "go build -o PATH ./cmd/sim" before it made) serves, and
// the suite, run as the docs run it against them (go test … -bench …
// with a NAME_URL of a local port; shorter: one
// round of short replies, no control leaf), benchmarks the runtimes it
// names on them, records each one's version as the simulator states it,
// and has rows for each, without a failure. A simulator a doc starts again
// on the same port (an "upgrade") replaces the one there, and the last
// run is made again against it. The ports the docs name are served on
// free ones, the URLs mapped.
func TestDocsSimulatorCommandsRun(t *testing.T) {
	envtest.Clean(t)
	bin := filepath.Join(t.TempDir(), "sim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sim")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/sim: %s", out)

	for _, doc := range simDocs {
		t.Run(doc, func(t *testing.T) {
			b, err := os.ReadFile(at(doc))
			require.NoError(t, err)
			sims := map[string]*docSim{} // by the doc's URL
			t.Cleanup(func() {
				for _, s := range sims {
					stopDocSim(t, s)
				}
			})
			var last []string // the last suite command
			runs, started, since := 0, 0, false
			built := "" // where a doc's go build -o put cmd/sim
			for _, c := range shCommands(string(b)) {
				starts := strings.HasPrefix(c, "go run ./cmd/sim")
				if m := simBuild.FindStringSubmatch(c); m != nil {
					built = m[1]
					continue
				}
				prog, rest, _ := strings.Cut(c, " ")
				if built != "" && prog == built {
					starts, c = true, "go run ./cmd/sim "+rest
				}
				switch {
				case starts:
					args := strings.Fields(strings.TrimPrefix(c, "go run ./cmd/sim"))
					m := docPort.FindStringSubmatch(c)
					require.NotNil(t, m, "%s: %q names no -port, so a later command cannot name its URL", doc, c)
					url := "http://127.0.0.1:" + m[1]
					if s := sims[url]; s != nil {
						stopDocSim(t, s)
					}
					sims[url] = startDocSim(t, bin, args)
					started++
					since = true
				case started > 0 && strings.Contains(c, "go test") && strings.Contains(c, "-bench") && strings.Contains(c, "_URL=http://127.0.0.1:"):
					// (The suite runs of a doc before its first simulator
					// are against real servers.)
					last = strings.Fields(c)
					runDocSuite(t, doc, last, sims)
					runs++
					since = false
				}
			}
			t.Logf("%s: %d simulators started, %d suite runs", doc, started, runs)
			require.Positive(t, started, "%s starts no simulator with go run ./cmd/sim", doc)
			require.Positive(t, runs, "%s runs no suite", doc)
			if since {
				runDocSuite(t, doc, last, sims)
			}
		})
	}
}

// startDocSim starts the built cmd/sim with a doc's arguments, on a free
// port, and returns once it printed its URL.
func startDocSim(t *testing.T, bin string, args []string) *docSim {
	t.Helper()
	args = slices.Clone(args)
	for i, a := range args {
		switch {
		case a == "-port" && i+1 < len(args):
			args[i+1] = "0"
		case strings.HasPrefix(a, "-port="):
			args[i] = "-port=0"
		}
	}
	cfg, err := simConfigOf(args)
	require.NoError(t, err, "%v", args)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard // what it plays; its refusals would show as no URL
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "cmd/sim %v printed no URL", args)
	s := &docSim{cmd: cmd, url: strings.TrimSpace(line), version: cmp(cfg.Version, sim.Version)}
	if cfg.Flavor == sim.FlavorMLX {
		s.version = cmp(cfg.Version, sim.MLXVersion) + " (mlx 0.32.4)"
	}
	return s
}

func cmp(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// simConfigOf reads the flags -flavor and -version of args, as cmd/sim
// does (it reads the others too: they do not change what the suite
// records).
func simConfigOf(args []string) (sim.Config, error) {
	env := map[string]string{}
	for i, a := range args {
		for _, name := range []string{"flavor", "version"} {
			switch {
			case a == "-"+name && i+1 < len(args):
				env["SIM_"+strings.ToUpper(name)] = args[i+1]
			case strings.HasPrefix(a, "-"+name+"="):
				env["SIM_"+strings.ToUpper(name)] = strings.TrimPrefix(a, "-"+name+"=")
			}
		}
	}
	return config.LoadSimFrom(env)
}

// stopDocSim interrupts a simulator, which must exit 0.
func stopDocSim(t *testing.T, s *docSim) {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "cmd/sim exits 0 when interrupted")
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		t.Errorf("cmd/sim at %s did not exit within 10 s of SIGINT", s.url)
	}
}

// runDocSuite runs a doc's suite command (VAR=value … go test … .) as the
// suite's test binary's benchmarks, its URLs those of the simulators started, in
// a folder of its own, and checks the run's summary.
func runDocSuite(t *testing.T, doc string, words []string, sims map[string]*docSim) {
	t.Helper()
	env := map[string]string{}
	i := 0
	for ; i < len(words) && words[i] != "go"; i++ {
		k, v, ok := strings.Cut(words[i], "=")
		require.True(t, ok, "%s: %q before go test is not VAR=value", doc, words[i])
		env[k] = v
	}
	require.Equal(t, []string{"go", "test"}, words[i:i+2], "%s: %v", doc, words)
	versions := map[string]string{} // by runtime, of the simulators named
	for k, v := range env {
		for url, s := range sims {
			if v == url {
				env[k] = s.url
				versions[strings.ToLower(strings.TrimSuffix(k, "_URL"))] = s.version
			}
		}
		require.NotContains(t, env[k], "<", "%s: %s=%s is a placeholder, not a value", doc, k, v)
	}
	out := t.TempDir()
	// Shorter than the docs' runs: one round a leaf of short replies, one
	// warm-up, no control leaf.
	env["BENCH_OUTPUT_DIR"], env["BENCH_PROGRESS"], env["BENCH_CONTROL"] = out, "off", "off"
	env["BENCH_MAX_TOKENS"], env["BENCH_WARMUPS"] = "16", "1"
	cmd := suiteCommand(t, "-test.run=^$", "-test.bench=.", "-test.benchtime=1x", "-test.count=1")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s: the suite with %v:\n%s", doc, env, output)

	files, err := filepath.Glob(filepath.Join(out, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, "%s: one summary", doc)
	f, err := summary.Read(files[0])
	require.NoError(t, err)
	names := strings.Split(env["BENCH_RUNTIMES"], ",")
	var got []string
	for _, r := range f.Runtimes {
		got = append(got, r.Name)
	}
	assert.Equal(t, names, got, "%s: the runtimes named", doc)
	for _, name := range names {
		want, ok := versions[name]
		if name == "sim" {
			want, ok = sim.Version, true
		}
		if assert.True(t, ok, "%s: %s runs on no simulator the doc started", doc, name) && assert.NotNil(t, f.Versions[name], "%s: %s's version", doc, name) {
			assert.Equal(t, want, *f.Versions[name], "%s: %s's version", doc, name)
		}
		var concs []int
		for _, row := range f.Summary {
			if row.Runtime != name {
				continue
			}
			assert.Positive(t, row.Successes, "%s: %s %s conc %d", doc, name, row.Prompt, row.Concurrency)
			assert.Zero(t, row.Failures, "%s: %s %s conc %d: %v", doc, name, row.Prompt, row.Concurrency, row.Errors)
			concs = append(concs, row.Concurrency)
		}
		assert.NotEmpty(t, concs, "%s: no row of %s", doc, name)
		if list, ok := env["BENCH_CONCURRENCY"]; ok && !strings.Contains(list, ":") {
			for c := range strings.SplitSeq(list, ",") {
				n, _ := strconv.Atoi(c)
				assert.Contains(t, concs, n, "%s: %s at concurrency %d", doc, name, n)
			}
		}
	}
}

// A doc never starts go run ./cmd/sim in the background: kill %1 (or a
// script's end) stops go run, not the simulator it started, which goes on
// serving on its port. A doc builds it (go build -o /tmp/sim ./cmd/sim)
// and starts the binary instead, or runs it in a terminal of its own.
func TestDocsNoBackgroundGoRun(t *testing.T) {
	bg := regexp.MustCompile(`(?m)^\s*(//\s*)?go run \./cmd/sim\b[^\n#]*&\s*(#.*)?$`)
	var files []string
	for _, glob := range []string{"README.md", "docs/*.md", "docs/*/*.md", "cmd/*/*.go", "scripts/*"} {
		m, err := filepath.Glob(at(glob))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bg.FindAllString(string(b), -1) {
			t.Errorf("%s: %q: go run's child outlives kill %%1: build cmd/sim (go build -o /tmp/sim ./cmd/sim) and start the binary", f, strings.TrimSpace(line))
		}
	}
}
