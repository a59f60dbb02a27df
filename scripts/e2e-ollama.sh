#!/usr/bin/env bash
# End-to-end run of the suite against a real Ollama, with a small model the
# project generates (cmd/genmodel), on this machine's CPU.
#
#   bash scripts/e2e-ollama.sh    # about 35 minutes with the Ollama build reused
#
# It builds Ollama 0.6.5 from the Go module proxy (cached; an existing build
# of that version is reused), starts it on a loopback port that the system
# picks, with a temporary models folder, creates the model, and runs the
# suite against it as two runtimes at once: the native API ("ollama") and
# the OpenAI-compatible endpoint ("ollama-v1", kind openai), cold prompts,
# closed loop. Then it runs the live tests of package internal/e2e (built
# with -tags e2e), giving them the server and the runs in E2E_* variables,
# and two more, shorter suite runs for the last checks (warm prompts; open
# loop):
#
#   - TestSummary: every row of the summary JSON has all requests
#     successful and none failed, every request produced exactly max_tokens
#     output tokens, decode_tps > 0, and the native runtime's recorded
#     version is 0.6.5; go tool benchstat reads the saved .txt;
#   - TestColdPromptRate: the run is cold (every prompt unique, the
#     suite's default); the server's cold prompt rate, measured on the side
#     through the suite's runtimes package with prompts made unique by a
#     marker of the test's own, replaying the run's native leaves in order
#     on the model unloaded and loaded again (a full KV cache slows prompt
#     evaluation), and every native row's prompt_tps_mean agree within a
#     factor of 2; the ollama-v1 rows have none (Ollama's /v1 reports no
#     prompt timing); a prompt sent twice shows a cached one reads far
#     faster;
#   - TestClientAgainstServer, on the same requests: our client-side decode
#     rate, output tokens / (total - TTFT), is within 15% of the server's
#     eval rate, and our TTFT is not below the server's prompt evaluation;
#   - TestAgainstOllamaBench, against a peer measurer: Ollama's own
#     benchmark tool (cmd/bench v0.17.4), interleaved with ours on the same
#     server, prompt and token limit: the medians of our decode rate and
#     its generate rate agree within 20%;
#   - TestWarmPromptRate, on a second, short run with BENCH_CACHE=warm (the
#     first prompt, concurrency 1): every request succeeded, and every row
#     has prompt_tps null, as Ollama's prompt count then includes cached
#     tokens that its prompt time does not;
#   - TestCapacity computes the server's capacity from the first run (the
#     native runtime's first prompt at the highest concurrency, all of
#     Ollama's parallel slots busy: aggregate output tokens/s / tokens per
#     request) and the rates of a third run, open loop, of 65 arrivals at
#     about half of it and 65 at about twice it; TestOpenLoop checks that
#     run: every request succeeded, each rate was achieved within 15%, the
#     client's send lag p99 is small, and TTFT p95 above the capacity is at
#     least twice the one below it;
#   - TestFresh, on two more runs of the native runtime alone (prompts
#     short and medium, concurrency 1 and 4, -count=1), one with
#     BENCH_FRESH=leaf and one with BENCH_FRESH=off: with fresh starts
#     medium's conc=1 leaf, run after a concurrent leaf, decodes at 0.7×
#     to 1.5× short's, and the control leaf -25% to +50% of the first run;
#     without them the control decodes at least 20% slower, is marked
#     drifted, and the log says so;
#   - TestInputLengths, on a run of prompts of 256, 1024 and 3000 tokens
#     (BENCH_INPUT_TOKENS, concurrency 1, 32-token replies): each row's
#     prompt tokens by the server's count within 1% of N, TTFT rising with
#     N, no prompt cut, and the num_ctx sent is the one the server loaded
#     the model with; and on a run of the longest alone with
#     BENCH_NUM_CTX=2048: every prompt counted as cut, and the log says so;
#   - TestTurns, on a run of conversations of three turns (BENCH_TURNS=3,
#     the first prompt, concurrency 1, 32-token replies): every turn of
#     every conversation sent and answered in order, each turn's prompt
#     longer than the one before, and Ollama's cache at work on turns 2
#     and 3 (prompt evaluation per prompt token below half of turn 1's,
#     TTFT p50 within 2x of it); and on a conversation of its own sent
#     through a proxy that records the wire: turn k sends 2k-1 messages,
#     each reply back exactly as it was streamed;
#   - TestWorkloads, on runs of recorded workloads (BENCH_WORKLOAD, the
#     samples in testdata/): a ShareGPT file, each conversation replayed
#     turn by turn with as many turns as it has human ones, in order,
#     every prompt longer than the turn before's; a window of 8 requests
#     of a Mooncake-style trace at a tenth of its recorded speed, each sent
#     at its recorded offset (within 2% of the mean gap) and counted by
#     the server at its input_length within 3%; and requests with tools
#     (BENCH_TOOLS) through both APIs on a model whose template takes
#     them, every reply sent whole (Ollama 0.6.5 holds it back), so that
#     /v1 rows have no decode rate; before them, a run with tools on the
#     plain model must be refused, exit 2, before any request;
#   - TestAgentLoop: a turn after a tool call (the call and its result in
#     the history, as the suite sends them in a conversation) through
#     both APIs: answered, and counted the same by both, longer than
#     without the call;
#   - TestAPIs, on short runs through other APIs (BENCH_API, concurrency
#     2, 32 tokens): text completions through /v1, embeddings through
#     /api/embed and /v1/embeddings (two inputs a request): every request
#     succeeded, tokens or embeddings' rates above 0, every leaf named
#     …/api=<api>; before them, runs with BENCH_API=responses and
#     messages (which 0.6.5 lacks) and with images (BENCH_IMAGES; the
#     model is text only) must be refused, exit 2, before any request;
#   - TestHTTPTrace, on a run with BENCH_HTTP_TRACE=on after a 3 s ramp
#     (BENCH_RAMP): every timed request has its HTTP stamps, reused
#     connections are counted, the ramp's requests are recorded and in
#     no figure;
#   - TestUpgrade, with Ollama 0.17.4 started beside 0.6.5 (the same
#     model, another port): on a run of both side by side
#     (BENCH_RUNTIMES=ollama@0.6.5,ollama@0.17.4, -count=6), compare's
#     call on decode at each load agrees with both servers' own counters
#     (server_decode_tps_mean new/old); a leaf it left out as disturbed is
#     reported, not failed;
#   - TestSameVersion, on two runs of 0.17.4 alone, the first with a CPU
#     burner beside it for 20 s: compare claims no change (exit 0 without
#     better or worse, or exit 3 naming the disturbed leaves).
#
# It stops everything it started (also on Ctrl-C or a failure), and exits
# non-zero with a line starting "e2e-ollama: FAIL:" when anything fails.
#
# Settings (environment):
#   E2E_CACHE_DIR   where the Ollama and cmd/bench builds are kept
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench)
#   E2E_OLLAMA_BIN  an ollama binary to use, if it reports version 0.6.5
#   E2E_PROMPTS     prompts for the suite run (default short,medium: a third,
#                   code, was a third of the cold run's 469 s and no check
#                   needs it);
#                   the later runs use the first
#   E2E_KEEP=1      keep the temporary folder (logs, results) and say where
#   E2E_OLLAMA_NEXT=0  leave out the newer Ollama, 0.17.4
#                   (OLLAMA_NEXT_VERSION): by default it is built (or reused)
#                   into the cache, as a phase of its own (5 to 9 minutes on
#                   2 cores), started beside 0.6.5 at the end, and checked by
#                   TestUpgrade and TestSameVersion (docs/e2e.md)
#   E2E_BUILD_ONLY=1   stop after the builds
# The tests' own E2E_* variables (internal/e2e/doc.go lists them) are set
# here, from the run; values of the caller's are replaced.
set -euo pipefail
cd "$(dirname "$0")/.."

