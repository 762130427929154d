// Package covreport turns the counters of a replayed corpus into a
// coverage report: per function and per source file, which branch arms
// the inputs took and which they never did, as HTML pages, an lcov
// tracefile and a one-line summary.
//
// Coverage accumulates each input's outcome and counters (Add) against the
// instrument.SiteMap of the build that ran them; Build groups the sites
// into conditionals, functions and source lines (DWARF) and reads the
// sources (Options.SourceRoots when their paths moved); Report.WriteHTML,
// Report.LCOV and Report.Summary render it.
//
// It runs nothing: the caller replays each input (this package must not
// import runtime, arch_test.go). It draws no plots; the caller passes a
// campaign's SVG (package plot) to embed.
//
// Decisions:
//
//   - The headline numbers are the campaign's: a counted site is covered
//     when a run that neither crashed nor hung hit it, covered-by-valid
//     when a valid run did, as fuzzer_stats' edges_found and valid_edges;
//     replaying a queue on the same build gives the same two numbers
//     (TestReportMatchesCampaign).
//   - Branch arms on the pages and in lcov are every arm of every
//     conditional, derived arms filled from their sources (FillDerived).
//   - A line is not covered when no site and no code region on it was hit,
//     partly covered when an arm of a conditional on it never was (the page
//     names the arm), covered otherwise. Regions (SiteMap.Regions) mark
//     every line with code; a call that trapped or never returned leaves
//     the lines after it looking reached, as llvm-cov's counters do. A site
//     map before regions (v7) marks only lines holding a site.
//   - Failing inputs are listed with their failure and add no coverage.
//   - Output is deterministic: the same runs give byte-identical files.
//   - A Go module is grouped by package: its main module's packages (the
//     module path from its build information, SiteMap.GoModules) are the
//     program, the other modules' its dependencies, the runtime, the
//     standard library and the code the toolchain adds (assembly, export
//     wrappers, type:.eq functions) apart. A Go file goes by its path
//     (-trimpath's "module@version/..." is a dependency's); other files
//     by the functions declared in them, so code inlined from a library
//     stays with the library. examples/gojson's seed replays in 10 s
//     (mostly compiling) into 2,131 pages.
package covreport
