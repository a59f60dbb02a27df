package summary

import (
	"strconv"
	"strings"
)

// ImagesOf reads Arguments.Images ("2@512x512", "1@64x64:jpeg"): the
// images a request sent and their size, "WxH"; 0 and "" for none or a
// value it cannot read.
func ImagesOf(spec string) (n int, size string) {
	count, rest, ok := strings.Cut(spec, "@")
	if !ok {
		return 0, ""
	}
	size, _, _ = strings.Cut(rest, ":")
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 || size == "" {
		return 0, ""
	}
	return n, size
}