OLLAMA_VERSION=0.6.5
BENCH_TOOL_VERSION=0.17.4
# The newer Ollama, beside 0.6.5 (E2E_OLLAMA_NEXT, on by default). Its module zip has no
# llama/llama.cpp/vendor (Go leaves vendor folders out of module zips): the
# headers its cgo includes from there come from elsewhere, nlohmann/json.hpp
# and stb/stb_image.h from Debian's packages, miniaudio/miniaudio.h from the
# miniaudio Python package's source distribution, pinned by SHA-256.
OLLAMA_NEXT_VERSION=0.17.4
MINIAUDIO_VERSION=1.71
MINIAUDIO_SHA256=ff51e2887bb673e2e757752b586b3dc924d59aa5fbcae9bbc45f4a111bd3262b
MODEL_NAME=inferencebench-e2e
# 128 output tokens a request. 64 was tried (7 December 2026, docs/e2e.md
# "Phase times"): the cold run took 388 s against 430 s, the open-loop run
# 194 s against 222 s, and the open loop's higher rates tighten its
# send-lag bound (2% of the mean gap), which failed there on a busy
# machine: too little for the risk.
MAX_TOKENS=128
CONCURRENCY=1,4
ROUNDS=3 # -benchtime=3x
COUNT=2
PROMPTS=${E2E_PROMPTS:-short,medium}
# The fresh and stale runs: two prompts, each at concurrency 1 and 4.
FRESH_PROMPTS=short,medium
# The input lengths' run (ascending; the last is also cut with num_ctx 2048).
INPUT_TOKENS=256,1024,3000
# The trace run: a window of TRACE_N requests of testdata/trace.jsonl at
# TRACE_SPEED (0.1: ten times slower than recorded).
TRACE_N=8
TRACE_SPEED=0.1
TOOLS_MODEL=inferencebench-e2e-tools
# The later, shorter runs use one prompt: the first.
ONE_PROMPT=${PROMPTS%%,*}
# The runs through other APIs (BENCH_API): -benchtime=2x -count=1.
API_ROUNDS=2
WARM_ROUNDS=2 # -benchtime=2x -count=1 at concurrency 1, one warm-up
# Arrivals of each open-loop leaf (-benchtime=65x: one b.Loop iteration is
# one arrival): 64 gaps between them, one whole block of the driver's
# stratified gaps, so that the schedule's own rate is the one asked for
# within about 2% (over fewer gaps it strays by 5 to 15%).
OPEN_ARRIVALS=65
CACHE=${E2E_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e-ollama.XXXXXX")
E2E_NAME=e2e-ollama
# shellcheck source=scripts/lib/e2e.sh
. scripts/lib/e2e.sh

serve_pgid=
e2e_traps

# --- tools -----------------------------------------------------------------

phase "tools"
command -v go >/dev/null || die "go is not on PATH"
go version
missing=()
command -v pgrep >/dev/null || missing+=(procps)
command -v tee >/dev/null || missing+=(coreutils)

# ollama_ok BIN [VERSION]: BIN exists and reports version VERSION (by
# default $OLLAMA_VERSION). The address is one where nothing listens, so the
# binary reports its own version and not that of a server that happens to
# run.
ollama_ok() {
  local out
  [ -x "$1" ] || return 1
  out=$(OLLAMA_HOST=127.0.0.1:9 "$1" --version 2>&1) || return 1
  printf '%s\n' "$out" | grep -qx "Warning: client version is ${2:-$OLLAMA_VERSION}"
}
# has_header H: the C++ compiler finds <H>.
has_header() {
  command -v g++ >/dev/null && printf '#include <%s>\n' "$1" | g++ -std=c++17 -E -x c++ - >/dev/null 2>&1
}

ollama_bin=
for b in "${E2E_OLLAMA_BIN:-}" "$CACHE/ollama-$OLLAMA_VERSION/bin/ollama" "$(go env GOPATH)/bin/ollama"; do
  if [ -n "$b" ] && ollama_ok "$b"; then
    ollama_bin=$b
    break
  fi
done
next_bin=$CACHE/ollama-$OLLAMA_NEXT_VERSION/bin/ollama
# The newer Ollama is on by default (CI runs it); E2E_OLLAMA_NEXT=0 leaves
# it out, its build and its phases.
next=${E2E_OLLAMA_NEXT:-1}
build_next=
if [ "$next" = 1 ] && ! ollama_ok "$next_bin" "$OLLAMA_NEXT_VERSION"; then
  build_next=1
  command -v python3 >/dev/null || missing+=(python3)
  python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  has_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
  has_header stb/stb_image.h || missing+=(libstb-dev)
fi
if [ -z "$ollama_bin" ] || [ -n "$build_next" ]; then
  # Building Ollama compiles llama.cpp with cgo.
  command -v gcc >/dev/null || missing+=(gcc)
  command -v g++ >/dev/null || missing+=(g++)
fi
install_missing "${missing[@]}"

phase "build ollama $OLLAMA_VERSION"
if [ -n "$ollama_bin" ]; then
  log "reusing $ollama_bin (version $OLLAMA_VERSION)"
else
  ollama_bin=$CACHE/ollama-$OLLAMA_VERSION/bin/ollama
  log "building github.com/ollama/ollama@v$OLLAMA_VERSION into $(dirname "$ollama_bin") (cgo, llama.cpp: about 3 minutes on 2 cores)"
  mkdir -p "$(dirname "$ollama_bin")"
  # Outside this module, so its go.mod plays no part; the version is baked
  # in so that GET /api/version answers it rather than 0.0.0.
  build_ollama() {
    cd "$tmp" && GOFLAGS='' CGO_ENABLED=1 GOBIN="$(dirname "$ollama_bin")" \
      go install -ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
      "github.com/ollama/ollama@v$OLLAMA_VERSION"
  }
  job build_ollama || die "building Ollama $OLLAMA_VERSION failed (see above)"
  ollama_ok "$ollama_bin" || die "the Ollama just built does not report version $OLLAMA_VERSION: $(OLLAMA_HOST=127.0.0.1:9 "$ollama_bin" --version 2>&1 | tr '\n' ' ')"
fi

phase "build ollama cmd/bench $BENCH_TOOL_VERSION"
bench_bin=$CACHE/ollama-bench-$BENCH_TOOL_VERSION/bin/bench
if [ -x "$bench_bin" ]; then
  log "reusing $bench_bin"
else
  mkdir -p "$(dirname "$bench_bin")"
  build_bench() {
    cd "$tmp" && GOFLAGS='' CGO_ENABLED=0 GOBIN="$(dirname "$bench_bin")" \
      go install "github.com/ollama/ollama/cmd/bench@v$BENCH_TOOL_VERSION"
  }
  job build_bench || die "building Ollama's cmd/bench $BENCH_TOOL_VERSION failed (see above)"
fi

# build_ollama_next: Ollama $OLLAMA_NEXT_VERSION into $next_bin, with
# miniaudio $MINIAUDIO_VERSION's header unpacked beside it (a fixed path, so
# that a build cut short reuses Go's build cache).
build_ollama_next() {
  local dir src
  dir=$(dirname "$(dirname "$next_bin")")
  src=$dir/miniaudio-$MINIAUDIO_VERSION
  mkdir -p "$dir/bin"
  printf 'miniaudio==%s --hash=sha256:%s\n' "$MINIAUDIO_VERSION" "$MINIAUDIO_SHA256" >"$tmp/miniaudio-pin.txt"
  job python3 -m pip download -q --no-deps --no-binary :all: --require-hashes -r "$tmp/miniaudio-pin.txt" -d "$tmp" ||
    die "downloading miniaudio $MINIAUDIO_VERSION's source distribution failed (see above)"
  rm -rf "$src"
  job tar --no-same-owner -xzf "$tmp/miniaudio-$MINIAUDIO_VERSION.tar.gz" -C "$dir" || die "unpacking miniaudio-$MINIAUDIO_VERSION.tar.gz failed"
  [ -f "$src/miniaudio/miniaudio.h" ] || die "miniaudio-$MINIAUDIO_VERSION.tar.gz has no miniaudio/miniaudio.h"
  # llama.cpp's mtmd-helper.cpp includes "miniaudio/miniaudio.h".
  go_install_next() {
    cd "$tmp" && GOFLAGS='' CGO_ENABLED=1 CGO_CPPFLAGS="-I$src" GOBIN="$dir/bin" \
      go install -ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_NEXT_VERSION" \
      "github.com/ollama/ollama@v$OLLAMA_NEXT_VERSION"
  }
  job go_install_next || die "building Ollama $OLLAMA_NEXT_VERSION failed (see above)"
}

if [ "$next" = 1 ]; then
  phase "build ollama $OLLAMA_NEXT_VERSION"
  if [ -z "$build_next" ]; then
    log "reusing $next_bin (version $OLLAMA_NEXT_VERSION)"
  else
    log "building github.com/ollama/ollama@v$OLLAMA_NEXT_VERSION into $(dirname "$next_bin") (cgo, llama.cpp: 5 to 9 minutes on 2 cores)"
    build_ollama_next
    ollama_ok "$next_bin" "$OLLAMA_NEXT_VERSION" ||
      die "the Ollama just built does not report version $OLLAMA_NEXT_VERSION: $(OLLAMA_HOST=127.0.0.1:9 "$next_bin" --version 2>&1 | tr '\n' ' ')"
  fi
fi
if [ "${E2E_BUILD_ONLY:-}" = 1 ]; then
  log "E2E_BUILD_ONLY=1: the builds are done"
  exit 0
fi

phase "build checks, write model"
# The checks are the live tests of internal/e2e. Building them now finds a
# compile error before the server starts, and leaves the packages in the
# build cache, so that each check phase below only links.
job go test -tags e2e -c -o "$tmp/e2e.test" ./internal/e2e/ || die "building the tests of internal/e2e (-tags e2e) failed"
mkdir -p "$tmp/model" "$tmp/models" "$tmp/home" "$tmp/results"
job go run ./cmd/genmodel -o "$tmp/model/model.gguf" || die "cmd/genmodel failed"
# repeat_penalty 1.5 (Ollama's default is 1.1, over the last 64 tokens):
# Ollama 0.6.5 cuts off a reply whose same token comes more than 30 times
# in a row, silently: the stream stops without its done line and the
# status stays 200 (llm/server.go, "token repeat limit"). At the default
# penalty this random-weight model falls into such a loop on a quarter to
# two thirds of cold prompts (each with its own marker line), depending on
# the prompt; at 1.5 on none of 540. The penalty applies to /v1 requests
# too, which send none of their own.
cat >"$tmp/model/Modelfile" <<'EOF'
FROM ./model.gguf
TEMPLATE "{{ .Prompt }}"
PARAMETER num_thread 1
PARAMETER repeat_penalty 1.5
EOF
# The same model with a chat template that takes tools (it uses .Tools
# and writes each earlier tool call back), which Ollama needs before it
# accepts a request with tools (/api/show capabilities "tools").
cat >"$tmp/model/Modelfile.tools" <<'EOF'
FROM ./model.gguf
TEMPLATE """{{- if .Tools }}Tools:{{ range .Tools }} {{ .Function.Name }}{{ end }}
{{ end }}{{- range .Messages }}{{ .Role }}: {{ .Content }}{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}{{ end }}
{{ end }}assistant: """
PARAMETER num_thread 1
PARAMETER repeat_penalty 1.5
EOF

phase "start ollama, create model"
# A clean environment: the models and Ollama's key go to the temporary
# folder, and no OLLAMA_* setting of the caller's changes the server.
# Port 0: the system picks a free port as the server listens, and the
# server logs it; no other process can take it between a look-up and the
# start. Four parallel slots (0.6.5's default where memory allows, made
# explicit) so that concurrency 4 is served at once; keep-alive long
# enough that the model never unloads between phases.
# start_ollama BIN VERSION HOME: ollama serve of BIN, which must say it is
# VERSION, with HOME and HOME/models its folders, its log serve-VERSION.log;
# sets serve_pgid, port and url once the CLI lists the models through it.
start_ollama() {
  local bin=$1 version=$2 home=$3 deadline listening log=$tmp/serve-ollama-$2.log
  mkdir -p "$home/models"
  env -i PATH="$PATH" HOME="$home" TMPDIR="$tmp" \
    OLLAMA_HOST=127.0.0.1:0 OLLAMA_MODELS="$home/models" \
    OLLAMA_NUM_PARALLEL=4 OLLAMA_KEEP_ALIVE=30m OLLAMA_NO_CLOUD=1 \
    "$bin" serve >"$log" 2>&1 &
  serve_pgid=$!
  server_pgids+=("$serve_pgid")
  # The port, from the server's log line "Listening on 127.0.0.1:PORT
  # (version V)", within 60 s of the start.
  deadline=$((SECONDS + 60))
  port=
  while :; do
    listening=$(sed -n -E 's/.*Listening on 127\.0\.0\.1:([0-9]+) \(version ([^)]*)\).*/\1 \2/p' "$log" | head -n 1)
    if [ -n "$listening" ]; then
      port=${listening% *}
      [ "${listening#* }" = "$version" ] || die "ollama serve says it is version ${listening#* }, want $version"
      break
    fi
    serving || die "ollama serve $version exited before it listened"
    [ "$SECONDS" -lt "$deadline" ] || die "ollama serve $version logged no \"Listening on 127.0.0.1:PORT\" within 60 s"
    pause 0.1
  done
  url=http://127.0.0.1:$port
  # Up once the CLI lists the models through the server's API, within the
  # same 60 s.
  until job ollama_cli "$bin" "$home" list >"$tmp/list.log" 2>&1; do
    serving || die "ollama serve $version exited before it answered on $url"
    [ "$SECONDS" -lt "$deadline" ] || die "ollama list did not succeed against $url within 60 s: $(tail -n 1 "$tmp/list.log")"
    pause 0.2
  done
  log "ollama serve $version (pid $serve_pgid) answers on $url"
}
# serving: the ollama serve last started has not exited.
serving() { kill -0 "$serve_pgid" 2>/dev/null; }
# ollama_cli BIN HOME ARGS...: the ollama CLI against the server on $port,
# in that server's clean environment.
ollama_cli() {
  local bin=$1 home=$2
  shift 2
  env -i PATH="$PATH" HOME="$home" OLLAMA_HOST="127.0.0.1:$port" "$bin" "$@"
}
start_ollama "$ollama_bin" "$OLLAMA_VERSION" "$tmp/home"
create_model() { cd "$tmp/model" && ollama_cli "$ollama_bin" "$tmp/home" create "$MODEL_NAME" -f Modelfile; }
job create_model >"$tmp/create.log" 2>&1 ||
  die "ollama create failed: $(tr '\r' '\n' <"$tmp/create.log" | tail -n 5)"
log "created model $MODEL_NAME"

# shellcheck disable=SC2054 # the commas are in the values
bench_env=(
  BENCH_RUNTIMES=ollama,ollama-v1
  OLLAMA_URL="$url" OLLAMA_KIND=ollama OLLAMA_MODEL="$MODEL_NAME"
  OLLAMA_V1_URL="$url" OLLAMA_V1_KIND=openai OLLAMA_V1_MODEL="$MODEL_NAME"
  BENCH_CONCURRENCY="$CONCURRENCY" BENCH_PROMPTS="$PROMPTS" BENCH_MAX_TOKENS="$MAX_TOKENS"
  BENCH_SEED=42 BENCH_TEMPERATURE=0 BENCH_WARMUPS=2 BENCH_TIMEOUT=120s
)
# The key of the runtimes' API, if the caller has one, is none of the
# suite's business here.
suite_unset=(-u OLLAMA_API_KEY -u OLLAMA_V1_API_KEY)

phase "suite run, cold prompts"
# Cold, the default, made explicit: every request's prompt is unique.
suite cold . "${ROUNDS}x" "$COUNT" BENCH_CACHE=cold
# BENCH_ORDER=interleaved, the default: at each prompt and load both
# runtimes in turn (each leaf's -count repetitions together), never two
# leaves of one runtime in a row.
order=$(sed -n -E 's#^BenchmarkInference/runtime=([^/]+)/(prompt=[^ ]+).*#\1 \2#p' "$tmp/suite-cold.log" | uniq)
printf 'leaves in the order they ran:\n%s\n' "$order"
if [ "$(printf '%s\n' "$order" | awk '{print $1}' | uniq | wc -l)" -ne "$(printf '%s\n' "$order" | wc -l)" ]; then
  die "the cold run did not interleave its runtimes: a runtime ran two leaves in a row (see above)"
fi

# What the live tests of internal/e2e check: this server and this run.
# shellcheck disable=SC2054 # the commas are in the values
e2e_env=(
  E2E_URL="$url" E2E_MODEL="$MODEL_NAME" E2E_OLLAMA_VERSION="$OLLAMA_VERSION"
  E2E_SUMMARY="$json" E2E_RUNTIMES=ollama,ollama-v1 E2E_PROMPTS="$PROMPTS"
  E2E_CONCURRENCY="$CONCURRENCY" E2E_ROUNDS="$ROUNDS" E2E_COUNT="$COUNT"
  E2E_MAX_TOKENS="$MAX_TOKENS" E2E_BENCH_BIN="$bench_bin"
  E2E_OPEN_PROMPT="$ONE_PROMPT" E2E_OPEN_ARRIVALS="$OPEN_ARRIVALS" E2E_RATES_FILE="$tmp/rates"
)

phase "check summary, benchstat"
e2e_test TestSummary "$tmp/summary.log" "the summary JSON and benchstat"

phase "cold prompt rate"
e2e_test TestColdPromptRate "$tmp/coldprompt.log" "cold prompt rate"

phase "client against server"
e2e_test TestClientAgainstServer "$tmp/accuracy.log" "client against server"

phase "against ollama cmd/bench"
e2e_test TestAgainstOllamaBench "$tmp/peer.log" "against Ollama's cmd/bench"

phase "suite run, warm prompts"
# Every request of a leaf sends the same prompt, which the server has
# cached after the first.
suite warm . "${WARM_ROUNDS}x" 1 BENCH_CACHE=warm BENCH_PROMPTS="$ONE_PROMPT" BENCH_CONCURRENCY=1 BENCH_WARMUPS=1
e2e_env+=(E2E_WARM_SUMMARY="$json")

phase "check warm prompt rate"
e2e_test TestWarmPromptRate "$tmp/warmprompt.log" "warm prompt rate"

phase "capacity, open-loop rates"
e2e_test TestCapacity "$tmp/capacity.log" "the capacity from the closed-loop run"
rates=$(cat "$tmp/rates")
[[ $rates =~ ^[0-9.e+-]+,[0-9.e+-]+$ ]] || die "TestCapacity wrote no two rates to $tmp/rates: \"$rates\""

phase "suite run, open loop"
# Only the native runtime's two rate leaves (-bench leaves out the
# closed-loop leaf that BENCH_CONCURRENCY must name), cold as the run that
# gave the capacity. Above the capacity requests queue for as long as
# arrivals come: BENCH_TIMEOUT leaves them the time.
suite open "Inference/runtime=ollama\$/prompt=$ONE_PROMPT\$/rate=" "${OPEN_ARRIVALS}x" 1 \
  BENCH_RUNTIMES=ollama BENCH_PROMPTS="$ONE_PROMPT" BENCH_CONCURRENCY=1 BENCH_RATES="$rates" \
  BENCH_CACHE=cold BENCH_TIMEOUT=10m
e2e_env+=(E2E_OPEN_SUMMARY="$json")

phase "check open loop"
e2e_test TestOpenLoop "$tmp/openloop.log" "open loop"

phase "suite runs, fresh and stale server"
# The same leaves twice, the native runtime alone: with each leaf run on a
# server returned to a known state (the model unloaded), then on one left
# as the leaves before left it. Ollama's runner decodes a single stream
# about half as fast after a concurrent leaf until it is unloaded: the
# control leaf at the end of the stale run shows it.
suite fresh . "${ROUNDS}x" 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS="$FRESH_PROMPTS" BENCH_FRESH=leaf BENCH_CONTROL=on BENCH_CONTROL_MAX=1m
e2e_env+=(E2E_FRESH_SUMMARY="$json" E2E_FRESH_PROMPTS="$FRESH_PROMPTS")
suite stale . "${ROUNDS}x" 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS="$FRESH_PROMPTS" BENCH_FRESH=off BENCH_CONTROL=on BENCH_CONTROL_MAX=1m
e2e_env+=(E2E_STALE_SUMMARY="$json" E2E_STALE_LOG="$tmp/suite-stale.log")

phase "check fresh and stale"
e2e_test TestFresh "$tmp/fresh.log" "fresh server state"

phase "suite runs, input lengths"
# Prompts of a chosen length, sized to the server's own count (Ollama has
# no tokenize endpoint: calibration requests), concurrency 1, a short
# reply; then the longest alone with a num_ctx below it, which Ollama cuts
# silently.
# BENCH_PROMPTS empty (unset): only the in<N> prompts.
suite input . 2x 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS= BENCH_INPUT_TOKENS="$INPUT_TOKENS" BENCH_CONCURRENCY=1 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_INPUT_SUMMARY="$json" E2E_INPUT_TOKENS="$INPUT_TOKENS")
# One request (and its warm-up, which loads the model at the new num_ctx)
# is enough to see it cut.
suite cut . 1x 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS= BENCH_INPUT_TOKENS="${INPUT_TOKENS##*,}" BENCH_NUM_CTX=2048 \
  BENCH_CONCURRENCY=1 BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_CUT_SUMMARY="$json" E2E_CUT_LOG="$tmp/suite-cut.log")

