package summary

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The facts of the run's files that every reader and writer shares: their
// names, the configuration keys of the benchstat file and what a missing
// one means, and the benchmark names.

// Pkg is the module's path: the pkg configuration line of the benchstat
// file, and the module whose root the tools look for.
const Pkg = "github.com/inferencebench/inferencebench"

// DefaultOutputDir is where a run writes its files when BENCH_OUTPUT_DIR
// is unset, and where the tools look for a run named by its ID.
const DefaultOutputDir = "results"

// outputDirVar is the setting that names the output folder.
const outputDirVar = "BENCH_OUTPUT_DIR"

// OutputDir is the folder a run writes its files to and the tools read a
// run named by its ID from, the one rule for both: outputDirVar as lookup
// finds it (os.LookupEnv), DefaultOutputDir where it is unset. Set but
// blank it names no folder: an error, not the default, so that a run and
// a tool never disagree on where the files are.
func OutputDir(lookup func(string) (string, bool)) (string, error) {
	v, set := lookup(outputDirVar)
	switch {
	case !set || v == "": // empty is unset, as for every variable
		return DefaultOutputDir, nil
	case strings.TrimSpace(v) == "":
		return "", fmt.Errorf("%s is set but names no folder: unset it for %s, or name one", outputDirVar, DefaultOutputDir)
	}
	return v, nil
}

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
)

// WorkloadKeys are the workload keys other than the cache.
var WorkloadKeys = []string{KeyTurns, KeySharedPrefix}

// Absent is what a workload key means in a file without its line, and why:
// a file without a cache line was written before the key existed, and was
// warm; one without turns or shared-prefix ran single requests without a
// prefix. ok is false for other keys.
func Absent(key string) (value, why string, ok bool) {
	switch key {
	case KeyCache:
		return CacheWarm, "no cache line: written before the key existed", true
	case KeyTurns:
		return "1", "no turns line: single requests", true
	case KeySharedPrefix:
		return "0", "no shared-prefix line: none", true
	}
	return "", "", false
}

// The values of the cache key, and of Arguments.Cache.
const (
	CacheCold = "cold"
	CacheWarm = "warm"
)
