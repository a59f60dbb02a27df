package runtimes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// URLs that reach one server have one key, whatever their spelling; the
// key holds no password.
func TestServerKey(t *testing.T) {
	same := []string{
		"http://127.0.0.1:8080",
		"http://localhost:8080/",
		"HTTP://LOCALHOST:8080/v1",
		"http://user:secret@[::1]:8080",
		"http://0.0.0.0:8080/v1/",
	}
	for _, u := range same {
		assert.Equal(t, "http://loopback:8080", ServerKey(u), u)
	}
	assert.Equal(t, ServerKey("http://gpu-box"), ServerKey("http://GPU-box:80/"), "the default port written out")
	assert.Equal(t, ServerKey("https://gpu-box"), ServerKey("https://gpu-box:443"))
	for _, other := range []string{"http://127.0.0.1:8081", "https://127.0.0.1:8080", "http://127.0.0.1:8080/proxy", "http://10.0.0.2:8080"} {
		assert.NotEqual(t, ServerKey(same[0]), ServerKey(other), other)
	}
	assert.Empty(t, ServerKey("127.0.0.1:8080"), "no scheme: no key")
	assert.NotContains(t, ServerKey("http://user:secret@gpu-box:8000"), "secret")
}
