// Compare compares saved benchmark runs with benchstat, after checking that
// the comparison would compare something.
//
// Usage:
//
//	scripts/compare.sh OLD NEW
//	scripts/compare.sh RUN
//	scripts/compare.sh -list
//	go run ./cmd/compare [-dir DIR] [-min-effect 3%] OLD NEW | RUN | -list
//
// With two runs it runs go tool benchstat OLD NEW: each benchmark's median
// in both, the change and its p-value, in a "vs base" column. With one it
// runs go tool benchstat -col /runtime RUN: the run's runtimes side by side,
// the first runtime the base. It prints benchstat's output as it is, then
// the verdict (below). -list lists the runs there are to compare (see
// Finding runs).
//
// OLD, NEW and RUN are run IDs, paths or NAME@VERSION (see Finding
// runs). A run ID (20261202T113718Z: no
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
//     (BENCH_TOOLS' file), trace_speed (where both replayed a trace),
//     the text of each prompt both ran (BENCH_PROMPTS_DIR, or the suite's
//     own prompts edited between the runs; a workload's is its file,
//     format and sample, "8 conversations of 40", so a BENCH_WORKLOAD_N
//     sample does not compare with the whole file), and a runtime's server settings
//     where both runs stated some (NAME_SERVER_ENV, runtimes[].server_env:
//     "not comparable: ollama server OLLAMA_NUM_PARALLEL 1 in OLD, 4 in
//     NEW") (internal/summary's Differences, comparable.go, has the rule). A run asked for 64 tokens answers sooner, and its canary
//     reply is shorter, than one asked for 128: the figures measure other
//     work. compare names each setting that differs with both values
//     ("not comparable: max_tokens 128 in OLD, 256 in NEW"), and suggests
//     no way around it; with configuration lines that differ too, the
//     settings are named after them, and the benchstat command that
//     ignores those keys is left out. Settings that change only how many
//     samples there are (count, rounds, benchtime, warmups) compare, as do
//     the prompts, loads and runtimes chosen (they make other rows, and
//     benchstat compares the rows both have). A
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
// and, for each runtime of either run whose control leaf drifted
// (BENCH_CONTROL: the leaf run again at the end of the run moved from its
// first run; the summary's runtimes[].control), what moved:
//
//	control: OLD (results/20261206T040305Z.txt): ollama's control drifted: its leaf runtime=ollama/prompt=short/conc=1, run again at the end of the run, moved from its first run (decode -50.0%): the server or the machine changed during the run, so its figures are no baseline
//
// and for each whose control went unjudged (its verdict "too few
// requests": too few requests on a side for the test), why, as the run
// said it (the control's unjudged_reason; in a file written before that,
// from its requests), since a drift in that run would not show:
//
//	control: NEW (results/20261206T040649Z.txt): ollama's control was not judged: ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s): a drift during this run would not show
//
// The cpu example is real: go test prints the CPU's name as the processor
// reports it, while the suite's results/<id>.txt has the kernel's name
// for it (/proc/cpuinfo on Linux), so a saved go test output and a
// results file of the same machine may differ in cpu.
//
// # The verdict
//
// After benchstat's tables compare prints the answer: first a headline
// line for each thing compared (with two runs each runtime, OLD → NEW;
// with one run each runtime against the first), then each test behind it,
// then the rule:
//
//	verdict: ollama 0.6.5 → 0.7.0: worse: decode -15.0% at 1 user, -15.0% at 4 users; TTFT mean +25.4% at 1 user, +21.6% at 4 users; aggregate -17.0% at 1 user, -15.5% at 4 users
//	ollama 0.6.5 → 0.7.0:
//	  decode at 1 user: 400 → 340 tok/s, -15.0% (p=0.002, Holm 0.013): worse
//	  …
//	judged: 6 tests (decode-tok/s, ttft-sec, agg-tok/s at each leaf): a change is called where its Holm-adjusted p ≤ 0.05 (…) and it is 3% or more (-min-effect); the tables' other figures are not judged
//
// The verdict judges the headline figures alone (internal/figures'
// Headline): the median request's decode rate (decode-p50-tok/s; the mean,
// decode-tok/s, in files that lack the median), TTFT (ttft-sec) and the
// aggregate output rate (agg-tok/s), and an embeddings leaf's requests a
// second; benchstat's tables show every figure. Each headline figure of
// each leaf is one test, benchmath's Mann–Whitney U-test as benchstat's
// table computes it (the p-values are the table's), and every test of
// the comparison is one family: a change is called where its p-value,
// adjusted by Holm's method over the family, is at most 0.05 (the chance
// that a comparison of unchanged runs calls anything is then at most 5%)
// and where it is at least the smallest change that counts, -min-effect
// (3% by default: two runs of one setup differ by less; docs/method.md has
// the data). A change beyond noise but smaller is listed as "no change
// (beyond noise, but less than 3%)". Where nothing is called the
// headline says what the comparison could have seen: the smallest change
// of each figure its samples would have called ("no change (it would have
// seen decode p50 ±5.4%, TTFT mean ±10.2%, aggregate ±5.9%)"). Six
// samples against six give p = 0.0022 at best, so a family of more than
// 23 tests can call nothing at -count=6: compare says so, with the -count
// that could, and gives no verdict.
//
// A leaf is named by the levels that differ among the line's leaves: "at
// 4 users", "code at 1 user", "at 2 req/s"; nothing when there is one.
// Where a runtime's canary reply changed (above), its line ends "its
// canary reply changed (see above)".
//
// There is no verdict, and compare exits 3, when a figure has fewer than
// 6 samples on either side (go test -count=6 or more; benchstat shows no
// interval below 6 either, and 3 against 3 never reaches p < 0.1):
//
//	verdict: no verdict: n=3, need 6 (go test -count=6 or more; with fewer, a change cannot be told from noise)
//
// nor for a comparison with a runtime whose control drifted (see
// Checks):
//
//	verdict: ollama 0.6.5 → 0.7.0: no verdict: OLD, the baseline, drifted (decode -50.0%, see above)
//
// nor at a leaf where either side ran disturbed (the summary's
// leaf_runs: other processes used more of the machine than its busy_max
// during some of the leaf's runs; docs/method.md). The leaf is left out
// of the family and the line says why; the other leaves are judged:
//
//	verdict: sim sim-1, NEW vs OLD: worse: decode p50 -9.9% at 4 users; no verdict at 1 user: during 5 of 6 NEW leaf runs other processes used up to 0.93 of 2 cores: the machine, not only the runtime, is in its figures
//
// A run compared with itself (one file, or a copy: the same results and
// summary byte for byte) is refused: "this is the same run".
//
// # Finding runs
//
// -list lists the runs in $BENCH_OUTPUT_DIR (results/ by default), oldest
// first, from their summary JSON files: run ID, start (UTC), host label
// (BENCH_HOST_LABEL, else the machine's name), -count (N), the work
// (WORK: the prompts, and where not the default the API, the loads, the
// cache mode, turns, shared prefix, workload, images, tools and the
// server's settings, NAME_SERVER_ENV), and each runtime with its version
// (and its kind, where one name ran as two kinds), marked "(control drifted)" where its control
// drifted and "(control unjudged)" where it got no verdict (see Checks);
// a run cut short is marked "incomplete", one without its .txt "not
// comparable":
//
//	RUN               STARTED (UTC)     HOST      N  WORK           RUNTIMES
//	20261206T040305Z  2026-12-06 04:03  mac-mini  6  prompts=short  mlx 0.32.2 (mlx 0.32.4), ollama 0.6.5 (control drifted)
//	20261206T040505Z  2026-12-06 04:05  mac-mini  6  prompts=short  mlx 0.32.2 (mlx 0.32.4), ollama 0.7.0
//	20261206T040546Z  2026-12-06 04:05  mac-mini  3  prompts=short  ollama 0.7.1
//
// An argument NAME@VERSION that is not a file is the newest run (by its
// start) in that folder that ran runtime NAME (its name in BENCH_RUNTIMES)
// at VERSION, as the run recorded it (the server's, or NAME_VERSION): the
// whole version, or a start of it followed by ".", "-", "+" or " " that
// only one recorded version has (ollama@0.7 for 0.7.1 alone). compare says
// which run it took:
//
//	run: ollama@0.6.5 is 20261206T040427Z (mac-mini, started 2026-12-06 04:04 UTC), the newest run of ollama at 0.6.5
//
// With two arguments, one of them NAME@VERSION, compare compares runtime
// NAME's rows alone (benchstat -filter /runtime:"NAME"), and says NAME's
// versions and canary replies alone; both must name the same runtime.
// The second NAME@VERSION is the newest run of its version whose work
// (WORK, with NAME's kind) is the first argument's; compare names the
// runs of other work it left out, or, where none did that work, says it
// took the newest and lists the others. One NAME@VERSION alone is that
// run's runtimes side by side. It fails
// when no run ran NAME, or none at that version (naming the versions
// there are), when the version is ambiguous (naming the ones it matches),
// and when both arguments are the same run.
//
// # Flags
//
//	-dir DIR         take relative paths from DIR (default: the current
//	                 folder; scripts/compare.sh passes the one it was run from)
//	-list            list the runs there are to compare (see Finding runs)
//	-min-effect 3%   the smallest change the verdict calls: a share below
//	                 100%, 3% or 0.03 (0 calls any change beyond noise)
//
// # Exit status
//
//	0  benchstat compared and the verdict called nothing worse; two
//	   runtimes of one run, one slower than the other, are a comparison,
//	   not a regression; -h
//	1  a run's file is missing (the message names the path looked for),
//	   unreadable, would compare nothing or runs of different settings
//	   (see Checks); both are the same run; a NAME@VERSION finds no run or
//	   more than one version; -list finds no run; benchstat could not be run
//	2  a usage error: no argument or more than two (any with -list), an
//	   empty one, one starting with "-" that is no flag, or a -min-effect
//	   that is not a share below 100%
//	3  benchstat compared but there is no verdict: too few samples, a
//	   family too large for them, a drifted control, or a leaf left out
//	   (see The verdict)
//	4  the verdict called a figure of one runtime's versions worse (two
//	   runs, or two tagged names of one product in one run, ollama@old and
//	   ollama@new): a regression, so that a CI step fails on it
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
//
// Is Ollama or mlx_lm faster at 1 and 4 users, and did the last Ollama
// upgrade slow it? Two runs of both, one before the upgrade and one after
// (OLLAMA_VERSION where the server's own version is not the one to
// record), then:
//
//	scripts/compare.sh -list
//	scripts/compare.sh 20261206T040505Z             # mlx and ollama side by side
//	scripts/compare.sh ollama@0.6.5 ollama@0.7.0    # ollama before and after
package main
