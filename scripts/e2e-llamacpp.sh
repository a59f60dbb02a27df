#!/usr/bin/env bash
# End-to-end run of the suite against a real llama.cpp llama-server, with
# the GGUF model the project generates (cmd/genmodel), on this machine's
# CPU.
#
#   bash scripts/e2e-llamacpp.sh    # about 25 s with the build cached, about 6 more minutes to build
#
# llama.cpp publishes no package that the reachable registries serve, but
# llama-cpp-python's source distribution carries llama.cpp's whole source
# tree (vendor/llama.cpp, tools/server among it): the script downloads
# that file, pinned by version and SHA-256, and builds llama-server alone
# from it with CMake (CPU backend, no web UI, no network features; about
# 6 minutes on 2 cores), into the cache folder, where a build of the same
# pin is reused. The server reports its build as b1-0c1e570 (llama.cpp
# commit 0c1e570).
#
# It starts three servers on loopback ports with the model: one generating
# (2 slots, --metrics, --slot-save-path so that the suite can erase its
# slots before each leaf), one started with --embeddings (mean pooling),
# as llama-server serves embeddings only when asked to, and one with
# --mmproj, the vision projector cmd/genmodel -format mmproj writes. Then:
#
#   - cold: chat completions, prompts short and medium, concurrency 1 and
#     2, 64-token replies (BENCH_IGNORE_EOS=on), the control leaf;
#   - other APIs (BENCH_API, concurrency 2, 32 tokens): completions,
#     responses and messages on the generating server, embeddings on the
#     other with batches of 4 inputs; the generating server's
#     embeddings refused before any request, exit 2, and images too (its
#     /props modalities: no vision), its prompt counter unchanged;
#   - images: one 64x64 PNG a request (BENCH_IMAGES=1@64x64) to the
#     server with the projector, beside the same prompts without images;
#   - the HTTP trace after a 2 s ramp (BENCH_HTTP_TRACE=on, BENCH_RAMP);
#   - a metric series: llama-server's /metrics every 200 ms at
#     concurrency 4 on 2 slots (BENCH_METRICS_INTERVAL): requests
#     processing and deferred;
#   - the generating server's memory in the summary (server_rss_bytes)
#     against ps's RSS of its process, within 5%.
#
# TestAPIs, TestHTTPTrace, TestSeries, TestServerCounters and TestImages
# (internal/e2e, -tags e2e) check the runs and print their tables.
#
# It stops everything it started (also on Ctrl-C or a failure), and exits
# non-zero with a line starting "e2e-llamacpp: FAIL:" when anything fails.
#
# Settings (environment):
#   E2E_CACHE_DIR   where the build is kept
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench)
#   E2E_KEEP=1      keep the temporary folder (logs, results) and say where
set -euo pipefail
cd "$(dirname "$0")/.."

E2E_NAME=e2e-llamacpp
tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e-llamacpp.XXXXXX")
# shellcheck source=scripts/lib/e2e.sh
. scripts/lib/e2e.sh

# llama-cpp-python 0.3.36's source distribution: llama.cpp at commit
# 0c1e570 (ggml 0.25.3).
LCP_VERSION=0.3.36
LCP_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
LLAMA_BUILD=b1-0c1e570
MODEL_NAME=inferencebench-e2e
CTX=4096
SLOTS=2
MAX_TOKENS=64
ROUNDS=3
SERIES_ROUNDS=8
CACHE=${E2E_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/inferencebench}

e2e_traps

# --- tools and the build --------------------------------------------------------

phase "tools"
command -v go >/dev/null || die "go is not on PATH"
command -v python3 >/dev/null || die "python3 is not on PATH"
missing=()
command -v pgrep >/dev/null || missing+=(procps)
command -v curl >/dev/null || missing+=(curl)
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
install_missing "${missing[@]}"
cmake --version | head -n 1

