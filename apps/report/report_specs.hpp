#pragma once
// The Vega specifications of the report's plots (https://vega.github.io/vega/docs/specification/),
// one per kind of plot. Each declares empty named data sets and signals that the page fills in
// (report_script.cpp), so that one specification serves every parameter the chooser shows.
#include <nlohmann/json.hpp>

namespace variate::cli::report {

/// Every view's specification by name, each view as few Vega views as the page can have:
/// "parameter" (the trace, rank and density plots of the parameter the chooser shows), "pairs"
/// (every pair of the chosen parameters, divergent draws in red), "energy" (ArviZ's energy plot:
/// marginal energy and energy transitions) and "sampler" (step sizes and tree depths per chain).
nlohmann::json plot_specs();

}  // namespace variate::cli::report
