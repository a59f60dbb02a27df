// Report writes a Markdown report with charts of one or more benchmark runs.
//
// Usage:
//
//	go run ./cmd/report [-o DIR] [-charts=false] RUN.json [MORE.json ...]
//
// Each argument is a summary JSON file as the suite writes it
// (results/<run_id>.json; every key is described in package
// internal/summary). The earlier harness's files have the same format and
// work too (testdata/seed-summary.json is one). Only the "summary" list is
// required; the report also shows run_id, created_at, host.platform,
// host.cpu and versions where a file has them.
//
// Report writes into DIR (default "report", created if need be):
//
//	report.md                 the tables, and links to the charts
//	ttft-<prompt>.svg         mean time to first token against concurrency
//	throughput-<prompt>.svg   mean aggregate output tokens/s against concurrency
//
// and prints the paths it wrote, one per line. Files of the same names in
// DIR are overwritten; nothing else there is touched.
//
// # Tables
//
// report.md starts with one line per run (ID, file, start, host, server
// versions, number of rows), then a section per prompt with a row per
// runtime and concurrency:
//
//	runtime, conc, model
//	TTFT mean, p50, p95   time to first token, in milliseconds
//	decode tok/s          mean decode rate
//	request tok/s         mean output tokens / request time
//	aggregate tok/s       mean over rounds of output tokens / round time
//	ok, failed            successful and failed requests
//
// With several files the first is the base: each row of the base is
// followed by the same row (same runtime, prompt and concurrency; the model
// may differ, and is shown) of each later file, whose figures carry their
// change against the base in signed percent, e.g. "27.6 (+10.2%)". For TTFT
// lower is better, for tokens/s higher. A row that a file lacks says "not in
// this run". A figure that is missing or null in a file (prompt_tps where
// the server reports no prompt timing, any figure of a row whose requests
// all failed) is shown as "—", and has no change.
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
// Each chart has one line per runtime (with several files, per runtime and
// file: the same colour for a runtime, a different dash and marker for each
// file), with a marker at each concurrency that was run. The y axis starts
// at zero. When three or more concurrencies span a factor of four or more
// (1, 2, 4, 8, …) the x axis is logarithmic, so the low ones do not crowd.
// The charts are drawn with gonum.org/v1/plot in the Liberation fonts it
// embeds; the SVG names the font and does not embed it.
//
// # Flags
//
//	-o DIR         where to write (default "report")
//	-charts=false  write report.md only, without charts or links to them:
//	               for a CI job summary, where relative images do not show
//
// # Exit status
//
// 0 when the report was written; 1 when a file could not be read, is not
// JSON or is not a summary JSON (each such file is named, with what is
// wrong), or the report could not be written; 2 for a usage error (no file
// given, an unknown flag).
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
// For statistics (medians, confidence intervals, p-values) over the -count
// repetitions, compare the runs' .txt files with scripts/compare.sh, which
// runs go tool benchstat.
package main
