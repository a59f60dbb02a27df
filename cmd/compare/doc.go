// Compare compares saved benchmark runs with benchstat, after checking that
// the comparison would compare something.
//
// Usage:
//
//	scripts/compare.sh OLD NEW
//	scripts/compare.sh RUN
//	go run ./cmd/compare [-dir DIR] OLD NEW | RUN
//
// With two runs it runs go tool benchstat OLD NEW: each benchmark's median
// in both, the change and its p-value, in a "vs base" column. With one it
// runs go tool benchstat -col /runtime RUN: the run's runtimes side by side,
// the first runtime the base. It prints benchstat's output as it is.
//
// OLD, NEW and RUN are run IDs or paths. A run ID (20261202T113718Z: no
// "/" and no ".") is read from $BENCH_OUTPUT_DIR/<id>.txt, results/ by
// default or when empty (blank, it is an error, as for go test); a relative
// BENCH_OUTPUT_DIR is taken from the repository root,
// where go test writes it. A path is any file in the Go benchmark format:
// results/<id>.txt, or the saved output of go test -bench. Relative paths
// are taken from DIR, by default the current folder; scripts/compare.sh
// passes the folder it was run from.
//
// compare runs benchstat from the repository root (the nearest folder
// above the current one whose go.mod is github.com/inferencebench/inferencebench),
// so that go.mod's tool line provides it, and names each file from there,
// as benchstat labels its columns: cmd/compare/testdata/warm-old.txt. A
// file outside the repository keeps its absolute path. benchstat reads an
// argument "label=path" as a labelled path, so a path with a "=" in it is
// given to it as label=path with each "=" of the label turned into "_".
//
// # Checks
//
// benchstat compares nothing, and says so only by leaving out the "vs
// base" column or leaving its rows empty, when the inputs do not line up.
// compare reads the files first (with golang.org/x/perf/benchfmt) and
// fails with exit status 1 and a message on stderr, without running
// benchstat, when:
//
//  1. a file has no benchmark results: a run whose requests all failed
//     (every runtime unreachable, say) writes a results file with none; an
//     empty file, a summary JSON, or go test output cut off in a result line
//     has none either.
//
//  2. OLD and NEW have no configuration in common. benchstat puts results
//     whose configuration lines (goos, goarch, pkg, cpu, cache, any
//     "key: value" line) differ into separate tables, one run in each.
//     compare names each key that differs, with its values in both files,
//     and prints the benchstat command that ignores those keys. The key
//     cache says whether the prompts were in the server's prompt cache:
//     "cold" or "warm". Cold and warm runs do not compare, and compare does
//     not suggest ignoring it: a cold run's TTFT includes the whole prompt's
//     prefill, a warm one's only a cache hit. A file without a cache line
//     was written before the key existed and is read as warm: against a
//     warm run, compare runs benchstat with -ignore cache, so the two land in
//     one table.
//
//  3. OLD and NEW ran with different settings, which their summary JSON
//     files beside the .txt files record in "arguments" and "prompts" and
//     benchstat never sees: max_tokens, temperature, ignore_eos (where
//     both ran an OpenAI-kind runtime), num_ctx (an Ollama one),
//     burstiness (where both ran BENCH_RATES), max_inflight (where both
//     ran an open loop, a trace's or BENCH_RATES'), tools_sha256
//     (BENCH_TOOLS' file), trace_speed (where both replayed a trace), and
//     the text of each prompt both ran (internal/summary's Differences has the
//     rule). A run asked for 64 tokens answers sooner, and its canary
//     reply is shorter, than one asked for 128: the figures measure other
//     work. compare names each setting that differs with both values
//     ("not comparable: max_tokens 128 in OLD, 256 in NEW"), and suggests
//     no way around it; with configuration lines that differ too, the
//     settings are named after them, and the benchstat command that
//     ignores those keys is left out. Settings that change only how many
//     samples there are (count, rounds, benchtime, warmups) compare. A
//     summary without a setting's key (written before it existed), or a
//     .txt without a summary beside it, compares as before.
//
//  4. OLD and NEW have no benchmark in common. benchstat's rows are the
//     full benchmark names, GOMAXPROCS suffix ("-2") included. When the
//     names are the same but for that suffix, compare says so: a run with
//     another GOMAXPROCS ran on another machine or under another CPU limit
//     (benchstat -ignore /gomaxprocs compares them anyway).
//
//  5. With one run: the run has a single runtime (nothing to put side by
//     side; the message starts "RUN (file) has only one runtime"), or no
//     benchmark that two of its runtimes both ran.
//
// It also fails, after printing benchstat's output, if that output has no
// "vs base" column at all.
//
// # Messages
//
// Each message is a line on stderr starting "compare: ". For example:
//
//	compare: NEW (results/20261202T113718Z.txt) has no benchmark results (a run writes none when none of its requests succeeded, as when no runtime answered; the run's .json says why)
//
//	compare: OLD (old.txt) and NEW (results/20261202T113718Z.txt) ran in different configurations: benchstat would put them in separate tables and compare nothing
//	compare: cpu differs: "Oxide Virtual Turin-like Processor" in OLD (old.txt) against "AMD EPYC" in NEW (results/20261202T113718Z.txt)
//	compare: to compare them anyway: go tool benchstat -ignore cache,cpu old.txt results/20261202T113718Z.txt
//
//	compare: cache differs: "warm" (no cache line: written before the key existed) in OLD (…) against "cold" in NEW (…)
//	compare: cold and warm runs do not compare: a cold run's TTFT includes the whole prompt's prefill, a warm run's only a prompt-cache hit
//
//	compare: OLD (results/20261201T021700Z.txt) and NEW (results/20261202T021700Z.txt) ran with different settings: their figures measure different work and do not compare
//	compare: not comparable: max_tokens 128 in OLD, 64 in NEW
//	compare: runs of different settings do not compare: they asked each request for other work (the reply's length or sampling, the prompt, the context, the arrivals), so every figure and the canary replies change with the settings, whatever the runtime did (BENCH_MAX_TOKENS)
//
//	compare: RUN (results/20261202T113718Z.txt) has only one runtime, sim: nothing to put side by side; compare it with another run: scripts/compare.sh OLD NEW
//
// testdata/messages holds every message, from the tests.
//
// Before benchstat's output, from the summary JSON beside each .txt (none
// beside: nothing said), it says each runtime's versions, and each canary
// reply (BENCH_CANARY) that changed between OLD and NEW, once a reply
// whatever the load, placed in the whole replies that the request records
// (.requests.jsonl) beside the summaries keep, or, where one run has
// none, in the first 2,000 characters its rows keep:
//
//	versions: ollama 0.6.5 → 0.7.0, vllm-metal 0.9.1
//	canary: ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at character 15
//
// and, where both runs had goodput targets (BENCH_SLO) and they differ,
// that good-req/s does not compare (the other figures do, and benchstat
// runs):
//
//	slo: "ttft=2s" in OLD, "ttft=1s" in NEW: good-req/s counts the requests that met each run's own targets, so it does not compare; the other figures do
//
// The cpu example is real: go test prints the CPU's name as the processor
// reports it, while the suite's results/<id>.txt has the kernel's name
// for it (/proc/cpuinfo on Linux), so a saved go test output and a
// results file of the same machine may differ in cpu.
//
// # Exit status
//
// benchstat's status when it ran (0 when it compared). 1 when a run's file
// is missing (the message names the path looked for), unreadable, would
// compare nothing or runs of different settings (above), or benchstat
// could not be run. 2 for a usage
// error: no argument or more than two, an empty one, or one starting with
// "-" other than -dir, -h and -help. -h prints the usage and exits 0.
//
// go run reports any status other than 0 as 1 (and prints "exit status
// 2"); scripts/compare.sh builds compare and runs the binary, which keeps
// it.
//
// # Examples
//
// Last night against tonight, by run ID:
//
//	scripts/compare.sh 20261201T021700Z 20261202T021700Z
//
// A runtime before and after an upgrade, from saved go test output:
//
//	go test -run='^$' -bench=. -count=6 > old.txt   # … upgrade the runtime …
//	go test -run='^$' -bench=. -count=6 > new.txt
//	scripts/compare.sh old.txt new.txt
//
// One run's runtimes side by side:
//
//	scripts/compare.sh results/20261202T113718Z.txt
package main
