package summary

import (
	"path/filepath"
	"strings"

	"github.com/inferencebench/inferencebench/internal/config"
)

// The facts of the run's files that every reader and writer shares: their
// names, the configuration keys of the benchstat file and what a missing
// one means, and the benchmark names.

// Format is the version of the summary JSON's format that Run.File
// writes, its top-level "format" key; files without the key are format 1
// (File.FormatVersion). 2: the key itself, and arguments.preset and
// preset_set. A format only gains keys, never renames or drops one, so a
// reader of any version reads every file, leaving out the keys it does not
// know.
const Format = 2

// Pkg is the module's path: the pkg configuration line of the benchstat
// file, and the module whose root the tools look for.
const Pkg = "github.com/inferencebench/inferencebench"

// The three files of a run in its output folder, each named by the run's
// ID: the summary JSON, the benchstat file, the request records.
const (
	ExtJSON    = ".json"
	ExtBench   = ".txt"
	ExtRecords = ".requests.jsonl"
)

// Paths are the files of run id in dir.
type Paths struct{ JSON, Bench, Records string }

// PathsOf returns the files of run id in dir.
func PathsOf(dir, id string) Paths {
	base := filepath.Join(dir, id)
	return Paths{JSON: base + ExtJSON, Bench: base + ExtBench, Records: base + ExtRecords}
}

// RecordsBeside returns the request records of the summary JSON at path:
// <dir>/<id>.requests.jsonl for <dir>/<id>.json (for a path not ending in
// .json, the records file named by the whole base name).
func RecordsBeside(path string) string {
	return strings.TrimSuffix(path, ExtJSON) + ExtRecords
}

// The configuration keys of the benchstat file that say what work a run's
// requests did (Run.Workload): runs must share them to be compared.
const (
	KeyCache        = "cache"         // cold or warm
	KeyTurns        = "turns"         // BENCH_TURNS, when above 1
	KeySharedPrefix = "shared-prefix" // BENCH_SHARED_PREFIX, when above 0
	KeyImages       = "images"        // BENCH_IMAGES (N@WxH[:jpeg]), when set
	KeyEmbedBatch   = "embed-batch"   // BENCH_EMBED_BATCH of an embeddings run, when above 1
)

// WorkloadKeys are the workload keys other than the cache.
var WorkloadKeys = []string{KeyTurns, KeySharedPrefix, KeyImages, KeyEmbedBatch}

// Absent is what a workload key means in a file without its line, and why:
// a file without a cache line was written before the key existed, and was
// warm; one without turns, shared-prefix or images ran single requests
// without a prefix or images, and one without embed-batch sent one input
// an embeddings request (or no embeddings). ok is false for other keys.
func Absent(key string) (value, why string, ok bool) {
	switch key {
	case KeyCache:
		return config.CacheWarm, "no cache line: written before the key existed", true
	case KeyTurns:
		return "1", "no turns line: single requests", true
	case KeySharedPrefix:
		return "0", "no shared-prefix line: none", true
	case KeyImages:
		return "none", "no images line: none", true
	case KeyEmbedBatch:
		return "1", "no embed-batch line: one input a request", true
	}
	return "", "", false
}
