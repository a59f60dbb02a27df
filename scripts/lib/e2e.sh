# shellcheck shell=bash
# tmp, bench_env and e2e_env are the sourcing script's:
# shellcheck disable=SC2154
# What the end-to-end scripts (scripts/e2e-*.sh) share: log lines, phases
# and their times, jobs in process groups of their own that a trap can
# stop, and running a live test of internal/e2e. Source it after setting
# E2E_NAME (the name in log lines) and tmp (the run's temporary folder).
#
# Job control: every background job gets its own process group, so that
# stopping one stops its children too (a server's workers, go test's test
# binary). Whatever takes time runs as such a job that the script waits
# for (job, run and pause below), never in the foreground: then Ctrl-C
# reaches the script and its trap rather than only the command (a
# foreground job would get the terminal, and bash would go on with the next
# line), and a TERM is handled at once, not after the command.
set -m

log() { printf '%s: %s\n' "$E2E_NAME" "$*"; }
die() {
  printf '%s: FAIL: %s\n' "$E2E_NAME" "$*" >&2
  exit 1
}

# --- phases and their times -------------------------------------------------

phase_name=
phase_start=0
times=()
phase() {
  end_phase
  phase_name=$1
  phase_start=$(date +%s)
  printf '\n== %s\n' "$1"
}
end_phase() {
  if [ -n "$phase_name" ]; then
    times+=("$(printf '%-30s %4d s' "$phase_name" $(($(date +%s) - phase_start)))")
    phase_name=
  fi
}
print_times() {
  if [ ${#times[@]} -gt 0 ]; then
    printf '\n== phase times\n'
    printf '  %s\n' "${times[@]}"
  fi
}

# --- what was started, and stopping it ---------------------------------------

job_pgid=
job_pgids=() # every job's, for the check that nothing is left

# stop_group PGID: TERM the process group, then KILL what is left after 10 s.
stop_group() {
  local g=$1
  kill -TERM -- "-$g" 2>/dev/null || return 0
  for _ in $(seq 100); do
    pgrep -g "$g" >/dev/null 2>&1 || break
    sleep 0.1
  done
  if pgrep -g "$g" >/dev/null 2>&1; then
    log "process group $g did not stop on TERM within 10 s; killing it"
    kill -KILL -- "-$g" 2>/dev/null || true
    sleep 0.5
  fi
  wait "$g" 2>/dev/null || true
}

# left_behind PGID...: the processes still in those groups, or with the
# run's temporary folder on their command line, one pid a line.
left_behind() {
  (for g in "$@" "${job_pgids[@]}"; do pgrep -g "$g"; done; pgrep -f "$tmp") 2>/dev/null | sort -u
}

# job CMD...: runs CMD (a command or a function) as a job of its own, in its
# own process group, which the trap stops on an interrupt; returns CMD's
# status. Redirections of the call apply to CMD.
job() {
  local rc=0
  "$@" &
  job_pgid=$!
  job_pgids+=("$job_pgid")
  wait "$job_pgid" || rc=$?
  job_pgid=
  return "$rc"
}

# run LOG CMD...: job CMD, its output shown and kept in LOG.
run() {
  local out=$1
  shift
  job tee_to "$out" "$@"
}
tee_to() {
  local out=$1
  shift
  "$@" 2>&1 | tee "$out"
}

# install_missing [PACKAGE...]: installs the Debian packages named, with
# apt-get as root, or fails naming them; nothing when none is named.
install_missing() {
  [ $# -gt 0 ] || return 0
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    log "installing $*"
    job apt-get update -qq
    job env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    die "missing tools; install these packages (Debian names): $*"
  fi
}

# pause SECONDS: sleep as a job, so that Ctrl-C reaches the trap.
pause() {
  sleep "$1" &
  wait "$!"
}

# None of the caller's BENCH_* or E2E_* variables may change a suite run
# or a check: each gets the settings the script gives it, and the defaults
# for the rest. caller_env holds the env -u arguments that drop them.
caller_env=()
while IFS= read -r v; do caller_env+=(-u "$v"); done < <(compgen -e | grep -E '^(BENCH|E2E)_')

# e2e_test TEST LOG WHAT: runs the live test TEST of internal/e2e with the
# settings in the array e2e_env, its output shown and kept in LOG; if it
# fails, the FAIL line names the tests that failed (the innermost:
# TestSummary/JSON rather than TestSummary too).
e2e_test() {
  local failed
  run "$2" env "${caller_env[@]}" "${e2e_env[@]}" go test -tags e2e -count=1 -v -timeout=20m -run "^$1\$" ./internal/e2e/ && return
  failed=$(sed -n -E 's/^ *--- FAIL: ([^ ]+).*/\1/p' "$2" | awk '
    { name[NR] = $0 }
    END {
      for (i = 1; i <= NR; i++) {
        inner = 1
        for (j = 1; j <= NR; j++) if (index(name[j], name[i] "/") == 1) inner = 0
        if (inner) out = out (out == "" ? "" : " ") name[i]
      }
      print out
    }')
  die "$3: ${failed:-$1} failed (see its messages above)"
}

# figures LOG...: the live tests' t.Logf lines of LOG, without go test's
# "    file_test.go:NN: " and its === / --- lines.
figures() {
  sed -n -E '/^ +[A-Za-z0-9_]+_test\.go:[0-9]+: /{s/^ +[A-Za-z0-9_]+_test\.go:[0-9]+: //;s/^/  /;p;}' "$@"
}

# suite NAME BENCH BENCHTIME COUNT [SETTING=VALUE...]: one run of the
# suite, go test -bench=BENCH -benchtime=BENCHTIME -count=COUNT, with the
# settings of the array bench_env and then these (a later one wins), none
# of the variables named in the array suite_unset, its files in
# $tmp/results-NAME and its output shown and kept in $tmp/suite-NAME.log.
# Sets json to the summary JSON it wrote, and txt to the .txt.
suite_unset=()
suite() {
  local name=$1 bench=$2 benchtime=$3 count=$4 dir=$tmp/results-$1 f
  shift 4
  mkdir -p "$dir"
  run "$tmp/suite-$name.log" env "${caller_env[@]}" "${suite_unset[@]}" \
    "${bench_env[@]}" BENCH_OUTPUT_DIR="$dir" "$@" \
    go test -run='^$' -bench="$bench" -benchtime="$benchtime" -count="$count" -timeout=30m . ||
    die "the $name suite run failed (see above)"
  json='' txt=''
  for f in "$dir"/*.json; do [ -f "$f" ] && json=$f; done
  for f in "$dir"/*.txt; do [ -f "$f" ] && txt=$f; done
  if [ -z "$json" ] || [ -z "$txt" ]; then
    die "the $name suite run wrote no summary JSON and .txt to $dir"
  fi
}

# refused NAME WANT [SETTING=VALUE...]: a run of the suite (-benchtime=1x
# -count=1) with the settings of bench_env and then these, which must be
# refused before any request: it fails, exit 2, its output (kept in
# $tmp/suite-NAME.log) says WANT, and it wrote nothing to
# $tmp/results-NAME.
refused() {
  local name=$1 want=$2 out=$tmp/suite-$1.log dir=$tmp/results-$1
  shift 2
  if job env "${caller_env[@]}" "${suite_unset[@]}" "${bench_env[@]}" BENCH_OUTPUT_DIR="$dir" "$@" \
    go test -run='^$' -bench=. -benchtime=1x -count=1 -timeout=10m . >"$out" 2>&1; then
    die "the $name run passed; it must be refused (\"$want\")"
  fi
  { grep -F "$want" "$out" || true; } | head -n 2 | sed 's/^/  | /'
  grep -qF "$want" "$out" || die "the $name run was not refused with \"$want\" (see $out)"
  grep -q 'exit status 2' "$out" || die "the $name run did not exit 2 (see $out)"
  if [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "the refused $name run wrote files to $dir; it must stop before any request"
  fi
  log "$name: refused before any request, exit 2"
}

# --- the server's memory against ps -------------------------------------------

# port_pids PORT: the pids of the processes listening on TCP PORT and of
# their descendants (as internal/machine counts a server: Ollama's runner,
# vLLM's engine core), one a line; nothing if none listens.
port_pids() {
  local port=$1 top
  if command -v ss >/dev/null; then
    top=$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)
  else
    top=$(lsof -nP -t -iTCP:"$port" -sTCP:LISTEN | sort -u)
  fi
  [ -n "$top" ] || return 0
  ps -e -o pid=,ppid= | awk -v top="$top" '
    BEGIN { n = split(top, t, "\n"); for (i = 1; i <= n; i++) keep[t[i]] = 1 }
    { parent[$1] = $2 }
    END {
      do { grew = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } } while (grew)
      for (p in keep) print p
    }' | sort -n
}

# check_server_memory NAME PORT SUMMARY RUNTIME: the server's resident
# memory in SUMMARY (the last leaf run of RUNTIME's last row with
# server_rss_bytes) must be within 5% of what ps -o rss= says now of the
# processes serving PORT with their descendants (the server idle after
# the run, its model loaded); both are logged.
check_server_memory() {
  local name=$1 port=$2 summary=$3 rt=$4 pids ps_kib got
  pids=$(port_pids "$port")
  [ -n "$pids" ] || die "$name: no process listens on port $port, so ps cannot be asked about its memory"
  ps_kib=$(ps -o rss= -p "$(echo "$pids" | paste -sd, -)" | awk '{ s += $1 } END { print s + 0 }')
  got=$(python3 - "$summary" "$rt" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["summary"] if r.get("runtime") == sys.argv[2]]
runs = [lr for r in rows for lr in (r.get("leaf_runs") or []) if lr.get("server_rss_bytes") is not None]
if runs:
    print(runs[-1]["server_rss_bytes"], runs[-1].get("server_memory", ""))
PY
  )
  [ -n "$got" ] || die "$name: $summary has no leaf run of $rt with server_rss_bytes"
  python3 - "$name" "${got%% *}" "$ps_kib" "${got#* }" "$(echo "$pids" | paste -sd, -)" <<'PY' || die "$name: the summary's server memory is not within 5% of ps's (above)"
import sys
name, got, kib, whose, pids = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ps = kib * 1024
off = (got - ps) / ps if ps else float("inf")
print(f"{name}: server memory {got} bytes ({got / 2**20:.1f} MiB) in the summary ({whose}), ps -o rss= {ps} bytes ({ps / 2**20:.1f} MiB) "
      f"over pids {pids}: {off:+.1%}")
sys.exit(0 if whose == "server processes" and abs(off) <= 0.05 else 1)
PY
}

# --- the end of a run ----------------------------------------------------------

server_pgids=() # the servers' process groups, which the clean-up stops

# e2e_cleanup: the EXIT trap of both scripts. It stops the job running and
# the servers (after showing the last lines of their logs, serve*.log in the
# run's folder, when the run failed), fails the run if any process we
# started is left, keeps the temporary folder with E2E_KEEP=1 or removes
# it, prints the phases' times and PASS or FAIL, and exits with the run's
# status. Install it with e2e_traps.
e2e_cleanup() {
  local rc=$? g f left
  trap - EXIT INT TERM
  # Whatever reads our output may be gone (Ctrl-C in "… | tee log" ends
  # tee too): a failed write must not end the clean-up half way.
  trap '' PIPE
  set +e
  end_phase
  [ -n "$job_pgid" ] && stop_group "$job_pgid"
  if [ "$rc" -ne 0 ]; then
    for f in "$tmp"/serve*.log; do
      [ -s "$f" ] || continue
      log "last lines of $(basename "$f"):"
      tail -n 25 "$f" | sed 's/^/  | /'
    done
  fi
  for g in "${server_pgids[@]}"; do stop_group "$g"; done
  # Nothing we started may be left: no process in a server's group or in
  # a job's, none that has our temporary folder on its command line.
  left=$(left_behind "${server_pgids[@]}")
  if [ -n "$left" ]; then
    printf '%s: FAIL: processes left behind:\n' "$E2E_NAME" >&2
    ps -o pid,pgid,args -p "$(echo "$left" | paste -sd, -)" >&2 || true
    rc=1
  elif [ ${#server_pgids[@]} -gt 0 ]; then
    log "stopped the servers; no process left behind"
  fi
  if [ "${E2E_KEEP:-}" = 1 ]; then
    log "kept $tmp"
  else
    rm -rf "$tmp"
  fi
  print_times
  if [ "$rc" -eq 0 ]; then
    printf '\n%s: PASS\n' "$E2E_NAME"
  else
    printf '\n%s: FAIL (exit %d)\n' "$E2E_NAME" "$rc" >&2
  fi
  exit "$rc"
}

# e2e_traps: clean up on every exit; an interrupt or a TERM says so first.
e2e_traps() {
  trap e2e_cleanup EXIT
  trap 'log "interrupted"; exit 130' INT
  trap 'log "terminated"; exit 143' TERM
}
