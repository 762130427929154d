// Package covreport turns the counters of a replayed corpus into a
// coverage report: per function and per source file, which branch arms
// the inputs took and which they never did, as HTML pages, an lcov
// tracefile and a one-line summary.
//
// What it does: Coverage accumulates the counters of each input's run
// (Add) against the instrument.SiteMap of the build that ran them; Build
// groups the sites into conditionals (SiteMap.Conditionals), functions and
// source lines (the DWARF positions of the site map) and reads the source
// files, looked up under Options.SourceRoots when their DWARF paths moved;
// Report.WriteHTML writes a summary page, a page per source file and a
// page per function without source; Report.LCOV renders the tracefile;
// Report.Summary is the one line for the terminal.
//
// What it does not do: it runs nothing. Replaying needs the runtime, which
// this package must not import (arch_test.go): the caller runs each input
// and hands over its outcome and counters. It does not draw plots either;
// the caller passes a campaign's SVG (package plot) to embed.
//
// The decisions:
//
//   - The headline numbers are the campaign's: a counted site (one with a
//     counter of its own, instrument.SiteMap.Counted) is covered when a run
//     that neither crashed nor hung hit it, and covered-by-valid when a
//     valid run did, exactly as the engine's coverage and fuzzer_stats'
//     edges_found and valid_edges count them. Replaying a campaign's queue
//     on the same build gives the same two numbers (TestReportMatchesCampaign).
//   - Branch arms on the pages and in lcov are every arm of every
//     conditional (if, br_if, br_table), derived arms included, their
//     counts filled from their sources (SiteMap.FillDerived) run by run.
//   - A line's state: not covered when no site on it and no region of
//     its code was hit; partly covered when one was but an arm of a
//     conditional on it never was (the page names that arm); covered
//     otherwise. Every line with code is marked: the site map's regions
//     (instrument.SiteMap.Regions) say which site's hit means a stretch
//     of code ran, and a line's code is what the DWARF line table puts on
//     it. Code in no region (after an unconditional branch) marks
//     nothing. A region does not end at a call, so a call that trapped or
//     never returned leaves the lines after it looking reached, as
//     llvm-cov's counters do. A site map from before regions (sitemap v7)
//     marks only the lines holding a site and every line of a function
//     never entered.
//   - Inputs that crash or hang are listed with their failure and add no
//     coverage, as in the campaign.
//   - Output is deterministic: the same runs give byte-identical files.
//   - Go modules: grouped by package name (the runtime and standard
//     library apart), DWARF or not; examples/gojson's seed replays in
//     10 s (mostly wazero compiling 153,218 sites) into 2,131 pages.
package covreport