phase "check input lengths"
e2e_test TestInputLengths "$tmp/input.log" "input lengths"

phase "suite runs, conversations"
# Every request a conversation of three turns (TestTurns expects 3): turn
# k sends every earlier message and reply and a follow-up. Concurrency 1,
# so that each turn finds its conversation's slot in Ollama's cache as the
# turn before left it; short replies, one prompt, two conversations.
suite turns . 2x 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS="$ONE_PROMPT" BENCH_TURNS=3 BENCH_CONCURRENCY=1 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_TURNS_SUMMARY="$json")

phase "check conversations"
e2e_test TestTurns "$tmp/turns.log" "conversations"

phase "suite runs, workloads"
# Recorded workloads (BENCH_WORKLOAD), the samples in testdata/: a
# ShareGPT file replayed turn by turn at concurrency 1; a window of
# TRACE_N requests of a Mooncake-style trace, replayed open loop at its
# recorded times slowed to TRACE_SPEED (this one-thread server serves
# about 0.1 requests of 1,500 tokens a second: the trace still overloads
# it, and what is checked is the client's timing and sizing); and
# requests with tools (BENCH_TOOLS) on a model whose template takes them,
# through both APIs.
suite sharegpt . 3x 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS= BENCH_WORKLOAD=testdata/chats.json BENCH_CONCURRENCY=1 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=24 BENCH_CONTROL=off
e2e_env+=(E2E_SHAREGPT_SUMMARY="$json" E2E_SHAREGPT_FILE="$PWD/testdata/chats.json")
suite trace . "${TRACE_N}x" 1 BENCH_RUNTIMES=ollama BENCH_PROMPTS= BENCH_WORKLOAD=testdata/trace.jsonl \
  BENCH_WORKLOAD_N="$TRACE_N" BENCH_TRACE_SPEED="$TRACE_SPEED" BENCH_WARMUPS=1 BENCH_CONTROL=off BENCH_TIMEOUT=10m
