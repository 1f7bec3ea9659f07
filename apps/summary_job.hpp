#pragma once
// `variate summary FILE...`: the posterior summary of Stan CSV files (ours or CmdStan's), one file
// per chain, like CmdStan's stansummary.
#include <ostream>
#include <string>
#include <vector>

namespace variate::cli {

struct SummaryJobOptions {
  std::vector<std::string> files;
  std::string csv;   // also write the summary as CSV here, if not empty
  std::string json;  // and as JSON
};

/// Prints the table of every column (lp__ and the parameters in full, the other sampler columns'
/// means) and the sampler diagnostics. Throws variate::Error for unreadable or malformed files and
/// for files whose columns differ, naming the first difference.
int run_summary_job(const SummaryJobOptions& options, std::ostream& out);

}  // namespace variate::cli
