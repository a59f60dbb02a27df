#!/usr/bin/env bash
# End-to-end run of the suite against a real Ollama, with a small model the
# project generates (cmd/genmodel), on this machine's CPU.
#
#   bash scripts/e2e-ollama.sh
#
# It builds Ollama 0.6.5 from the Go module proxy (cached; an existing build
# of that version is reused), starts it on a free loopback port with a
# temporary models folder, creates the model, and runs the suite against it
# as two runtimes at once: the native API ("ollama") and the
# OpenAI-compatible endpoint ("ollama-v1", kind openai). Then it checks:
#
#   - the summary JSON: every row has all requests successful and none
#     failed, every request produced exactly max_tokens output tokens,
#     decode_tps > 0, and the native runtime's recorded version is 0.6.5;
#     go tool benchstat reads the saved .txt;
#   - client against server, on the same requests: our client-side decode
#     rate, output tokens / (total - TTFT), is within 15% of the server's
#     eval rate, and our TTFT is not below the server's prompt evaluation;
#   - against a peer measurer: Ollama's own benchmark tool (cmd/bench
#     v0.17.4), interleaved with ours on the same server, prompt and token
#     limit: the medians of our decode rate and its generate rate agree
#     within 20%.
#
# It stops everything it started (also on Ctrl-C or a failure), and exits
# non-zero with a line starting "e2e-ollama: FAIL:" when anything fails.
#
# Settings (environment):
#   E2E_CACHE_DIR   where the Ollama and cmd/bench builds are kept
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench)
#   E2E_OLLAMA_BIN  an ollama binary to use, if it reports version 0.6.5
#   E2E_PROMPTS     prompts for the suite run (default short,medium,code)
#   E2E_KEEP=1      keep the temporary folder (logs, results) and say where
set -euo pipefail
# Job control: every background job gets its own process group, so that
# stopping one stops its children too (ollama serve's runner, go test's
# test binary).
set -m
cd "$(dirname "$0")/.."

OLLAMA_VERSION=0.6.5
BENCH_TOOL_VERSION=0.17.4
MODEL_NAME=inferencebench-e2e
MAX_TOKENS=128
PROMPTS=${E2E_PROMPTS:-short,medium,code}
CACHE=${E2E_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench}

