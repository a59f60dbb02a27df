package config

import (
	"fmt"
	"strings"
)

// DefaultOutputDir is where a run writes its files when BENCH_OUTPUT_DIR
// is unset, and where the tools look for a run named by its ID.
const DefaultOutputDir = "results"

// outputDirVar is the setting that names the output folder.
var outputDirVar = Var("OutputDir")

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

// The BENCH_CACHE modes: Settings.Cache, the summary's arguments.cache
// and the benchstat file's cache line.
const (
	CacheCold = "cold"
	CacheWarm = "warm"
)