e2e_env+=(E2E_TRACE_SUMMARY="$json" E2E_TRACE_FILE="$PWD/testdata/trace.jsonl" E2E_TRACE_N="$TRACE_N" E2E_TRACE_SPEED="$TRACE_SPEED")
# Ollama answers a request with tools to a model whose template does not
# use .Tools with HTTP 400: the suite must refuse such a run before any
# request, exit 2, naming the model.
if job env "${caller_env[@]}" "${suite_unset[@]}" "${bench_env[@]}" BENCH_RUNTIMES=ollama BENCH_PROMPTS="$ONE_PROMPT" \
  BENCH_TOOLS=testdata/tools.json BENCH_OUTPUT_DIR="$tmp/results-notools" \
  go test -run='^$' -bench=. -benchtime=1x -count=1 -timeout=10m . >"$tmp/suite-notools.log" 2>&1; then
  die "a run with BENCH_TOOLS against $MODEL_NAME, whose template takes no tools, passed; it must be refused"
fi
grep -F 'takes no tools' "$tmp/suite-notools.log" | head -n 1 | sed 's/^/  | /'
grep -qF "serves $MODEL_NAME, which takes no tools" "$tmp/suite-notools.log" ||
  die "the run with tools against $MODEL_NAME was not refused for its template (see $tmp/suite-notools.log)"
