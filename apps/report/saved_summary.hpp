#pragma once
// The summary `variate sample` saves beside its chain files (summary.json), reused by the report
// when it describes exactly the draws read: computing R-hat and ESS of every parameter is the
// slowest part of a large model's report (7,850 parameters x 16,000 draws: minutes of FFTs), and
// with it the report reads only the columns it plots.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "../run_draws.hpp"
#include "variate/inference/summary.hpp"

namespace variate::cli::report {

struct SavedSummary {
  /// lp__ and the parameters, in column order.
  std::vector<inference::ParameterSummary> rows;
  std::size_t chains = 0;
  std::size_t draws_per_chain = 0;
};

/// `folder`/summary.json, or nothing when there is none or it cannot be read as a summary.
std::optional<SavedSummary> read_saved_summary(const std::filesystem::path& folder);

/// Whether `saved` is the summary of `run`: as many chains and draws per chain, and one row per
/// column of the files other than the sampler columns besides lp__, in column order. If not (another
/// run's file), the caller computes the summary.
bool describes(const SavedSummary& saved, const RunDraws& run);

}  // namespace variate::cli::report