log() { printf 'e2e-ollama: %s\n' "$*"; }
die() {
  printf 'e2e-ollama: FAIL: %s\n' "$*" >&2
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

# --- what was started, and stopping it ---------------------------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e-ollama.XXXXXX")
serve_pgid=
job_pgid=

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

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # Whatever reads our output may be gone (Ctrl-C in "… | tee log" ends
  # tee too): a failed write must not end the clean-up half way.
  trap '' PIPE
  set +e
  end_phase
  [ -n "$job_pgid" ] && stop_group "$job_pgid"
  if [ -n "$serve_pgid" ]; then
    if [ "$rc" -eq 1 ] && [ -s "$tmp/serve.log" ]; then
      log "last lines of the ollama serve log:"
      tail -n 25 "$tmp/serve.log" | sed 's/^/  | /'
    fi
    stop_group "$serve_pgid"
    # Nothing we started may be left: no process in the server's group,
    # none that has our temporary folder on its command line.
    left=$( (pgrep -g "$serve_pgid"; pgrep -f "$tmp") 2>/dev/null | sort -u)
    if [ -n "$left" ]; then
      printf 'e2e-ollama: FAIL: processes left behind:\n' >&2
      ps -o pid,pgid,args -p "$(echo "$left" | paste -sd, -)" >&2 || true
      rc=1
    else
      log "stopped ollama serve and its runner; no process left behind"
    fi
  fi
  if [ "${E2E_KEEP:-}" = 1 ]; then
    log "kept $tmp"
  else
    rm -rf "$tmp"
  fi
  if [ ${#times[@]} -gt 0 ]; then
    printf '\n== phase times\n'
    printf '  %s\n' "${times[@]}"
  fi
  if [ "$rc" -eq 0 ]; then
    printf '\ne2e-ollama: PASS\n'
  else
    printf '\ne2e-ollama: FAIL (exit %d)\n' "$rc" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# run LOG CMD...: runs CMD as a job of its own (its own process group, which
# the trap stops on an interrupt), its output shown and kept in LOG.
run() {
  local out=$1 rc=0
  shift
  ("$@" 2>&1 | tee "$out") &
  job_pgid=$!
  wait "$job_pgid" || rc=$?
  job_pgid=
  return "$rc"
}

# --- tools -----------------------------------------------------------------

phase "tools"
command -v go >/dev/null || die "go is not on PATH"
go version
missing=()
command -v pgrep >/dev/null || missing+=(procps)
command -v tee >/dev/null || missing+=(coreutils)

# ollama_ok BIN: BIN exists and reports version $OLLAMA_VERSION. The address
# is one where nothing listens, so the binary reports its own version and
# not that of a server that happens to run.
ollama_ok() {
  local out
  [ -x "$1" ] || return 1
  out=$(OLLAMA_HOST=127.0.0.1:9 "$1" --version 2>&1) || return 1
  printf '%s\n' "$out" | grep -qx "Warning: client version is $OLLAMA_VERSION"
}

ollama_bin=
for b in "${E2E_OLLAMA_BIN:-}" "$CACHE/ollama-$OLLAMA_VERSION/bin/ollama" "$(go env GOPATH)/bin/ollama"; do
  if [ -n "$b" ] && ollama_ok "$b"; then
    ollama_bin=$b
    break
  fi
done
if [ -z "$ollama_bin" ]; then
  # Building Ollama compiles llama.cpp with cgo.
  command -v gcc >/dev/null || missing+=(gcc)
  command -v g++ >/dev/null || missing+=(g++)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    die "missing tools; install these packages (Debian names): ${missing[*]}"
  fi
fi

phase "build ollama $OLLAMA_VERSION"
if [ -n "$ollama_bin" ]; then
  log "reusing $ollama_bin (version $OLLAMA_VERSION)"
else
  ollama_bin=$CACHE/ollama-$OLLAMA_VERSION/bin/ollama
  log "building github.com/ollama/ollama@v$OLLAMA_VERSION into $(dirname "$ollama_bin") (cgo, llama.cpp: about 3 minutes on 2 cores)"
  mkdir -p "$(dirname "$ollama_bin")"
  # Outside this module, so its go.mod plays no part; the version is baked
  # in so that GET /api/version answers it rather than 0.0.0.
  (cd "$tmp" && GOFLAGS='' CGO_ENABLED=1 GOBIN="$(dirname "$ollama_bin")" \
    go install -ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
    "github.com/ollama/ollama@v$OLLAMA_VERSION") || die "building Ollama $OLLAMA_VERSION failed (see above)"
  ollama_ok "$ollama_bin" || die "the Ollama just built does not report version $OLLAMA_VERSION: $(OLLAMA_HOST=127.0.0.1:9 "$ollama_bin" --version 2>&1 | tr '\n' ' ')"
fi

phase "build ollama cmd/bench $BENCH_TOOL_VERSION"
bench_bin=$CACHE/ollama-bench-$BENCH_TOOL_VERSION/bin/bench
if [ -x "$bench_bin" ]; then
  log "reusing $bench_bin"
else
  mkdir -p "$(dirname "$bench_bin")"
  (cd "$tmp" && GOFLAGS='' CGO_ENABLED=0 GOBIN="$(dirname "$bench_bin")" \
    go install "github.com/ollama/ollama/cmd/bench@v$BENCH_TOOL_VERSION") || die "building Ollama's cmd/bench $BENCH_TOOL_VERSION failed (see above)"
fi

phase "build checks, write model"
go build -o "$tmp/e2echeck" ./scripts/e2echeck || die "building scripts/e2echeck failed"
mkdir -p "$tmp/model" "$tmp/models" "$tmp/home" "$tmp/results"
go run ./cmd/genmodel -o "$tmp/model/model.gguf" || die "cmd/genmodel failed"
cat >"$tmp/model/Modelfile" <<'EOF'
FROM ./model.gguf
TEMPLATE "{{ .Prompt }}"
PARAMETER num_thread 1
EOF

phase "start ollama, create model"
port=$("$tmp/e2echeck" freeport) || die "no free port on 127.0.0.1"
url=http://127.0.0.1:$port
# A clean environment: the models and Ollama's key go to the temporary
# folder, and no OLLAMA_* setting of the caller's changes the server.
# Four parallel slots (0.6.5's default where memory allows, made explicit)
# so that concurrency 4 is served at once; keep-alive long enough that the
# model never unloads between phases.
env -i PATH="$PATH" HOME="$tmp/home" TMPDIR="$tmp" \
  OLLAMA_HOST="127.0.0.1:$port" OLLAMA_MODELS="$tmp/models" \
  OLLAMA_NUM_PARALLEL=4 OLLAMA_KEEP_ALIVE=30m \
  "$ollama_bin" serve >"$tmp/serve.log" 2>&1 &
serve_pgid=$!
"$tmp/e2echeck" wait -url "$url" -pid "$serve_pgid" -timeout 60s || die "ollama serve did not come up on $url"
log "ollama serve (pid $serve_pgid) answers on $url"
(cd "$tmp/model" && env -i PATH="$PATH" HOME="$tmp/home" OLLAMA_HOST="127.0.0.1:$port" \
  "$ollama_bin" create "$MODEL_NAME" -f Modelfile >"$tmp/create.log" 2>&1) ||
  die "ollama create failed: $(tr '\r' '\n' <"$tmp/create.log" | tail -n 5)"
log "created model $MODEL_NAME"

phase "suite run"
# shellcheck disable=SC2054 # the commas are in the values
bench_env=(
  BENCH_RUNTIMES=ollama,ollama-v1
  OLLAMA_URL="$url" OLLAMA_KIND=ollama OLLAMA_MODEL="$MODEL_NAME"
  OLLAMA_V1_URL="$url" OLLAMA_V1_KIND=openai OLLAMA_V1_MODEL="$MODEL_NAME"
  BENCH_CONCURRENCY=1,4 BENCH_PROMPTS="$PROMPTS" BENCH_MAX_TOKENS="$MAX_TOKENS"
  BENCH_SEED=42 BENCH_TEMPERATURE=0 BENCH_WARMUPS=2 BENCH_TIMEOUT=120s
  BENCH_OUTPUT_DIR="$tmp/results"
)
run "$tmp/suite.log" env -u BENCH_PROMPTS_DIR -u OLLAMA_API_KEY -u OLLAMA_V1_API_KEY "${bench_env[@]}" \
  go test -run='^$' -bench=. -benchtime=3x -count=2 -timeout=30m . ||
  die "the suite run failed (see above)"
json='' txt=''
for f in "$tmp"/results/*.json; do [ -f "$f" ] && json=$f; done
for f in "$tmp"/results/*.txt; do [ -f "$f" ] && txt=$f; done
if [ -z "$json" ] || [ -z "$txt" ]; then
  die "the suite wrote no summary JSON and .txt to $tmp/results"
fi

phase "check summary, benchstat"
"$tmp/e2echeck" summary -json "$json" -runtimes ollama,ollama-v1 -prompts "$PROMPTS" -conc 1,4 \
  -rounds 3 -count 2 -max-tokens $MAX_TOKENS -version $OLLAMA_VERSION || die "the summary JSON check failed"
go tool benchstat -col /runtime "$txt" | tee "$tmp/benchstat.log" || die "go tool benchstat could not read $txt"
if ! grep -q 'decode-tok/s' "$tmp/benchstat.log" || ! grep -q 'ttft' "$tmp/benchstat.log"; then
  die "benchstat's tables lack decode-tok/s or ttft"
fi

phase "client against server"
run "$tmp/accuracy.log" "$tmp/e2echeck" accuracy -url "$url" -model "$MODEL_NAME" -prompts "$PROMPTS" \
  -n 4 -n-openai 2 -max-tokens $MAX_TOKENS -seed 42 -tolerance 0.15 ||
  die "client against server: see the FAIL lines above"

phase "against ollama cmd/bench"
run "$tmp/peer.log" "$tmp/e2echeck" peer -url "$url" -model "$MODEL_NAME" -bench "$bench_bin" -prompt short \
  -pairs 3 -n 4 -max-tokens $MAX_TOKENS -seed 42 -tolerance 0.20 ||
  die "against Ollama's cmd/bench: see the FAIL lines above"

end_phase
printf '\n== figures\n'
grep -h -E '^(client-side decode|client / server|TTFT:|ours: median)' "$tmp/accuracy.log" "$tmp/peer.log" | sed 's/^/  /'