grep -q 'exit status 2' "$tmp/suite-notools.log" || die "the run with tools against $MODEL_NAME did not exit 2 (see $tmp/suite-notools.log)"
if [ -n "$(ls -A "$tmp/results-notools" 2>/dev/null)" ]; then
  die "the refused run with tools wrote files to $tmp/results-notools; it must stop before any request"
fi
create_tools_model() { cd "$tmp/model" && ollama_cli "$ollama_bin" "$tmp/home" create "$TOOLS_MODEL" -f Modelfile.tools; }
job create_tools_model >"$tmp/create-tools.log" 2>&1 ||
  die "ollama create $TOOLS_MODEL failed: $(tr '\r' '\n' <"$tmp/create-tools.log" | tail -n 5)"
suite tools . 3x 1 BENCH_PROMPTS="$ONE_PROMPT" BENCH_TOOLS=testdata/tools.json BENCH_CONCURRENCY=1 BENCH_WARMUPS=1 \
  BENCH_MAX_TOKENS=32 BENCH_CONTROL=off OLLAMA_MODEL="$TOOLS_MODEL" OLLAMA_V1_MODEL="$TOOLS_MODEL"
e2e_env+=(E2E_TOOLS_SUMMARY="$json" E2E_TOOLS_RUNTIMES="ollama,ollama-v1"
  E2E_TOOLS_MODEL="$TOOLS_MODEL" E2E_TOOLS_FILE="$PWD/testdata/tools.json")

