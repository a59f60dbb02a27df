// Package telemetry measures, beside the client's clock, what the machine and
// the server say about a benchmark leaf (one runtime × prompt × concurrency
// run of several timed rounds). It has two independent parts.
//
// # Power and memory from macmon
//
// macmon (github.com/vladkens/macmon, `brew install macmon`) reads an Apple
// Silicon Mac's power, memory and temperatures without sudo. [Start] runs
// `macmon pipe -i <ms>` and a [Sampler] keeps its lines as [Sample]s, each
// stamped with the monotonic time it was read; [Sampler.Figures] turns the
// samples of a window into [Figures]; [Sampler.Close] stops macmon.
// [Version] returns "macmon <version>" for the run's metadata.
//
//	s, err := telemetry.Start(macmonPath, telemetry.Options{}) // every 200 ms
//	if err != nil { /* no power figures this run: log err */ }
//	defer s.Close()
//	from := time.Now()
//	// … the leaf's timed rounds …
//	to := time.Now()
//	f, err := s.Figures(ctx, from, to) // waits about an interval, for the sample covering to
//	if errors.Is(err, telemetry.ErrTooFewSamples) { /* window too short: log, no figures */ }
//	if err := s.Err(); err != nil { /* macmon failed mid-run: log; f covers what it saw */ }
//
// A line of `macmon pipe` is the average of the interval that ends when it is
// printed (memory and temperatures are read at its end), and the intervals
// follow each other. So sample i covers (t[i-1], t[i]], t being the times
// the lines were read; the first sample covers one interval before it. For
// a window [from, to] a sample is used if the part of its interval inside
// the window, its weight w, is longer than zero. The figures, with their
// summary JSON names:
//
//	samples              number of samples used; fewer than 3 (MinSamples)
//	                     give no figures but ErrTooFewSamples
//	window_s             to − from, s
//	covered_s            Σ w: the part of the window the samples cover; less
//	                     than window_s only if macmon stopped or fell behind
//	all_power_w_mean     Σ all_power·w / Σ w: CPU + GPU + ANE power, W
//	gpu_power_w_mean     Σ gpu_power·w / Σ w, W
//	sys_power_w_mean     the same over the samples that report sys_power
//	                     (whole-system power; macmon prints 0 where the Mac
//	                     does not report it); absent if none does
//	energy_j             Σ all_power·w: the integral of all_power over the
//	                     window, each sample's power holding over the interval
//	                     it covers, clipped to the window, J
//	ram_used_bytes_max   max memory.ram_usage over the samples used
//	swap_used_bytes_max  max memory.swap_usage over the samples used
//	swap_growth_bytes    swap_usage of the last sample used − that of the
//	                     first; negative if swap shrank
//	gpu_mhz_mean         Σ gpu_mhz·w / Σ w, macmon's GPU frequency (MHz,
//	                     averaged over the GPU's active residency)
//	cpu_temp_c_max       max temp.cpu_temp_avg (°C) over the samples used;
//	                     absent if no sample read a sensor (macmon prints 0)
//	gpu_temp_c_max       likewise for temp.gpu_temp_avg
//	cpu_temp_c_start     temp.cpu_temp_avg of the last sample read at or
//	gpu_temp_c_start     before from (else the first): as the window began
//
// Figures also hold the CPU, GPU and ANE means, the standard deviation of
// all_power, and the Spans: each sample's interval clipped to the window,
// with its power, for sharing the energy among the requests of the window.
// [Figures.SetIdle] subtracts an idle baseline (the Figures of a window
// with nothing in flight): NetPowerWMean = AllPowerWMean − idle, NetEnergyJ
// = EnergyJ − idle × CoveredS. [Figures.Covered] is false when the samples
// cover less than MinCoverage (80%) of the window: macmon lagged or
// stopped, and the energy would miss the rest. [Figures.IdleSpreadLarge]
// says a baseline spread too widely to be an idle machine's.
//
// With samples 200 ms apart every weight is 200 ms but the two at the
// window's edges, so the means are the plain means of the samples with the
// edge samples counted for their part inside the window.
//
// The Sampler fails to start, with an error naming the binary and the cause,
// if the binary is not found or not executable, exits at once, prints
// nothing within Options.FirstSampleTimeout, or prints something that is not
// a macmon sample. Later failures (macmon exits, an unreadable line) are
// kept for [Sampler.Err]; the samples taken before stay usable and nothing
// panics. It holds Options.Keep of history (6 h by default, about 20 MB at
// 200 ms) and drops older samples. Close signals macmon's process group,
// reaps it and ends the Sampler's goroutines.
//
// ParseLine reads the line shapes of macmon 0.4 to 0.8.2 (the v0.8 renames
// come with the old names as aliases) and a later development layout; see
// the comment at the top of macmon.go for what was read where in macmon's
// source. testdata/macmon is a stand-in that answers --version and pipe
// like macmon 0.8.2 with a constant power, or a scripted trace of powers
// that may stop (FAKE_MACMON_TRACE), for tests on any machine.
//
// # The server's own Prometheus counters
//
// vLLM (and vllm-metal), SGLang, llama-server (with --metrics) and
// text-generation-inference count tokens and phase times on /metrics. Scrape it before and after the timed
// rounds, [Parse] both, and [Delta] gives what happened in between;
// [DeriveServerFigures] and [CheckGeneratedTokens] read it:
//
//	d := telemetry.Delta(before, after)
//	sf := telemetry.DeriveServerFigures(d, requestsSent)
//	if err := telemetry.CheckGeneratedTokens(sf, clientOutputTokens); err != nil { /* log */ }
//
// [ServerDelta.Values] holds, for the metrics named vllm:*, sglang:*,
// llamacpp:* and tgi_*, summed over their label sets: counters as after − before under
// their exposed name; histograms and summaries as X_sum and X_count, after −
// before; gauges as their value after (and llamacpp:n_busy_slots_per_decode,
// an average that older llama-server builds type counter; b1-0c1e570 types
// it gauge). Other metrics, untyped ones, prometheus_client's *_created
// gauges and non-finite values are left out.
// A counter (or X_sum/X_count) of which a label set went down or vanished
// means the server restarted between the scrapes: it is listed in
// [ServerDelta.Reset], its value is the raw after − before (often negative),
// and the derived figures that need it are absent.
//
// What each figure is read from, and for which server, is said once, by
// the fields of [ServerFigures] (their JSON names the summary's; for
// people, docs/power.md's table of the server's counters, which
// TestPowerDocCounters holds to the names read here). CheckGeneratedTokens
// says when the server's count and the client's are too far apart.
// testdata/llamacpp-b1-0c1e570.txt is the /metrics of the llama-server
// build the e2e scripts run, captured; tests read it.
//
// Parse reads the Prometheus text format, which /metrics serves to a plain
// GET; ask for no OpenMetrics (prometheus_client would then name counters
// without _total in TYPE lines). It uses github.com/prometheus/common/expfmt
// with UTF-8 name validation: in prometheus/common v0.74.0 the zero
// expfmt.TextParser panics on the first metric name.
package telemetry