# build_server: llama-server from llama-cpp-python $LCP_VERSION's source
# distribution, into $CACHE/llama-server-$LCP_VERSION/llama-server.
build_server() {
  local dir=$1 src=$tmp/src sdist
  mkdir -p "$src"
  printf 'llama-cpp-python==%s --hash=sha256:%s\n' "$LCP_VERSION" "$LCP_SHA256" >"$tmp/pin.txt"
  job python3 -m pip download -q --no-deps --no-binary :all: --require-hashes -r "$tmp/pin.txt" -d "$src" ||
    die "downloading llama-cpp-python $LCP_VERSION's source distribution failed (see above)"
  sdist=$src/llama_cpp_python-$LCP_VERSION.tar.gz
  [ -f "$sdist" ] || die "pip wrote no $sdist"
  job tar -xzf "$sdist" -C "$src" || die "unpacking $sdist failed"
  local tree=$src/llama_cpp_python-$LCP_VERSION/vendor/llama.cpp
  [ -f "$tree/tools/server/CMakeLists.txt" ] || die "$sdist has no vendor/llama.cpp/tools/server"
  # Static, CPU only, for any x86-64 (no -march=native: the cache may
  # serve another machine), no web UI and nothing fetched at build time.
  job cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >"$tmp/cmake.log" 2>&1 ||
    die "cmake could not configure llama.cpp (see $tmp/cmake.log)"
  job nice cmake --build "$tree/build" --target llama-server -j "$(nproc)" >"$tmp/build.log" 2>&1 ||
    { tail -n 20 "$tmp/build.log"; die "building llama-server failed (see above)"; }
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$tree/build/bin/llama-server" "$dir/llama-server"
  echo "$LCP_VERSION $LCP_SHA256" >"$dir/.stamp"
}

phase "build llama-server"
server_dir=$CACHE/llama-server-$LCP_VERSION
server=$server_dir/llama-server
if [ "$(cat "$server_dir/.stamp" 2>/dev/null)" = "$LCP_VERSION $LCP_SHA256" ] && [ -x "$server" ]; then
  log "reusing $server"
else
  log "building llama-server from llama-cpp-python $LCP_VERSION's source (about 6 minutes on 2 cores)"
  build_server "$server_dir"
fi
"$server" --version 2>&1 | grep -E '^version' || die "$server --version failed"

phase "build checks, write model"
job go test -tags e2e -c -o "$tmp/e2e.test" ./internal/e2e/ || die "building the tests of internal/e2e (-tags e2e) failed"
job go run ./cmd/genmodel -o "$tmp/model.gguf" || die "cmd/genmodel failed"
job go run ./cmd/genmodel -format mmproj -o "$tmp/mmproj.gguf" || die "cmd/genmodel -format mmproj failed"

# --- servers -------------------------------------------------------------------

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

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
mkdir -p "$tmp/slots" "$tmp/home"
# One thread each (the other core is the client's), the model under one
# name, no network, a temporary home.
serve=(env -i PATH="$PATH" HOME="$tmp/home" "$server" -m "$tmp/model.gguf" -a "$MODEL_NAME" --host 127.0.0.1
  -c "$CTX" -np "$SLOTS" -t 1 --metrics --slot-save-path "$tmp/slots" --no-webui)
gen_port=$(free_port)
"${serve[@]}" --port "$gen_port" >"$tmp/serve-llamacpp.log" 2>&1 &
gen_pgid=$!
server_pgids+=("$gen_pgid")
emb_port=$(free_port)
"${serve[@]}" --port "$emb_port" --embeddings --pooling mean >"$tmp/serve-llamacpp-embeddings.log" 2>&1 &
emb_pgid=$!
server_pgids+=("$emb_pgid")
gen_url=http://127.0.0.1:$gen_port
emb_url=http://127.0.0.1:$emb_port
wait_up llama-server "$gen_pgid" "$gen_url/health" 120
vis_port=$(free_port)
"${serve[@]}" --port "$vis_port" --mmproj "$tmp/mmproj.gguf" >"$tmp/serve-llamacpp-vision.log" 2>&1 &
vis_pgid=$!
server_pgids+=("$vis_pgid")
vis_url=http://127.0.0.1:$vis_port
wait_up "llama-server --embeddings" "$emb_pgid" "$emb_url/health" 120
wait_up "llama-server --mmproj" "$vis_pgid" "$vis_url/health" 120
vision=$(curl -sf "$vis_url/props" | python3 -c 'import json, sys; print(json.load(sys.stdin)["modalities"]["vision"])')
[ "$vision" = True ] || die "llama-server --mmproj says modalities.vision $vision in /props, want true"
build=$(curl -sf "$gen_url/props" | python3 -c 'import json, sys; print(json.load(sys.stdin)["build_info"])')
[ "$build" = "$LLAMA_BUILD" ] || die "llama-server's /props build_info is $build, want $LLAMA_BUILD"
log "llama-server $build answers on $gen_url, with --embeddings on $emb_url and with --mmproj on $vis_url"

bench_env=(BENCH_RUNTIMES=llamacpp LLAMACPP_URL="$gen_url" LLAMACPP_MODEL="$MODEL_NAME" BENCH_TEMPERATURE=0
  BENCH_WARMUPS=1 BENCH_TIMEOUT=120s)
