#pragma once
// The draws of one run read back from its Stan CSV files (ours or CmdStan's), one file per chain:
// what `variate summary` and `variate report` start from.
//
//   RunDraws run = read_run_draws(files, "summary", std::cerr);
//   std::vector<inference::ParameterSummary> rows = summarize_run(run);
//   inference::SamplerSummary sampler = summarize_run_sampler(run);
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "variate/data/stan_csv.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/summary.hpp"

namespace variate::cli {

struct RunDraws {
  /// The files with draws after warm-up, in the order given; all have the same columns.
  std::vector<data::StanCsv> chains;
  /// Draws per chain: the shortest chain's count (an interrupted run's chains differ in length;
  /// the diagnostics need equal lengths), so longer chains are read only that far.
  std::size_t draws = 0;
  /// What was left out, one sentence each: files without draws, chains cut to `draws`.
  std::vector<std::string> notes;

  /// The columns read: all of the files' columns unless read_run_draws was given a filter.
  const std::vector<std::string>& columns() const { return chains.front().columns; }
  /// Every column of the files.
  const std::vector<std::string>& header() const { return chains.front().header; }
  /// The index of the column `name`, if there is one.
  std::optional<std::size_t> column_index(std::string_view name) const;
  /// Column `j`'s draws, [chain][draw], `draws` per chain.
  inference::ChainDraws column(std::size_t j) const;
};

/// Whether `name` is a sampler column (lp__, accept_stat__, ...): Stan ends their names in "__".
bool is_sampler_column(std::string_view name);

/// Which columns read_run_draws reads (data::read_stan_csv's filter); empty: all.
using ColumnFilter = std::function<bool(std::string_view)>;

/// Reads the Stan CSV `files` (in parallel) as the chains of one run, only the columns `keep`
/// accepts. A cut last row is reported to `warnings` as "variate <op>: warning: ...". Throws
/// variate::Error naming `op` for no files, unreadable or malformed files (read_stan_csv), files
/// whose columns differ (naming the first difference) and when no file has draws after warm-up.
RunDraws read_run_draws(const std::vector<std::string>& files, const char* op, std::ostream& warnings,
                        const ColumnFilter& keep = {});

/// One row per column, in column order (in parallel over columns): lp__ and the parameters in
/// full, the other sampler columns only by their location and spread, as stansummary does (their
/// MCSE, ESS and R-hat mean little and are NaN).
std::vector<inference::ParameterSummary> summarize_run(const RunDraws& run);

/// Per chain, from the sampler columns that are there: divergences, transitions at the maximum
/// tree depth (when the files record max_depth), E-BFMI, and the step size (the adapted one, or
/// the first draw's stepsize__; left out unless every chain has one).
inference::SamplerSummary summarize_run_sampler(const RunDraws& run);

}  // namespace variate::cli