phase "check workloads"
e2e_test TestWorkloads "$tmp/workloads.log" "recorded workloads and tools"
e2e_test TestAgentLoop "$tmp/agentloop.log" "an agent loop's turn through both APIs"

phase "suite runs, other APIs"
# BENCH_API through the real server, short runs (one prompt, concurrency
# 2, two rounds, 32 tokens): text completions (/v1/completions), and
# embeddings through both runtimes (native /api/embed, /v1/embeddings;
# two inputs a request). Ollama 0.6.5 has no /v1/responses and no
# /v1/messages (0.13.3 and 0.14.0 added them): each must be refused
# before any request, exit 2, naming the API.
api_env=(BENCH_PROMPTS="$ONE_PROMPT" BENCH_CONCURRENCY=2 BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off)
suite completions . "${API_ROUNDS}x" 1 "${api_env[@]}" BENCH_RUNTIMES=ollama-v1 BENCH_API=completions
api_summaries=$json
suite embeddings . "${API_ROUNDS}x" 1 "${api_env[@]}" BENCH_API=embeddings BENCH_EMBED_BATCH=2
api_summaries+=",$json"
e2e_env+=(E2E_API_SUMMARIES="$api_summaries" E2E_API_ROUNDS="$API_ROUNDS")
# One runtime: both would reach the same path of one server, which the
# suite refuses for that reason first.
for api in responses messages; do
  refused "$api" "does not serve the $api API" "${api_env[@]}" BENCH_RUNTIMES=ollama-v1 BENCH_API="$api"