api_env=(BENCH_PROMPTS=short BENCH_CONCURRENCY=2 BENCH_MAX_TOKENS=32 BENCH_CONTROL=off)

# --- suite runs ----------------------------------------------------------------

phase "suite run, cold prompts"
suite cold . "${ROUNDS}x" 1 BENCH_PROMPTS=short,medium BENCH_CONCURRENCY=1,"$SLOTS" \
  BENCH_MAX_TOKENS="$MAX_TOKENS" BENCH_IGNORE_EOS=on BENCH_WARMUPS=2 BENCH_CONTROL_MAX=1m
summaries=$json
counters=$json

phase "suite runs, other APIs"
for api in completions responses messages; do
  suite "$api" . "${ROUNDS}x" 1 "${api_env[@]}" BENCH_API="$api"
  summaries+=",$json"
done
refused embeddings-refused "does not serve the embeddings API" "${api_env[@]}" BENCH_API=embeddings
# Images to a model without a projector: refused from /props, and the
# server processed no prompt meanwhile.
gen_counter() { curl -sf "$gen_url/metrics" | awk -v m="llamacpp:$1" '$1 == m { print $2 }'; }
before=$(gen_counter prompt_tokens_total)
refused images-refused "/props modalities" "${api_env[@]}" BENCH_IMAGES=1@64x64
after=$(gen_counter prompt_tokens_total)
if [ -z "$before" ] || [ "$before" != "$after" ]; then
  die "llama-server's prompt_tokens_total went from ${before:-nothing} to ${after:-nothing} during the refused images run"
fi
suite embeddings . "${ROUNDS}x" 1 "${api_env[@]}" BENCH_API=embeddings BENCH_EMBED_BATCH=4 LLAMACPP_URL="$emb_url"
summaries+=",$json"

phase "suite runs, images"
# One image of 64x64 a request to the model with the projector (which
# sees it as 32x32: 16 patches), and the same prompts without images.
img_env=(BENCH_PROMPTS=short BENCH_CONCURRENCY="1,$SLOTS" BENCH_MAX_TOKENS=32 BENCH_CONTROL=off LLAMACPP_URL="$vis_url")
suite images-none . "${ROUNDS}x" 1 "${img_env[@]}"
images_base=$json
suite images . "${ROUNDS}x" 1 "${img_env[@]}" BENCH_IMAGES=1@64x64
images=$json

phase "suite run, HTTP trace and ramp"
suite httptrace . 3x 1 "${api_env[@]}" BENCH_HTTP_TRACE=on BENCH_RAMP=2s
httptrace=$json

phase "suite run, metric series"
suite series . "${SERIES_ROUNDS}x" 1 "${api_env[@]}" BENCH_CONCURRENCY=4 BENCH_MAX_TOKENS="$MAX_TOKENS" \
  BENCH_IGNORE_EOS=on BENCH_METRICS_INTERVAL=200ms
series=$json

phase "server memory against ps"
# The generating server's resident memory at the series run's end against
# ps's RSS of its process now (scripts/lib/e2e.sh).
check_server_memory llama-server "$gen_port" "$series" llamacpp

phase "check runs"
e2e_env=(E2E_API_SUMMARIES="$summaries" E2E_API_ROUNDS="$ROUNDS"
  E2E_HTTP_SUMMARY="$httptrace" E2E_SERIES_SUMMARY="$series" E2E_SERIES_RUNTIMES=llamacpp E2E_SERIES_KV=none
  E2E_COUNTERS_SUMMARY="$counters" E2E_COUNTERS_RUNTIME=llamacpp E2E_LLAMACPP_BUILD="$LLAMA_BUILD"
  E2E_IMAGES_SUMMARY="$images" E2E_IMAGES_BASE="$images_base" E2E_IMAGES_N=1 E2E_IMAGES_SIZE=64x64 E2E_IMAGES_PATCHES=16)
e2e_test TestAPIs "$tmp/apis.log" "llama-server's APIs"
e2e_test TestHTTPTrace "$tmp/httptrace.log" "HTTP trace and ramp"
e2e_test TestSeries "$tmp/series.log" "llama-server's metric series"
e2e_test TestServerCounters "$tmp/counters.log" "llama-server's /metrics against the client"
e2e_test TestImages "$tmp/images.log" "images to llama-server --mmproj"

end_phase
printf '\n== figures\n'
figures "$tmp/apis.log" "$tmp/httptrace.log" "$tmp/series.log" "$tmp/counters.log" "$tmp/images.log"
