package summary

import "strings"

// TidyVersion makes a server's version text (a value of the summary's
// versions) fit a line or a table cell: its last non-empty line (the
// seed's vLLM version came after pages of log lines), without the
// "ollama version is " of `ollama --version`.
func TidyVersion(v string) string {
	lines := strings.Split(strings.TrimSpace(v), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if i := strings.Index(last, "version is "); i >= 0 {
		last = strings.TrimSpace(last[i+len("version is "):])
	}
	return last
}

// VersionOf is runtime's version in f, tidied, or "" where unknown.
func (f *File) VersionOf(runtime string) string {
	if v := f.Versions[runtime]; v != nil {
		return TidyVersion(*v)
	}
	return ""
}
