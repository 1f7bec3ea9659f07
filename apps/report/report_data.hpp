#pragma once
// What the report's page shows, as one JSON document embedded in it: the summary table (worst
// parameters first), per plotted parameter its thinned trace, rank histogram and per-chain
// densities, the pair plot's draws with the divergent ones marked, the energies and the sampler's
// per-chain step sizes and tree depths. Numbers are kept to 4 significant digits and traces
// thinned, so that the page of a model with thousands of parameters stays small and opens fast.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../run_draws.hpp"

namespace variate::cli::report {

struct ReportChoices {
  /// How many parameters get plots (the worst by R-hat and ESS first); the rest are in the table.
  std::size_t plotted = 100;
  /// The parameters of the pair plot; empty: the first four plotted ones.
  std::vector<std::string> pairs;
};

/// The thresholds the table flags (Vehtari et al. 2021, section 4: R-hat above 1.01, bulk or tail
/// ESS below 100 per chain), which CmdStan's diagnose and the posterior package also use.
inline constexpr double kRhatLimit = 1.01;
inline constexpr double kEssPerChainLimit = 100;

/// The summary rows of the parameters and lp__ ordered worst first: flagged rows (by R-hat,
/// largest first), then the others by their smaller ESS, smallest first; rows without an R-hat
/// (constant draws) last.
std::vector<inference::ParameterSummary> worst_first(std::vector<inference::ParameterSummary> rows, std::size_t chains);

/// The columns the page plots for `ordered` (worst_first's rows): the first `plotted` rows' and
/// the pair plot's.
std::vector<std::string> plotted_columns(const std::vector<inference::ParameterSummary>& ordered,
                                         const ReportChoices& choices);

/// The page's data. `run` needs only the sampler columns and plotted_columns(). Throws variate::Error naming "report"
/// for a pair-plot parameter that is not a column of the draws.
nlohmann::json report_data(const RunDraws& run, const std::vector<inference::ParameterSummary>& summary,
                           const ReportChoices& choices);

}  // namespace variate::cli::report
