// Command e2echeck holds the Go side of scripts/e2e-ollama.sh, the
// end-to-end run against a real Ollama server:
//
//	e2echeck freeport
//	    prints a free TCP port on 127.0.0.1
//	e2echeck wait -url URL [-pid PID] [-timeout 60s]
//	    waits until GET URL/api/version answers 200 (or process PID exits)
//	e2echeck summary -json FILE -runtimes ollama,ollama-v1 -version 0.6.5 …
//	    checks the summary JSON of a suite run
//	e2echeck accuracy -url URL -model NAME …
//	    client against server on the same requests: our client-side decode
//	    rate against the server's eval rate, our TTFT against the server's
//	    prompt evaluation time, and the exact output token count, through
//	    the suite's own runtimes package
//	e2echeck peer -url URL -model NAME -bench BIN …
//	    our decode rate against Ollama's own benchmark tool (cmd/bench),
//	    interleaved on the same server
//
// Every check prints what it measured. A failed check prints a line
// starting "e2echeck: FAIL:" and the command exits with status 1; a usage
// error exits with status 2.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	var err error
	switch cmd {
	case "freeport":
		err = freePort()
	case "wait":
		err = waitCmd(args)
	case "summary":
		err = summaryCmd(args)
	case "accuracy":
		err = accuracyCmd(args)
	case "peer":
		err = peerCmd(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2echeck:", cmd+":", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: e2echeck freeport | wait | summary | accuracy | peer [flags]  (-h after a subcommand lists its flags)")
	os.Exit(2)
}

// failures collects the checks that failed, so that one run reports all.
type failures []string

func (f *failures) add(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Println("e2echeck: FAIL: " + msg)
	*f = append(*f, msg)
}

func (f failures) err() error {
	if len(f) == 0 {
		return nil
	}
	return fmt.Errorf("%d check(s) failed, the first: %s", len(f), f[0])
}

func freePort() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer l.Close()
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	return nil
}

func waitCmd(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ExitOnError)
	url := fs.String("url", "", "server root, e.g. http://127.0.0.1:11434")
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait")
	pid := fs.Int("pid", 0, "the server's process: stop waiting when it has exited")
	fs.Parse(args)
	if *url == "" {
		return fmt.Errorf("-url is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, *url+"/api/version", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		last = err
		if *pid > 0 && syscall.Kill(*pid, 0) != nil {
			return fmt.Errorf("the server (pid %d) exited before %s/api/version answered", *pid, *url)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s/api/version did not answer within %v: %v", *url, *timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ints parses "1,4".
func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a comma list of integers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// names parses "a,b", dropping empty entries.
func names(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
