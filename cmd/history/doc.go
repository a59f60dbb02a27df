// History reads the summaries of many runs — a nightly benchmark's —
// and says, for every series, whether its latest run is a regression, an
// improvement or unchanged against the runs before it, with charts of
// each figure over time and the canary replies that changed.
//
// Usage:
//
//	go run ./cmd/history -o DIR [-window K] [-threshold P] [-fail-on-regression] FILES_OR_FOLDERS...
//
// The arguments are summary JSON files (<run id>.json) or folders, in
// which every *.json file at any depth is read as a summary (nightly
// artifacts are downloaded into a folder a run; the folder DIR itself, and
// any verdicts.json a history wrote, are left out, so a history can be
// written inside the folder it reads).
// Runs are put in order by created_at.
//
// # Series
//
// A series is one leaf on one machine under one workload: the rows of the
// runs that share host label, runtime, model, prompt, load (concurrency,
// or rate for an open loop), cache mode, turns, shared prefix, images and
// embeddings batch (the configuration lines of the benchstat file,
// internal/summary's WorkloadKeys; a file without one has the value
// summary.Absent says: warm, 1 turn, no prefix, no images, batch 1), and
// API (arguments.api, the chat where absent). The host label is host.label
// (BENCH_HOST_LABEL, by default the host name); files written before it
// have none, and their host.machine is used instead ("" where that is
// missing too: such files form one host, "(no host label)").
//
// A series is also one set of settings: the rows of runs that asked each
// request for the same work, by the settings their summaries record
// (internal/summary's Settings.Of): max_tokens, temperature, ignore_eos
// (OpenAI-kind runtimes), num_ctx (Ollama-kind), burstiness (BENCH_RATES'
// rows), max_inflight (open-loop rows), tools_sha256, trace_speed (a
// trace's rows) and the prompt's text. A run with another
// BENCH_MAX_TOKENS starts a series of its own where the setting changed,
// so it is not judged against a window of the old ones, and its shorter
// canary reply is no change; a run back at the old value joins the old
// series again. A file without a setting's key has the suite's default
// (max_tokens 128, temperature 0, no ignore_eos, no num_ctx, burstiness 1,
// max_inflight 256, no tools, trace_speed 1), so older
// files stay in their series. Settings that change only how many samples
// there are (count, rounds, warmups) do not split a series. Where series differ only in settings, their labels name
// the settings that differ (… · cold · max_tokens=64), and a series that
// began where a setting changed says so: "a new series from run B, where
// max_tokens 128 → 64 (run A before it)".
//
// The unit is the run: each figure is the row's run-level value (its p50,
// its p95, its mean), one value a run. The request records
// (.requests.jsonl) are read for the canary replies' whole texts only:
// requests within one run share the machine's and the server's state
// that night, so they cannot tell a change from run-to-run noise, which
// is what a nightly gate must beat. A run without its records counts
// like any other.
//
// # Figures and the method
//
// The figures judged are TTFT p50 and p95 (lower is better), the mean
// decode rate and the mean aggregate output rate (higher is better), and
// energy per output token, gross and net of idle power (J/tok and net
// J/tok, lower is better) where the rows have them. Each figure's latest value is judged against its window: the same
// series' values in up to K runs before it (-window, default 10) that
// have the figure. It is a regression (or an improvement) when both
//
//   - it moved by the threshold (-threshold, default 0.05: 5%) or more in
//     the worse (better) direction from the window's median, and
//   - on a log scale it lies outside the window's 99% prediction
//     interval, mean ± t(n−1)·sd·√(1+1/n) (a two-sided p-value below
//     0.01), and
//   - that p-value, adjusted by Holm's method over every figure of every
//     series judged in the latest run, is at most 0.05: the night is one
//     family of tests, as compare's verdict is, so that sixty series
//     judged at once do not raise a false alarm on most nights
//     (verdicts.json's p_family; held_back where only this failed).
//
// With fewer than 4 earlier values the verdict is insufficient: the
// window's spread says nothing yet (so -window 2 or 3 judges nothing).
// docs/history.md gives the method's measured false-alarm and detection
// rates.
//
// # Output
//
// DIR/history.md: the regressions worst first, canary changes, the series
// with too little data, the runtimes' versions, then a table per series of
// each figure's latest value, window centre, change, p-value and verdict,
// and the charts.
//
// DIR/<runtime>-<figure>.svg: one chart per runtime and figure (ttft-p50,
// ttft-p95, decode, aggregate, j-per-token), each series a line with a
// point per run against the run's start, the runtime's version written
// where it changed, the latest point ringed red (regression), green
// (improvement) or grey (unchanged), none when there is too little data.
//
// DIR/verdicts.json: the window, threshold, alpha and minimum, and for
// every series its key fields, its settings, how it began where a setting
// changed (settings_changed, null otherwise), verdict, latest run, version
// and canary changes, and per figure its verdict, latest value, centre,
// change (the latest over the centre), threshold, p_value, latest_run,
// baseline_runs, version_before and version_after.
//
// # Canary replies
//
// Where rows have a canary (BENCH_CANARY=on), each reply of a series'
// latest run and of the -window runs before it is compared with the
// series' run before it that has one (a night whose canary failed hides
// nothing), and a changed reply is named with the runtime's version change: "ollama 0.6.5 → 0.7.0: canary reply of
// prompt short changed at character 213" (canary.Describe;
// characters from 1). The place is found in the replies' whole texts,
// from the canary requests' records beside each summary; where a run has
// none, in the first 2,000 characters its row keeps ("changed after
// character 2000" if they are the same).
//
// # Flags
//
//	-o DIR               where history.md, verdicts.json and the charts go,
//	                     created if need be (required)
//	-window K            judge each series' latest run against up to K runs
//	                     before it (default 10; 2 or more, and fewer than 4
//	                     judges nothing)
//	-threshold P         the smallest change that counts, a fraction
//	                     (default 0.05: 5%)
//	-fail-on-regression  exit 1 when any series regressed, naming each on
//	                     stderr
//
// # Exit status
//
//	0  the files are written (regressions or not, without
//	   -fail-on-regression), or -h
//	1  -fail-on-regression and a series regressed: each named on stderr
//	   with its figures ("studio · ollama · qwen3:8b · short · conc=1 ·
//	   cold: TTFT p50 +20.0%"); or a file could not be written
//	2  wrong flags (-o missing, -window below 2, -threshold not above 0 or
//	   not below 1), a file that cannot be read, is not JSON or not a
//	   summary, a summary without rows, one from the future (created_at
//	   more than 10 minutes after now), one without created_at, the same
//	   run twice (the same file given twice, or copied under another name:
//	   the same run_id), a folder without *.json files, or fewer than two
//	   runs
//
// On status 2 the problem is named with its flag or file, and nothing is
// written: all the input is read and checked before the output folder is
// created. The flags are checked first, and the first wrong one stops it,
// with the usage, before any file is read ("history: -window 1: want 2 or
// more runs"; fix it and run again to see the next). Then every path
// given that does not exist or is a folder without summaries is named,
// and once they are all there, every file that cannot be read as a
// summary ("history: bad.json: not JSON: …"), each on its own line.
package main
