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
// trace's rows) and the prompt's text (a workload's names its sample:
// BENCH_WORKLOAD_N), the rule by which cmd/compare refuses two runs. A
// run with another
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
// (.requests.jsonl) give no figure: requests within one run share that
// night's machine and server state, so their spread says nothing of the
// night-to-night spread, which is what a nightly gate must beat (taking
// every request as a sample would make a 2% shift of a quiet machine
// "significant" every night). They are read for the canary replies' whole
// texts only, and a run without them counts like any other.
//
// Two methods are never one series' figure: a file without burst_replies
// was written when native Ollama's decode rate was the server's own
// (eval_count / eval_duration); a row of a runtime of kind ollama in such
// a file has no decode rate in the history (its figures are the server's,
// server_decode_tps_*), so a later run's client-measured rate is never
// judged against it.
//
// A run whose runtime's control leaf drifted (runtimes[].control.drifted
// in its summary) is no baseline: history.md lists it under "Drifted
// controls", each series names the runs of its window it left out ("Not
// used as a baseline, their control having drifted: …", verdicts.json's
// drifted_runs), and a latest run that drifted is judged, and said so
// (latest_drift). A night whose row ran disturbed (its leaf_runs marked
// disturbed above busy_max) is no baseline either ("Not used as a
// baseline, having run disturbed: …", disturbed_runs), and a latest run
// that did is not judged: its figures are insufficient, and the series
// says why (latest_disturbed). Files written before leaf_runs count as
// quiet.
//
// # Figures
//
// The figures judged, by their id (in chart names and verdicts.json),
// where the rows have them:
//
//	ttft-p50         TTFT p50, lower is better
//	ttft-p95         TTFT p95, lower is better, only in rows of 21
//	                 successful replies or more, where the largest TTFT has
//	                 no weight in it (in a row of four one stalled reply is
//	                 85% of the p95: a 300 ms stall once read as +518%)
//	decode           the median decode rate (decode_tps_p50, "decode p50":
//	                 one burst reply cannot move it), higher is better
//	aggregate        the mean aggregate output rate, higher is better
//	j-per-token      energy per output token, J/tok, lower is better
//	net-j-per-token  the part of it above the machine's idle draw, net
//	                 J/tok, lower is better
//	agree-top1       with BENCH_QUALITY=agree, the top-1 agreement with the
//	                 reference, higher is better
//	exact-accuracy   with BENCH_QUALITY=exact, the share of exact answers
//	                 right, higher is better
//
// The quality figures are one measurement a run, the same night after
// night on one server at temperature 0: a window without spread calls any
// move beyond the threshold, so a drop is a regression however fast the
// new version is.
//
// Adding one is one line of trended in series.go.
//
// # The method
//
// Each figure's latest value is judged against its window: the same
// series' values in up to K runs before it (-window, default 10) that
// have the figure. It is a regression (or an improvement) when all of
//
//   - it moved by the threshold (-threshold, default 0.05: 5%) or more in
//     the worse (better) direction from the window's median: latest /
//     median ≥ 1 + threshold for a latency or J/tok, ≤ 1 − threshold for
//     a rate, and
//   - on a log scale it lies outside the window's 99% prediction
//     interval, mean ± t(n−1)·sd·√(1+1/n), Student's t with n − 1 degrees
//     of freedom (a two-sided p-value below 0.01:
//     internal/stats.DetectTrend, TrendAlpha), and
//   - that p-value, adjusted by Holm's method over every figure of every
//     series judged in the latest run, is at most 0.05 (stats.Holm,
//     FamilyAlpha): the night is one family of tests, as compare's verdict
//     is (verdicts.json's p_family; held_back where only this failed).
//
// With fewer than 4 earlier values (TrendMinBaseline) the figure is
// insufficient: the window's spread says nothing yet (so -window 2 or 3
// judges nothing). So is a figure without a value in the latest run, and
// every figure of a series that is not in its host's latest run. Steps
// smaller than the threshold are never flagged, however significant, nor
// is a slow drift: the window moves with it. docs/history.md says why,
// with the method's measured false-alarm and detection rates.
//
// # Output
//
// DIR/history.md has, from the top:
//
//  1. Regressions, worst first (the largest change in the worse
//     direction): the series, the figure, the window's centre (its
//     median), the latest value, the change, the p-value and the
//     runtime's version, 0.6.5 → 0.7.0 where it changed.
//  2. Improvements, largest first, the same columns.
//  3. Canary changes (below).
//  4. Too little data: the series that could not be judged, and why
//     (fewer than 4 earlier runs, with where the series began if a
//     setting changed there; no figure in the latest run: every request
//     failed; or not in its host's latest run).
//  5. Versions: each host's runtimes, every version with the date and
//     run where it first appeared.
//  6. Series: a table per series (host · runtime · model · prompt · load
//     · cache mode, and turns, shared prefix where not 1 and 0, api=,
//     images= and embed-batch= where not the chat, none and 1, and the
//     settings that tell it from another series of the same leaf) of each
//     figure's latest value, window centre, change, p-value, the number of
//     earlier runs used and the verdict.
//  7. Charts.
//
// DIR/<runtime>-<figure>.svg, one chart per runtime and figure
// (ollama-ttft-p50.svg, ollama-decode.svg, …): each series a line with a
// point per run against the run's start (UTC); the runtime's version
// written at the top where it changed, with a dotted line down; the latest
// point ringed red for a regression, green for an improvement, grey when
// unchanged, not ringed when there is too little data. The y axis does not
// start at zero. Lines have markers up to 60 points; past 8 series the
// lines are dashed. Where a runtime runs on several hosts, the legend
// names the host first, and each version written says its host
// (studio-m4max: 0.7.0).
//
// DIR/verdicts.json has the same for programs: the window, threshold,
// alpha and min_baseline, then per series its key fields (host, runtime,
// model, prompt, concurrency, rate_rps, cache, turns, shared_prefix, api
// (chat by default), images (BENCH_IMAGES, null: none), embed_batch (1 but
// for embeddings runs of larger batches), and settings: each setting's
// value, "prompt short" the prompt's text), settings_changed (before_run,
// after_run and changes, e.g. "max_tokens 128 → 64", where the series
// began because a setting changed; null otherwise), its verdict (the worst
// of its figures: regression if any, else improvement, else unchanged,
// else insufficient), latest_run, version and canary_changes (before_run,
// after_run, at: the rune index of the first difference from 0, text),
// and per figure figure, verdict, latest, centre, change (latest /
// centre), threshold, p_value, latest_run, baseline_runs (the run ids of
// the window), version_before (in the window's latest run) and
// version_after.
//
// # Canary replies
//
// Where rows have a canary (BENCH_CANARY=on), each reply of a series'
// latest run and of the -window runs before it is compared with the
// series' run before it that has one (a night whose canary failed hides
// nothing), and a changed reply is named with the runtime's version
// change: "ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at
// character 213", or "… (same version 0.6.5)" (canary.Describe;
// characters from 1). Replies are compared by their SHA-256
// (canary.text_sha256), the place found in their whole texts, from the
// canary requests' records beside each summary; where a run has none, in
// the first 2,000 characters its row keeps ("changed after character
// 2000" if they are the same). An embeddings reply (BENCH_API=embeddings)
// has no text: its canary is its vector (canary.embedding: length, first
// 32 numbers, norm), and it changed where the cosine similarity of the
// first numbers is below 0.9999 or the length differs ("… changed in its
// embedding: cosine 0.3068 to the earlier one's …"). Files written before
// it kept the hash of an empty text, which is compared with nothing.
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
