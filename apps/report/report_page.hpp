#pragma once
// The report as one self-contained HTML page: Vega (from Debian's libjs-vega, inlined), the
// page's script and style, the plot specifications and the data, so that it opens without a
// network or any other file. The data is split so that opening parses only what the first screen
// shows: "report-data" (the table's first page of rows, the plotted parameters' names and the
// rest), "report-table" (every row) and "report-plots-<i>" (the i-th plotted parameter's plots).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace variate::cli::report {

/// Where Debian's libjs-vega installs Vega's modules.
inline const std::filesystem::path kVegaFolder = "/usr/share/javascript/vega";

/// The page for `data` (report_data.hpp) titled `title`, with the Vega modules read from
/// `vega_folder`. Throws variate::Error naming "report" and the missing file when Vega is not
/// installed there (saying which Debian package provides it).
std::string report_page(const std::string& title, const nlohmann::json& data,
                        const std::filesystem::path& vega_folder = kVegaFolder);

}  // namespace variate::cli::report
