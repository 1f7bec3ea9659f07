#pragma once
// The Vega specifications of the report's plots (https://vega.github.io/vega/docs/specification/),
// one per kind of plot. Each declares empty named data sets and signals that the page fills in
// (report_script.cpp), so that one specification serves every parameter the chooser shows.
#include <nlohmann/json.hpp>

namespace variate::cli::report {

/// Every plot's specification by name: "trace", "rank", "density" (data sets of the parameter the
/// chooser shows), "pair" (one pair of parameters, divergent draws in red), "energy" (ArviZ's
/// energy plot: marginal energy and energy transitions), "step_size" and "tree_depth" (per chain).
nlohmann::json plot_specs();

}  // namespace variate::cli::report