done
# The generated model is text only (/api/show capabilities without
# "vision"): a run with images must be refused before any request.
refused images "serves $MODEL_NAME, which takes no images" "${api_env[@]}" BENCH_RUNTIMES=ollama BENCH_IMAGES=1@64x64

phase "suite run, HTTP trace and ramp"
# Each request's HTTP stamps (BENCH_HTTP_TRACE=on), after a ramp of 3 s
# (BENCH_RAMP) whose requests are recorded apart and in no figure.
suite httptrace . 3x 1 "${api_env[@]}" BENCH_RUNTIMES=ollama BENCH_HTTP_TRACE=on BENCH_RAMP=3s
e2e_env+=(E2E_HTTP_SUMMARY="$json")

phase "check other APIs, HTTP trace"
e2e_test TestAPIs "$tmp/apis.log" "other APIs"
e2e_test TestHTTPTrace "$tmp/httptrace.log" "HTTP trace and ramp"

if [ "$next" = 1 ]; then
  phase "start ollama $OLLAMA_NEXT_VERSION beside it"
  # The same model, created in a models folder of its own, the newer
  # server on another port; 0.6.5 keeps serving.
  old_url=$url
  start_ollama "$next_bin" "$OLLAMA_NEXT_VERSION" "$tmp/home-next"
  next_url=$url
  create_next_model() { cd "$tmp/model" && ollama_cli "$next_bin" "$tmp/home-next" create "$MODEL_NAME" -f Modelfile; }
  job create_next_model >"$tmp/create-next.log" 2>&1 ||
    die "ollama $OLLAMA_NEXT_VERSION create failed: $(tr '\r' '\n' <"$tmp/create-next.log" | tail -n 5)"
  old_rt=ollama@$OLLAMA_VERSION new_rt=ollama@$OLLAMA_NEXT_VERSION
  old_var=OLLAMA_${OLLAMA_VERSION//./_} new_var=OLLAMA_${OLLAMA_NEXT_VERSION//./_}
  # What both new phases run: one prompt, 64 tokens, concurrency 1 and 4,
  # six samples a leaf (compare's least for a verdict). The upgrade's of
  # two rounds each: at one (83 s against 165 s here) compare could see
  # only a decode change of ±34% at 1 user.
  # shellcheck disable=SC2054 # the commas are in the values
  pair_env=(BENCH_PROMPTS="$ONE_PROMPT" BENCH_CONCURRENCY=1,4 BENCH_MAX_TOKENS=64 BENCH_WARMUPS=1 BENCH_CONTROL=off
    "${old_var}_URL=$old_url" "${old_var}_MODEL=$MODEL_NAME" "${new_var}_URL=$next_url" "${new_var}_MODEL=$MODEL_NAME")

  phase "suite run, upgrade side by side"
  # Both versions in one run (runtime names PRODUCT@TAG), their leaf runs
  # alternating; TestUpgrade runs compare on it and checks each load's
  # call on decode against both servers' own counters.
  suite upgrade . 2x 6 "${pair_env[@]}" BENCH_RUNTIMES="$old_rt,$new_rt"
  e2e_env+=(E2E_UPGRADE_TXT="$txt" E2E_UPGRADE_SUMMARY="$json" E2E_UPGRADE_OLD="$old_rt" E2E_UPGRADE_NEW="$new_rt")
  e2e_test TestUpgrade "$tmp/upgrade.log" "upgrade side by side"

  phase "same version twice, busy neighbour"
  # Two runs of the newer version alone, the first with a CPU burner
  # beside it for its first 20 s: compare may claim no change. One round a
  # sample (77 s for both runs here, against 120 s at two): fewer rounds
  # make a false claim no likelier, as compare's test takes the spread.
  burn() { timeout 20 sh -c 'while :; do :; done'; }
  burn &
  burn_pgid=$!
  # With the servers, so that the clean-up stops it on a failure or Ctrl-C.
  server_pgids+=("$burn_pgid")
  suite busy . 1x 6 "${pair_env[@]}" BENCH_RUNTIMES="$new_rt"
  stop_group "$burn_pgid"
  same_txt=$txt same_json=$json
  suite quiet . 1x 6 "${pair_env[@]}" BENCH_RUNTIMES="$new_rt"
  e2e_env+=(E2E_SAME_TXT="$same_txt,$txt" E2E_SAME_SUMMARIES="$same_json,$json")
  e2e_test TestSameVersion "$tmp/sameversion.log" "same version twice, busy neighbour"
fi

end_phase
printf '\n== figures\n'
# The tests' t.Logf lines, without go test's "    file_test.go:NN: ".
sed -n -E 's/^ +[A-Za-z0-9_]+_test\.go:[0-9]+: //; /^(client-side decode|client \/ server|TTFT:|ours: median|control:|cold prompt rate:|warm run:|capacity:|open loop (rate|TTFT)|leaf, in order|row ollama\/|control, fresh|fresh=leaf:|log: |N +words|[0-9]+ +[0-9]+ +[0-9.]+ +[0-9]+ |num_ctx |turn +(requests|messages)|[0-9]+ +[0-9]+ +([0-9.]+ +){4}[0-9.]+$|[0-9]+ +[0-9]+ +user|turn [0-9]+: prompt evaluation per|conversation of [0-9]+ turns|messages OK)/s/^/  /p' \
  "$tmp/accuracy.log" "$tmp/peer.log" "$tmp/coldprompt.log" "$tmp/warmprompt.log" "$tmp/openloop.log" "$tmp/fresh.log" "$tmp/input.log" \
  "$tmp/turns.log"
figures "$tmp/workloads.log" "$tmp/agentloop.log" "$tmp/apis.log" "$tmp/httptrace.log"
if [ "$next" = 1 ]; then figures "$tmp/upgrade.log" "$tmp/sameversion.log"; fi
