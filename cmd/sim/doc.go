// Sim serves the suite's simulator (package runtimes/sim) as a process of
// its own, so that a run can benchmark two or more simulated runtimes side
// by side, or one before and after an "upgrade", without writing Go.
//
// Usage:
//
//	go run ./cmd/sim [-port N] [-flavor F] [-version V] [flags]
//
// It serves on 127.0.0.1, at port N (default 0: a free one), prints the
// server's URL as one line on stdout (http://127.0.0.1:8081), says what it
// plays on stderr, and serves until interrupted (SIGINT, Ctrl-C, or
// SIGTERM), when it closes the server (streams in flight end with their
// connection) and exits 0.
//
// # Flags
//
//	-port N  the port to serve on, on 127.0.0.1 (default 0: a free one)
//
// and every setting of the simulator, each a flag named after its SIM_
// variable: SIM_TTFT is -ttft, SIM_TOKENS_PER_SEC -tokens-per-sec (or
// -tps), SIM_FLAVOR -flavor, SIM_VERSION -version, SIM_DEGRADE -degrade.
// The variables are read too; a flag wins over its variable. -h lists the
// flags with their variables and defaults (the table of them is the
// simulator's: go doc ./runtimes/sim tells each setting's story). Boolean
// flags (-tools-held, -close-after-stream, -metrics) take their value
// after "=" (-metrics=0).
//
// # Exit status
//
//	0  interrupted after serving (SIGINT, Ctrl-C, or SIGTERM), or -h
//	1  the port could not be listened on (taken, say)
//	2  refused before serving: an unknown flag (with the closest flag), a
//	   value a setting does not take, settings that do not go together, an
//	   argument that is not a flag, or a SIM_ variable in the environment
//	   that is no setting (with the closest)
//
// A refusal names the flag or variable and its value (`sim:
// SIM_TOKENS_PER_SEC="fast": not a number (from -tps)`). The suite's own
// variables for its built-in simulator, SIM_URL, SIM_MODEL, SIM_KIND,
// SIM_API_KEY, are let be.
//
// # Flavors and versions
//
// -flavor is the server played, as the suite sees it:
//
//	ollama     Ollama: /api/chat, /api/version, /api/show, /api/tags, /api/ps and /v1
//	mlx        mlx_lm.server: /v1 only, its version in every chunk's system_fingerprint
//	vllm       vLLM (the default): /version, /tokenize, /reset_prefix_cache, and Ollama's
//	llamacpp   llama-server: /props, /slots, /tokenize, and Ollama's
//	lmstudio   LM Studio: /api/v0/models
//	plain      an OpenAI-compatible server with nothing more, and Ollama's
//	tgi        text-generation-inference: /info, /v1/models in its shape, /metrics in its names
//
// -version is the version it states, as its server does: Ollama's GET
// /api/version {"version":"0.7.0"}, vLLM's GET /version, llama-server's
// /props build_info, mlx_lm.server's system_fingerprint
// ("0.33.0-0.32.4-Linux-sim-x86_64", which the suite records as "0.33.0
// (mlx 0.32.4)"). The suite records it in each run's summary as the
// runtime's version, and cmd/compare names it.
//
// # Two runtimes and an upgrade
//
// Is Ollama or mlx_lm faster at 1 and 4 users, and did Ollama's upgrade
// slow it? In three terminals (see docs/simulator.md for the output):
//
//	go run ./cmd/sim -flavor ollama -version 0.6.5 -port 11435
//	go run ./cmd/sim -flavor mlx -tps 450 -batch-slowdown 0.5 -port 8081
//	BENCH_RUNTIMES=ollama,mlx OLLAMA_URL=http://127.0.0.1:11435 MLX_URL=http://127.0.0.1:8081 \
//	  BENCH_CONCURRENCY=1,4 go test -run='^$' -bench=. -count=6 .
//
// then stop the first (Ctrl-C), start the "upgrade", and run the suite
// again:
//
//	go run ./cmd/sim -flavor ollama -version 0.7.0 -tps 350 -port 11435
//
// scripts/compare.sh RUN puts one run's runtimes side by side;
// scripts/compare.sh OLD NEW compares the runs.
package main
