#pragma once
// `variate report PATH...`: one self-contained HTML page about a run's draws (ours or CmdStan's):
// the summary table, trace, rank and density plots of the worst parameters and a chooser among
// them, pair plots with the divergent transitions, the energy plot with E-BFMI, and the step sizes
// and tree depths per chain. `variate sample --report` writes it at the end of sampling.
#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace variate::cli {

struct ReportJobOptions {
  /// Folders (every chain file in them) or Stan CSV files, one per chain.
  std::vector<std::string> paths;
  /// The page; empty: report.html in the (first) folder of the draws.
  std::string output;
  std::size_t plotted = 100;       // parameters with plots, the worst first
  std::vector<std::string> pairs;  // the pair plot's parameters; empty: the worst four
};

/// The chain files `paths` name: files as given, and for a folder its files named
/// <prefix>-<chain>.csv (ours) or <prefix>_<chain>.csv (CmdStan's) in chain order. Throws variate::Error naming
/// "report" for a path that does not exist, a folder without chain files, or one with the chain files of several runs
/// (naming their prefixes).
std::vector<std::string> report_files(const std::vector<std::string>& paths);

/// Reads the draws, writes the page and prints one line saying where it went and its size.
/// Returns the page's path. Throws variate::Error for unreadable draws, bad options or a page that
/// cannot be written.
std::filesystem::path write_report(const ReportJobOptions& options, std::ostream& out);

}  // namespace variate::cli
