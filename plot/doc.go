// Package plot draws how campaigns went from their plot_data files
// (corpus.PlotRow): branch coverage (all runs and valid runs), executions
// per second, queue size, unique crashes, the Hill numbers B(0), B(1)
// and B(2) of BeDivFuzz, unique traces and the process's resident memory
// (rss_kib; rows without it are left out of that panel), and for a
// portfolio campaign (--strategy auto) each arm's share of the schedule
// (a ninth panel, drawn only when some row has share columns), over time
// or over executions, one panel each, with
// several campaigns overlaid and told apart by colour and a legend.
//
// What it does: Read loads a campaign directory's plot_data; Render draws
// series into SVG or PNG bytes with gonum.org/v1/plot (pure Go, no
// gnuplot); Write stores a drawing atomically, its format taken from the
// file's extension.
//
// What it does not do: it runs nothing and computes no statistics
// (evalstats does); it does not read fuzzer_stats.
//
// The decision: one fixed grid of eight panels (coverage, execs/s, queue,
// crashes, B(0), B(1) and B(2), unique traces, memory) in one image rather than an image per
// metric, so one file shows a campaign and one README picture a
// comparison. Series with the same Name share a colour and one legend
// entry (the seeds of one strategy in wafer compare). Rendering is
// deterministic: the same rows give byte-identical files (TestRenderSVGDeterministic).
package plot
