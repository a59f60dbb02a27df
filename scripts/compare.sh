#!/usr/bin/env bash
# compare.sh compares saved benchmark runs with go tool benchstat, after
# checking that the comparison would compare something, and ends with the
# verdict: the figures that moved beyond noise. It runs cmd/compare, whose
# manual is `go doc ./cmd/compare`.
#
#   scripts/compare.sh OLD NEW   old against new: each benchmark's median in
#                                both runs, the change, and its p-value
#   scripts/compare.sh RUN       one run's runtimes side by side
#                                (benchstat -col /runtime)
#   scripts/compare.sh -list     the runs there are: date, host, runtimes
#                                and their versions
#
# OLD, NEW and RUN are run IDs (read from ${BENCH_OUTPUT_DIR:-results}/<id>.txt,
# a relative folder being taken from the repository root), paths, relative
# ones taken from the folder this is run from, or NAME@VERSION, the newest
# run of runtime NAME at VERSION: scripts/compare.sh ollama@0.6.5 ollama@0.7.0
# compares ollama's figures before and after an upgrade.
#
# Exit status: benchstat's; 3 if there is no verdict (fewer than 6 samples,
# or a run whose control drifted); 1 if a run is missing or would compare
# nothing; 2 for a usage error. (go run would turn every failure into 1, so
# this builds the program and runs it.)
set -euo pipefail

here=$PWD
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cd "$root"
go build -o "$bin/compare" ./cmd/compare
status=0
"$bin/compare" -dir "$here" "$@" || status=$?
exit "$status"
