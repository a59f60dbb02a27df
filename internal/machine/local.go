package machine

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// resolveTimeout bounds the lookup of a server's host name.
const resolveTimeout = 2 * time.Second

// Server is where a server's URL points: its TCP port, and whether its
// host is this machine (then its processes can be found by the port).
type Server struct {
	Port  int
	Local bool
}

// ServerOf reads a server's root URL: its port (its own, or 80 or 443 by
// its scheme) and whether its host is this machine: a loopback or
// unspecified address, "localhost", the machine's host name, an address of
// one of its interfaces, or a name that resolves to only such addresses.
func ServerOf(raw string) (Server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Server{}, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 {
		return Server{}, fmt.Errorf("%q has no TCP port", raw)
	}
	return Server{Port: n, Local: isLocal(u.Hostname())}, nil
}

func isLocal(host string) bool {
	if host == "" || strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	if name, err := os.Hostname(); err == nil && strings.EqualFold(host, name) {
		return true
	}
	own := ownAddrs()
	if ip := net.ParseIP(host); ip != nil {
		return localIP(ip, own)
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !localIP(a.IP, own) {
			return false
		}
	}
	return true
}

// localIP reports whether ip is this machine's: loopback, unspecified, or
// one of own.
func localIP(ip net.IP, own []net.IP) bool {
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	for _, o := range own {
		if o.Equal(ip) {
			return true
		}
	}
	return false
}

// ownAddrs are the addresses of the machine's interfaces.
func ownAddrs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}
