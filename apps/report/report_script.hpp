#pragma once
// The report page's own script and style sheet, inlined into the page after Vega.
namespace variate::cli::report {

/// Defines `define` for the AMD form of Debian's per-module Vega builds (each module registers
/// under the name set in `vegaModuleName` before it); run before the modules.
extern const char* const kModuleLoader;

/// Assembles `vega` from the modules, then reads the JSON in #report-data and #report-specs and
/// builds the page: the sortable summary table, the parameter chooser and every plot. When all
/// plots have rendered it sets data-report="rendered" and data-render-ms on <body>; any error
/// (window.onerror, a rejected promise) sets data-report="error" and shows the message in
/// #report-errors, so that a headless browser's DOM tells whether the page worked.
extern const char* const kPageScript;

extern const char* const kPageStyle;

}  // namespace variate::cli::report
