//go:build timing

package runtimes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The start against a server of 4 HTTP threads takes what its few local
// GETs take (0.02 s here), not a metadata request's timeout (3 s) while a
// connection waits for a thread.
func TestStartFewHTTPThreadsTime(t *testing.T) {
	for range 5 {
		_, took := startFewThreads(t)
		assert.Less(t, took, time.Second, "found and described in %v", took)
	}
}
