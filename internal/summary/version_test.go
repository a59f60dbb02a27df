package summary

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTidyVersion(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "0.32.14", TidyVersion("ollama version is 0.32.14"))
	assert.Equal(t, "0.28.0+cpu", TidyVersion("INFO 08-31 [__init__.py:52] plugins\nINFO more\n0.28.0+cpu\n"))
	assert.Equal(t, "b5123", TidyVersion("b5123"))

	v := "0.6.5"
	f := &File{Versions: map[string]*string{"ollama": &v, "lmstudio": nil}}
	assert.Equal(t, "0.6.5", f.VersionOf("ollama"))
	assert.Equal(t, "", f.VersionOf("lmstudio"), "null: unknown")
	assert.Equal(t, "", f.VersionOf("vllm"), "absent: unknown")
}
