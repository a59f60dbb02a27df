// Report writes a Markdown report with charts of one or more benchmark runs.
//
// Usage:
//
//	go run ./cmd/report [-o DIR] [-charts=false] RUN.json [MORE.json ...]
//
// Each argument is a summary JSON file as the suite writes it
// (results/<run_id>.json; every key is described in package
// internal/summary). The earlier harness's files have the same format and
// work too (testdata/seed-summary.json is one), and so do files written
// before any later key existed. Only the "summary" list is required; the
// report also shows run_id, created_at, host.platform, host.cpu, versions,
// arguments.cache, arguments.slo, arguments.sweep, arguments.turns and
// arguments.shared_prefix where a file has them. Beside each summary it reads the run's request records,
// <run_id>.requests.jsonl in the same folder (or, if there is none,
// <name>.requests.jsonl beside <name>.json), if there are any, and the
// run's .txt (<run_id>.txt, or <name>.txt), whose result lines are its leaf
// runs: the changes between runs are tested on them. A run's .txt or
// request records given in place of its summary is refused with exit
// status 2, naming the summary JSON beside it to pass:
//
//	report: results/20261202T020000Z.txt is a run's benchmark results (the .txt benchstat and cmd/compare read), not its summary: pass results/20261202T020000Z.json (the report reads the .txt and records beside it)
//
// # Files
//
// Report writes into DIR (default "report", created if need be):
//
//	report.md                 the tables, and links to the charts
//	input-ttft.svg            TTFT p50 and p99 against input tokens, of
//	                          the rows of in<N> prompts
//	input-rates.svg           prefill and decode tokens/s against input
//	                          tokens, of the same rows
//	turns.svg                 TTFT p50 against the turn of the
//	                          conversation, of the rows with turns
//	embeddings-<prompt>.svg   requests/s against concurrency, of the rows
//	                          of embeddings runs (BENCH_API=embeddings)
//	series-<runtime>.svg      the server's KV-cache use, running and
//	                          waiting requests over the run above the
//	                          client's output tokens/s, from the metric
//	                          series (BENCH_METRICS_INTERVAL)
//	ttft-<prompt>.svg         mean time to first token against concurrency
//	throughput-<prompt>.svg   mean aggregate output tokens/s against
//	                          concurrency, each sweep's knee ringed
//	latency-<prompt>.svg      TTFT p50 and p99 against concurrency; TTFC's
//	                          too where the prompt has reasoning
//	itl-<prompt>.svg          the distribution of inter-token latency, from
//	                          the request records' chunk times
//	tpot-<prompt>.svg         instead, where no record has chunk times: the
//	                          distribution of each request's TPOT
//	length-ttft-<prompt>.svg  each request's TTFT against its prompt
//	                          tokens, where the requests asked input
//	                          lengths of their own (the request records)
//	energy-<prompt>.svg       energy per output token against concurrency
//	request-energy-<prompt>.svg
//	                          energy per request above idle, prefill and
//	                          decode, by runtime and load
//	rate-ttft-<prompt>.svg    TTFT p50 and p99 against the open-loop rate
//	goodput-<prompt>.svg      goodput against the open-loop rate
//
// and prints the paths it wrote, one per line, in the order report.md
// shows them. A chart with nothing to draw is not written: a file that
// lacks a figure leaves its chart out, never fails. Files of the same
// names in DIR are overwritten. The charts an earlier report.md in DIR
// linked that this report does not draw are removed, and named on stderr
// ("report: removed the earlier report's charts that this one does not
// draw: itl-code.svg, …"), so that no stale chart is left beside the new
// report; nothing else there is touched, not even an SVG the earlier
// report.md did not link.
//
// # Runs
//
// report.md starts with one line per run: ID, file, start, host, server
// versions, cache mode, the SLO (a column only where a run has one), the
// turns of each conversation (arguments.turns; a column only where a run
// has more than one), the shared prefix ("1024 tok" or "none"; a column
// only where a run has one) and the number of rows. The cache mode is arguments.cache; a file written
// before it existed says nothing, and was warm (every request sent the
// same prompt). When the runs differ in cache mode a warning comes first:
// a cold request's prompt is new to the server, so its TTFT includes
// prefilling the whole prompt, while a warm one's is a prompt-cache hit;
// their TTFT, TTFC and prompt figures, and the changes between them, are
// not comparable. Likewise when they differ in turns or shared prefix
// ("4 turns, no shared prefix: …; 1 turn, shared prefix 1024 tok: …"): a
// row of a run of several turns pools every turn, whose prompts grow with
// the conversation, and a shared prefix lengthens every prompt and may be
// cached. A file written before arguments.turns existed ran single
// requests (1 turn), and one without arguments.shared_prefix none. And
// when they differ in what each request asked beside its prompt
// (arguments.api, the chat where absent; arguments.images;
// arguments.embed_batch, 1 where absent): each API stamps its first
// token at its own event, images are prefilled with the prompt, and an
// embeddings request of more inputs is more work.
//
// # Canary replies
//
// Where the base and a later run have canary replies (BENCH_CANARY: a
// leaf's one untimed request at temperature 0), a section "Canary replies"
// lists each reply that changed from the base's row of the same runtime,
// prompt and load, once per runtime and prompt, with the runtime's
// versions (internal/canary Describe): "vllm-metal 0.28.0+cpu → 0.29.1:
// canary reply of prompt short changed at character 31". The whole texts
// come from the runs' request records where they have them; else the
// first 2,000 characters the rows keep are compared. "No canary reply
// changed from the base's." where none did. An embeddings run's canary
// keeps no reply to compare (no text, no embedding): its rows are not
// compared, and a report whose base or every later run is one has no
// such section.
//
// In the section "Server state between leaves", an embeddings run's
// control leaf has its reply time as TTFT and no decode ("—"), and the
// section says so.
//
// # Models
//
// Where a file says what its runtimes' servers serve
// (model_metadata.<runtime>.served), a section "Models" follows the runs:
// a line per runtime (with several files, per file and runtime) with its
// model, family, parameters, quantization, format (GGUF, MLX,
// safetensors) and context, "—" where the server does not say; then a
// warning with a line for each pair of a file's runtimes whose servers
// state other parameters or another quantization ("ollama serves Q4_K_M,
// lmstudio serves MLX 4-bit: not the same weights"), with several files
// followed by the files it holds in.
//
// # Input length
//
// Where a file has rows of in<N> prompts (BENCH_INPUT_TOKENS: a prompt
// sized so that the server counts N prompt tokens, its rows'
// input_tokens_target), a section "Input length" follows the runs, before
// the prompts' sections: what the rows describe (TTFT and prefill tok/s the
// prefill of N tokens, decode tok/s and TPOT the decode at a depth of N),
// the two charts input-ttft and input-rates, then a table per runtime
// (with several files, per runtime and file, in the order of the files),
// its rows sorted by N, then load (concurrencies, then rates):
//
//	N                     input_tokens_target
//	prompt tokens         the mean of the server's counts (prompt_tokens_mean)
//	load                  "conc 4" or "2 req/s"
//	TTFT p50, p99 ms
//	prefill tok/s         the server's prompt evaluation rate
//	                      (prompt_tps_mean); "—" where it reports none
//	decode tok/s, TPOT ms decode_tps_mean, tpot_s_mean
//	truncated             successful requests whose prompt the server cut
//	                      (truncated_prompts), in bold and "of" the
//	                      successes where there are any: "**2 of 8**"
//
// A truncated prompt is one the server cut (its count more than 5% short
// of N, or on Ollama one that reaches num_ctx): that row does not describe
// N, and the section says so. These tables carry no change against the
// base; the charts set the files side by side. The in<N> prompts have
// their own sections too, like every prompt. A report of files without an
// in<N> row has no such section and neither chart.
//
// # Turns
//
// Where a file has rows of conversations (BENCH_TURNS above 1: turn k
// sends the k − 1 earlier turns, each question and its reply, and a new
// question), each with the figures of each turn (its "turns" list), a
// section "Turns" follows (after Input length, before the prompts'
// sections): what the figures describe, the chart turns.svg, then one
// table of every turn of every such row, by runtime (as the tables order
// them), prompt, load (concurrencies, then rates) and, with several files,
// file, in the order of the files:
//
//	runtime
//	prompt                only where the rows with turns have several
//	load                  "conc 4" or "2 req/s"
//	run                   with several files
//	turn                  from 1
//	requests              the turn's requests, failed ones included
//	TTFT p50, p95 ms      of its successful requests, as the others
//	prompt tok            the mean of the server's counts of its prompt
//	                      tokens (prompt_tokens_mean), which grow each turn
//	cached tok            the mean of those the server took from its
//	                      cache (cached_prompt_tokens_mean); "—" where it
//	                      reports none (Ollama)
//	cached share          cached tok / prompt tok, where both are known
//	decode tok/s          decode_tps_mean
//
// A runtime whose TTFT grows every turn prefills the whole history again
// (it has no prefix cache, or it is off); one whose prefix cache holds the
// history stays near its turn 1, and the section says so. A turn that
// fails ends its conversation: the turns after it are not sent, and a
// list under the table names each row with such turns (not_sent) and how
// many: "ollama, conc 4: 2 turns not sent: an earlier turn of the
// conversation failed". The table carries no change against the base;
// the chart sets the files side by side. The prompts' own tables pool
// every turn of a row. A report of files without a row with turns (or
// with turns not sent) has no such section, and no turns chart.
//
// # Server metrics over time
//
// Where a run has a metric series beside its summary (<run_id>.metrics.jsonl,
// or <name>.metrics.jsonl: the suite's BENCH_METRICS_INTERVAL), a section
// "Server metrics over time" follows (before the prompts' sections), with
// a chart per run and runtime, series-<runtime>.svg (series-<runtime>-<run>.svg
// with several files): on one time axis, seconds from the run's start,
// stacked panels of the server's KV-cache use in percent, its running and
// waiting requests, and the client's output tokens a second of that
// runtime's timed, successful requests (each request's output tokens spread
// evenly from its first token to its end, in bins as wide as the median
// gap between samples). Each leaf run is a line of its own; a panel the
// server gave no figure for is left out. A line under each chart gives
// each leaf's mean and peak KV-cache use, mean running and mean and peak
// waiting over its samples. docs/metrics.md defines the
// series. A series file that cannot be read is a warning, and the charts
// leave that run out.
//
// # Embeddings
//
// Where a file is of an embeddings run (arguments.api "embeddings":
// BENCH_API=embeddings, each request some inputs to embed, one reply not
// streamed), a section "Embeddings" follows (before the prompts'
// sections), with one table of its rows by runtime (as the tables order
// them), prompt and load and, with several files, the embeddings files,
// the base first, as the prompts' tables: each later file's figures carry
// their change against the base's row, tested on the .txt's leaf runs
// where both have them, and a row it lacks says "not in this run":
//
//	requests/s            completed requests a second (embed_rps)
//	input tok/s           their inputs' tokens a second (embed_input_tps)
//	reply p50, p95 ms     the time to the whole reply (ttft_s_p50, _p95:
//	                      an embeddings request's TTFT is its reply)
//	prompt tok            a request's input tokens, all its inputs
//	                      (prompt_tokens_mean); no change
//	batch                 inputs a request (arguments.embed_batch, 1
//	                      where absent)
//	ok, failed            successful and failed requests
//
// Then a chart per prompt, embeddings-<prompt>.svg: requests/s against
// concurrency, drawn as the prompts' charts are (a line per runtime and
// file). An embeddings row has no output tokens: its rows are in no
// other section of rows or their charts (the prompts', input length,
// turns, images), which are the chat's and the other APIs'; where the
// base is an embeddings run those sections show its rows as "not in this
// run", and the Embeddings section likewise a chat base's. A report
// without an embeddings file has no such section.
//
// # Tables
//
// Then a section per prompt. Every table has a row per runtime and load,
// in the order the rows were first run:
//
//	runtime, conc         closed loop: concurrency-many requests at once
//	runtime, rate req/s   open loop: requests at that rate (concurrency 0)
//	runtime, load         tables of both: "conc 4" or "2 req/s"
//
// With several files the first is the base: each row of the base is
// followed by the same row (same runtime, prompt and concurrency or rate;
// the model may differ, and is shown) of each later file, whose figures
// carry their change against the base in signed percent, e.g. "27.6
// (+10.2%)". For times and J/tok lower is better, for tok/s, req/s and
// goodput higher. Where both runs have their .txt beside their summary, a
// change of a figure the .txt has (the means and rates: TTFT and TPOT
// mean, decode, request, aggregate and prefill tok/s, req/s, goodput,
// J/tok, W) is followed by its test against noise, "27.6 (+10.2%, p=0.002
// n=6)": each leaf run (one of -count's repetitions, a result line of the
// .txt) is one sample, and p is the two-sided Mann–Whitney U test
// benchstat uses (golang.org/x/perf/benchmath, internal/stats
// CompareRuns) of the base's leaf runs against the later run's; n is
// their numbers ("n=6+3" where they differ). p below 0.05 is a change
// beyond noise; fewer than 4 leaf runs a side cannot reach it. Where
// both runs have their .txt, a change that has no test says so in its
// cell, with why, so that it is not taken for one that passed it: "3.97
// (+75.7%, untested: a percentile)" (the .txt has no leaf-run values of a
// percentile), "untested: not in the .txt" (a figure of no result line),
// "untested: no leaf runs in the .txt" (a row the .txt lacks). Where a
// run has no .txt, none of its changes has a p, and report.md says so of
// the run once. Counts, shares and the tables that set the server's
// figures beside the client's carry no change. A row that a file lacks
// says "not in this run". A figure that is missing or null in a file
// (prompt_tps where the server reports no prompt timing, any figure of a
// row whose requests all failed, every figure the file predates) is shown
// as "—", and has no change. A table whose figures no row has is left
// out. Times are in milliseconds.
//
// The closed-loop table, first:
//
//	model
//	TTFT mean, p50, p95, p99  time to first token
//	cache hit                 where some run of the report has a shared
//	                          prefix (arguments.shared_prefix above 0) or
//	                          turns (arguments.turns above 1): the share of
//	                          the prompt tokens the server took from its
//	                          cache (cache_hit_ratio), "—" where it reports
//	                          no cached tokens (Ollama); not shown for
//	                          other runs, whose ratio says only cold or
//	                          warm, as the requests table's cached tokens do
//	decode tok/s              mean decode rate
//	request tok/s             mean output tokens / request time
//	aggregate tok/s           mean over rounds of output tokens / round time
//	goodput req/s, SLO met    where the run has an SLO (arguments.slo): the
//	                          requests/s that met every target, and their
//	                          share of all requests (failures are misses)
//	server MiB                where a row has it (server_rss_bytes): the
//	                          server's resident memory at the timed part's
//	                          end, its processes and their children summed,
//	                          with its peak, "102.5 (peak 102.7)"; "(this
//	                          process)" for the simulator, whose memory is
//	                          the client's too; "not this machine's" for a
//	                          server elsewhere; no change is shown
//	ok, failed                successful and failed requests
//
// Under it, where the run swept its concurrency (BENCH_CONCURRENCY=sweep,
// arguments.sweep), where each runtime's sweep stopped: its bound, the
// concurrency it stopped at, the knee (the highest concurrency that still
// paid off; "none" if none did) and why it stopped. Each -count repetition
// sweeps again; a stop repetitions share is listed once, with "(in 3
// repetitions)".
//
// Token timing, of the rows of both loops: TTFC p50 and p99 (time to the
// first answer text, after any reasoning; TTFT where the model does not
// reason), TPOT mean and p99 (each request's (total − TTFT) / (output
// tokens − 1)), ITL p50 and p99 (the gaps between successive text chunks).
//
// Tool calls, where some row's requests carried tools (BENCH_TOOLS): the
// successful replies that made a tool call, of the successes and their
// share ("3 of 4 (75.0%)"), the calls they made, how many of the calls'
// arguments parse as a JSON object and their share of the calls ("2
// (50.0%)"), and TTF tool call p50 and p99, the time to the first chunk
// that carried part of a call. A row of a run without tools is "—".
//
// Requests: what was asked and what came back, to tell whether the
// runtimes did the same work. served model is the model the replies named
// where it is not the one asked for ("as asked" where it is); prompt tok
// and cached prompt tok the means of the server's counts (cached: taken
// from its prompt cache, near the whole prompt when warm); short outputs
// the successful requests that stopped before the length asked for ("2 of
// 8": of the successes); finish reasons the successful requests by the
// server's reason, most frequent first ("length 6, stop 2").
//
// TTFT against input length: where the prompt's requests asked input
// lengths of their own (a length distribution in BENCH_INPUT_TOKENS, a
// trace workload: the records' input_tokens, not all the same), which its
// tables pool, a heading and the chart length-ttft, after the requests
// table. A prompt whose records have no input_tokens (ShareGPT
// conversations and message lists, whose prompts are not sized) or the
// same in all (an in<N> prompt, every request asking N), a run without
// request records and a report with -charts=false have neither.
//
// Power (macmon, on a Mac): J/tok (energy over the timed rounds / the
// successful requests' output tokens), power W (mean CPU + GPU + ANE
// power) and the number of samples they come from. Where a row has net
// figures (the run had an idle baseline, host.idle_power_w, shown in the
// table of runs as "idle power"), an energy table follows: J/tok and net
// J/tok (above idle) side by side, net power W, J/request (the successful
// requests' mean share of the net energy) and its prefill and decode
// parts, prefill mJ per prompt token, decode J per output token, and
// covered, the share of the timed rounds macmon's samples covered (below
// 80% a row has no energy figures); see energy.go.
//
// Server counters (the server's Prometheus /metrics, read before and after
// the timed rounds), beside the client's figures of the same row:
//
//	server prefill ms      mean prefill time per request (server_prefill_s_mean)
//	client TTFT ms         the client's mean TTFT, which includes it
//	server decode ms       mean decode time per request (server_decode_s_mean)
//	client total − TTFT ms the client's mean total − mean TTFT
//	server generated tok   tokens generated (server_generated_tokens),
//	                       failed requests' included
//	client output tok      the successful requests' output tokens. The row
//	                       has no sum: it is energy_j / energy_j_per_output_token
//	                       (exact, where there are power figures), else
//	                       successes × output_tokens_min where every request
//	                       had as many (min = max), else the range successes
//	                       × min – successes × max
//	model loads            requests that waited for the model to load
//	                       (Ollama's load_duration over 100 ms)
//
// Open loop: model, achieved req/s (requests sent / sending window), send
// lag p99 ms (how late the client sent against the arrival times),
// throughput req/s (completed requests per second), TTFT p50 and p99,
// cache hit where the closed-loop table has it, goodput and SLO met where the run has an SLO, ok and failed. Where the
// in-flight cap (BENCH_MAX_INFLIGHT) held arrivals back, a line under the
// table says how many: that load was not fully open.
//
// A run whose file says "complete": false (interrupted, or still going) is
// marked "(incomplete)". If any row has failures, a last section, Failures,
// lists them by run, row and class (the row's "errors"), with each class's
// count and first message.
//
// Rows without a "prompt" key (the earlier harness wrote none) belong to a
// prompt named "(none)", whose charts are ttft-none.svg and
// throughput-none.svg. Prompt names are made file-name safe: other
// characters than letters, digits, '.', '-' and '_' become '_'.
//
// # Charts
//
// Each chart of a prompt follows the table it draws from. Each has one line per
// runtime (with several files, per runtime and file: the same colour for a
// runtime, a different dash and marker for each file). With several files
// a line is named by its runtime's version where that alone tells its file
// apart ("ollama 0.7.0"), by version and run where another file has the
// same version ("ollama 0.7.0 (20261202T020000Z)"), and by run where every
// file has the same version or it is not known ("sim (20261202T020000Z)"); a chart against a
// load has a marker at each concurrency (or rate) that was run, and a
// line of one point is only its marker. The y axis starts at zero. When
// three or more concurrencies (or rates) span a factor of four or more (1,
// 2, 4, 8, …) the x axis is logarithmic, so the low ones do not crowd.
//
// ttft and throughput draw the mean TTFT and aggregate throughput of the
// closed-loop rows. On throughput, each sweep's knee (arguments.sweep) is
// ringed in black on its runtime's line of its run, with one legend entry,
// "knee of the concurrency sweep"; a knee the run has no row at is not
// drawn.
//
// latency, drawn where a closed-loop row has TTFT p99, is a grid of panels
// with one title: TTFT p50 and p99 side by side, each on its own y scale
// from zero, and under them TTFC p50 and p99 where some row of the prompt
// has a TTFC that is not its TTFT (a reasoning model's). The TTFC panels
// then have a line for every runtime, reasoning or not, so that the time
// to the answer compares across them; without reasoning they would repeat
// the TTFT panels, and are left out. The legend is in the last panel.
//
// itl is the distribution (the empirical CDF: the share of gaps ≤ x) of
// the gaps between successive text chunks of every timed (not warm-up),
// successful request of the prompt in the request records, all loads
// together, on a log x axis in ms. The gaps are the differences of a
// record's chunk_s, which the suite records only with
// BENCH_RECORD_CHUNKS=1; runtimes and runs recorded without them are left
// out of the chart, and a note under it names them. Where no record of the
// prompt has chunk times, the chart is tpot instead: the distribution of
// each timed, successful request's tpot_s, one value per request (a
// request's mean gap per token, not its gaps), with a note that says so.
// A run without records, or whose records could not be read, has no lines
// there, and the note names it. Each line is the steps of the
// distribution; beyond 200 values, at 200 of them evenly spread over the
// ranks. The x axis starts no lower than a microsecond: chunks that came
// in one read have gaps of about zero, which count toward the shares, and
// the lines enter at the left edge above them.
//
// length-ttft is a scatter, a point per timed (not warm-up, calibration,
// control or canary), successful request of the prompt in the request
// records that asked an input length (input_tokens): x its prompt tokens by
// the server's count (prompt_tokens), or, where the server gave none, the
// length it asked for (input_tokens); the x axis label says which ("the
// server's count", "asked for", or "the server's count, else as asked",
// with a note naming the series with asked lengths). The x axis is
// logarithmic where the lengths span a factor of ten or more, else linear;
// y is TTFT in ms on a logarithmic axis, as input-ttft's. A series per
// runtime and load (concurrency or rate), with several files per runtime,
// load and file: a colour for each runtime and load, shared by its files,
// and a marker for each file; the legend is to the right of the plot.
// Beyond 500 requests a series draws 500 of them, evenly spread over the
// records' order, and the note says how many of how many. A run
// whose records are missing or could not be read is named in the note.
//
// energy draws J/tok of the closed-loop rows, where a row has it.
// request-energy draws a stacked bar per row (runtime and load, and run)
// with the mean prefill and decode energy per request above idle, where
// a row has them.
//
// rate-ttft (TTFT p50 and p99 panels) and goodput draw the open-loop rows
// against the rate asked; goodput only where a row has it.
//
// input-ttft and input-rates are drawn once per report, not per prompt:
// every row of an in<N> prompt is a point, at its N on a logarithmic x
// axis labelled at the lengths run (at 1, 2 and 5 times the powers of ten
// where two lengths are too close to label apart). Each has one line per
// runtime and load (concurrency or rate), with several files per runtime,
// load and file: a colour for each runtime and load, shared by its files,
// and a marker for each file. The two figures of a chart are told apart by
// line style, solid and dashed, which the legend shows in black; the
// legend is to the right of the plot, where it covers no line. input-ttft
// draws TTFT p50 (solid) and p99 (dashed) with a logarithmic y axis in ms.
// input-rates draws prefill tok/s (solid) and decode tok/s (dashed); a
// line with no prefill figure (a server that reports no prompt timing) has
// no prefill line, and a note under the charts names it. Its y axis is
// logarithmic where the points span a factor of ten or more (prefill and
// decode together, usually), else linear from zero. The points of a row
// with prompts the server cut are ringed in black, with one legend entry.
//
// turns is drawn once per report, not per prompt: TTFT p50 (ms, a linear y
// axis from zero) against the turn, each turn labelled (beyond twelve
// turns, turn 1 and multiples of a round step). Each row with turns is a
// line, a point per turn with a TTFT p50: one line per runtime, prompt and
// load, with several files per runtime, prompt, load and file, named
// "vllm, conc 4" ("vllm, code, conc 4" where the rows with turns have
// several prompts, and the prompt is then left out of the title; "… (run)"
// with several files). A colour for each runtime, prompt and load, shared
// by its files; a dash and marker for each file. The legend is to the
// right of the plot.
//
// The charts are drawn with gonum.org/v1/plot in the Liberation fonts it
// embeds; the SVG names the font and does not embed it.
//
// # Flags
//
//	-o DIR         where to write (default "report")
//	-charts=false  write report.md only, without charts, links to them or
//	               their notes, and without reading request records: for a
//	               CI job summary, where relative images do not show
//
// # Exit status
//
//	0  the report was written (and -h)
//	1  a file could not be read, is not JSON or is not a summary JSON (each
//	   such file is named, with what is wrong), or the report could not be
//	   written
//	2  a usage error: no file given, an unknown flag, -o empty, or a run's
//	   .txt or request records given in place of its summary
//
// A request records file that cannot be read is no error: report prints
// "report: warning: …" naming it and leaves its run out of the
// distribution charts and length-ttft.
//
// # Examples
//
// One run, the runtimes side by side:
//
//	go run ./cmd/report -o report results/20261202T113718Z.json
//
// Last night against tonight, or a runtime before and after an upgrade:
//
//	go run ./cmd/report -o report results/20261201T020000Z.json results/20261202T020000Z.json
//
// The earlier harness's file as the base:
//
//	go run ./cmd/report -o report testdata/seed-summary.json results/20261202T113718Z.json
//
// docs/report-example is the report of two runs on the built-in simulator.
//
// For benchstat's own tables (medians, confidence intervals, p-values)
// over the -count repetitions, compare the runs' .txt files with
// scripts/compare.sh, which runs go tool benchstat.
package main
