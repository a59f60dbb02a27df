package runtimes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// splitURL validates a server root and moves any user:pass@ out of it.
func splitURL(raw string) (clean string, user *url.Userinfo, err error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		return "", nil, fmt.Errorf("URL %q: scheme must be http or https (http://host:port)", RedactURL(raw))
	}
	u, err := url.Parse(raw)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		// url.Error repeats the URL, password and all: keep only the cause.
		return "", nil, fmt.Errorf("URL %q: %v", RedactURL(raw), ue.Err)
	}
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return "", nil, fmt.Errorf("URL %q: scheme must be http or https", RedactURL(raw))
	}
	if u.Host == "" {
		return "", nil, fmt.Errorf("URL %q has no host", RedactURL(raw))
	}
	user = u.User
	u.User = nil
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(u.Path, "/v1")
	return u.String(), user, nil
}

// RedactURL returns raw with any password replaced by "xxxxx" and any
// user name dropped, for messages and files. A string that does not parse
// is returned with everything between "://" and "@" removed.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err == nil {
		if u.User == nil {
			return raw
		}
		u.User = url.User("xxxxx")
		return u.String()
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.LastIndex(raw, "@"); j > i {
			return raw[:i+3] + "xxxxx@" + raw[j+1:]
		}
	}
	return raw
}

// redact removes this runtime's secrets from s.
func (rt *Runtime) redact(s string) string {
	if rt.apiKey != "" {
		s = strings.ReplaceAll(s, rt.apiKey, "xxxxx")
	}
	if rt.user != nil {
		if p, ok := rt.user.Password(); ok && p != "" {
			s = strings.ReplaceAll(s, p, "xxxxx")
		}
	}
	return s
}

func bytesReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// ServerKey is the server raw reaches, for telling whether two runtimes'
// URLs reach one server: its scheme, host, port and path (as ParseURL
// cleans it), with the scheme's default port written out, the host in
// lower case, and the names of this machine (localhost, 127.0.0.1, ::1,
// 0.0.0.0) made one. It holds no user:pass. "" for a URL that does not
// parse.
func ServerKey(raw string) string {
	clean, _, err := splitURL(raw)
	if err != nil {
		return ""
	}
	u, err := url.Parse(clean)
	if err != nil {
		return ""
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	switch host {
	case "localhost", "127.0.0.1", "::1", "0.0.0.0", "::":
		host = "loopback"
	}
	return u.Scheme + "://" + host + ":" + port + u.EscapedPath()
}
