#!/usr/bin/env bash
# compare.sh compares saved benchmark runs with benchstat (go tool benchstat,
# from go.mod's tool directive).
#
#   scripts/compare.sh OLD NEW   old against new: each benchmark's median in
#                                both runs, the change, and its p-value
#   scripts/compare.sh RUN       one run's runtimes side by side
#                                (benchstat -col /runtime); the first
#                                runtime is the base
#
# OLD, NEW and RUN are run IDs (20261202T113718Z, read from
# $BENCH_OUTPUT_DIR/<id>.txt, default results/, a relative folder being taken
# from the repository root, where go test writes it) or paths of benchstat
# files (results/<id>.txt, or saved go test -bench output).
#
# Exit status: benchstat's; 1 if a run's file is missing; 2 for a usage error.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: scripts/compare.sh OLD NEW    compare two runs (old vs new, with significance)
       scripts/compare.sh RUN        one run's runtimes side by side (-col /runtime)

OLD, NEW, RUN: a run ID (read from ${BENCH_OUTPUT_DIR:-results}/<id>.txt) or a file path.
EOF
}

case "${1-}" in
-h | --help | help)
  usage
  exit 0
  ;;
esac
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  usage
  exit 2
fi
for arg in "$@"; do
  case "$arg" in
  '' | -*)
    echo "compare.sh: bad argument \"$arg\": want a run ID or a file" >&2
    usage
    exit 2
    ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
outdir=${BENCH_OUTPUT_DIR:-results}
case "$outdir" in
/*) ;;
*) outdir="$root/$outdir" ;;
esac

# resolve ARG prints the file to give benchstat: ARG if it is a file, else
# the run ID's file; relative to the repository root where it lies inside,
# since benchstat labels its columns with the names it is given.
resolve() {
  local arg=$1 path
  if [ -f "$arg" ]; then
    path=$(cd "$(dirname "$arg")" && pwd -P)/$(basename "$arg")
  elif [ -e "$arg" ]; then
    echo "compare.sh: $arg is not a file" >&2
    return 1
  elif [[ "$arg" == */* || "$arg" == *.* ]]; then
    echo "compare.sh: no such file: $arg" >&2
    return 1
  elif [ -f "$outdir/$arg.txt" ]; then
    path=$(cd "$outdir" && pwd -P)/$arg.txt
  else
    echo "compare.sh: no run $arg: there is no $outdir/$arg.txt (BENCH_OUTPUT_DIR=${BENCH_OUTPUT_DIR:-results})" >&2
    return 1
  fi
  case "$path" in
  "$root"/*) path=${path#"$root"/} ;;
  esac
  printf '%s\n' "$path"
}

old=$(resolve "$1") || exit 1
if [ $# -eq 2 ]; then
  new=$(resolve "$2") || exit 1
fi

cd "$root"
if [ $# -eq 2 ]; then
  exec go tool benchstat "$old" "$new"
fi
exec go tool benchstat -col /runtime "$old"
