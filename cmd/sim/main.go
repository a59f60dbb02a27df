package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envvar"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitFail  = 1 // the server could not start (its port is taken, say)
	exitUsage = 2 // a flag or variable refused, before serving
)

// aliases are the short names of some settings' flags, beside their own.
var aliases = map[string]string{"SIM_TOKENS_PER_SEC": "tps"}

// flagName is the flag of the variable v: SIM_TOKENS_PER_SEC is
// -tokens-per-sec.
func flagName(v string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(v, "SIM_"), "_", "-"))
}

// setting is a flag's value: it records the value given, as written, for
// its variable.
type setting struct {
	v    sim.Setting
	name string // the flag as given, for messages
	set  map[string]string
	from map[string]string
}

func (s *setting) String() string   { return "" }
func (s *setting) IsBoolFlag() bool { return s.v.Bool }
func (s *setting) Set(value string) error {
	s.set[s.v.Var] = value
	s.from[s.v.Var] = "-" + s.name
	return nil
}

// run is the command: it serves until ctx is done and returns the exit
// status.
func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	cfg, addr, err := parse(args, environ)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stderr)
		return 0
	case err != nil:
		for l := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintf(stderr, "sim: %s\n", l)
		}
		fmt.Fprintln(stderr, "sim: go run ./cmd/sim -h lists the settings")
		return exitUsage
	}
	s, err := sim.StartAt(cfg, addr)
	if err != nil {
		fmt.Fprintf(stderr, "sim: %v\n", err)
		return exitFail
	}
	// What it plays first, then the URL: one who has read the URL has
	// the line on stderr too.
	fmt.Fprintf(stderr, "sim: serving %s at %s until interrupted\n", describe(cfg), s.URL)
	fmt.Fprintln(stdout, s.URL)
	<-ctx.Done()
	s.Close()
	fmt.Fprintf(stderr, "sim: stopped serving at %s\n", s.URL)
	return 0
}

// describe says what the server plays, for its start line: "flavor ollama,
// version 0.7.0, 50ms TTFT, 400 tok/s".
func describe(cfg sim.Config) string {
	flavor, version := string(cfg.Flavor), cfg.Version
	if flavor == "" {
		flavor = string(sim.FlavorVLLM)
	}
	switch {
	case flavor == string(sim.FlavorLMStudio):
		version = "none stated"
	case version == "" && flavor == string(sim.FlavorMLX):
		version = sim.MLXVersion
	case version == "":
		version = sim.Version
	}
	return fmt.Sprintf("flavor %s, version %s, %v TTFT, %s tok/s", flavor, version, cfg.TTFT, strconv.FormatFloat(cfg.TokensPerSec, 'g', -1, 64))
}

// parse reads the flags over the SIM_ variables of environ, the flags
// winning, into the simulator's Config and the address to serve on. An
// error names each flag or variable refused and its value.
func parse(args, environ []string) (sim.Config, string, error) {
	set, from := map[string]string{}, map[string]string{}
	if err := checkEnv(environ, set, from); err != nil {
		return sim.Config{}, "", err
	}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	port := fs.Int("port", 0, "")
	for _, v := range sim.Settings() {
		fs.Var(&setting{v: v, name: flagName(v.Var), set: set, from: from}, flagName(v.Var), "")
		if a, ok := aliases[v.Var]; ok {
			fs.Var(&setting{v: v, name: a, set: set, from: from}, a, "")
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return sim.Config{}, "", err
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			return sim.Config{}, "", unknownFlag(name)
		}
		return sim.Config{}, "", err
	}
	if fs.NArg() > 0 {
		return sim.Config{}, "", fmt.Errorf("unexpected argument %q: the settings are flags (-flavor mlx)", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return sim.Config{}, "", fmt.Errorf("-port %d: want a port from 1 to 65535, or 0 for a free one", *port)
	}
	cfg, err := config.LoadSimFrom(set)
	if err != nil {
		return sim.Config{}, "", sourced(err, from)
	}
	return cfg, "127.0.0.1:" + strconv.Itoa(*port), nil
}

// checkEnv puts the simulator's variables of environ in set, and refuses
// a SIM_ variable that is neither one of them nor one the suite reads for
// its built-in simulator (SIM_URL, SIM_KIND, …), naming the closest.
func checkEnv(environ []string, set, from map[string]string) error {
	vars := config.SimVariables()
	suites := config.RuntimeVariables(config.Sim)
	var errs []error
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case !strings.HasPrefix(k, "SIM_") || v == "":
		case slices.Contains(vars, k):
			set[k], from[k] = v, "the environment"
		case slices.Contains(suites, k):
		default:
			if near, d := envvar.Closest(k, vars); d >= 0 && d <= 3 {
				errs = append(errs, fmt.Errorf("%s is not a setting of the simulator: did you mean %s?", k, near))
			} else {
				errs = append(errs, fmt.Errorf("%s is not a setting of the simulator", k))
			}
		}
	}
	return errors.Join(errs...)
}

// unknownFlag is the error for -name, which is no flag, naming the
// closest flag.
func unknownFlag(name string) error {
	names := []string{"port"}
	for _, v := range sim.Settings() {
		names = append(names, flagName(v.Var))
	}
	for _, a := range aliases {
		names = append(names, a)
	}
	if near, d := envvar.Closest(name, names); d >= 0 && d <= 3 {
		return fmt.Errorf("unknown flag -%s: did you mean -%s?", name, near)
	}
	return fmt.Errorf("unknown flag -%s", name)
}

var varOf = regexp.MustCompile(`^(SIM_[A-Z0-9_]+)=`)

// sourced adds to each of err's lines that begins with a variable where
// its value came from: a flag or the environment.
func sourced(err error, from map[string]string) error {
	var lines []string
	for l := range strings.SplitSeq(err.Error(), "\n") {
		if m := varOf.FindStringSubmatch(l); m != nil && from[m[1]] != "" {
			l += " (from " + from[m[1]] + ")"
		}
		lines = append(lines, l)
	}
	return errors.New(strings.Join(lines, "\n"))
}

// usage prints the flags with their variables and defaults.
func usage(w io.Writer) {
	fmt.Fprint(w, `usage: go run ./cmd/sim [-port N] [-flavor F] [-version V] [flags]

Serves the suite's simulator on 127.0.0.1, prints its URL on stdout and
serves until interrupted (SIGINT or SIGTERM). Each flag but -port is a
SIM_ variable too, read from the environment; a flag wins over its
variable. The manual: go doc ./cmd/sim; each setting: go doc ./runtimes/sim.

  -port N
        the port to serve on, on 127.0.0.1 (default 0: a free one)
`)
	for _, v := range sim.Settings() {
		name := "-" + flagName(v.Var)
		if a, ok := aliases[v.Var]; ok {
			name += ", -" + a
		}
		if !v.Bool {
			name += " VALUE"
		}
		def := v.Default
		if strings.HasPrefix(def, "(") && strings.HasSuffix(def, ")") {
			def = def[1 : len(def)-1]
		}
		fmt.Fprintf(w, "  %s\n        %s\n        %s, default %s\n", name, v.Usage, v.Var, def)
	}
}
