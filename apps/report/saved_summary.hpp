#pragma once
// The summary `variate sample` saves beside its chain files (summary.json), reused by the report
// when it describes exactly the draws read: computing R-hat and ESS of every parameter is the
// slowest part of a large model's report (7,850 parameters x 16,000 draws: minutes of FFTs).
#include <filesystem>
#include <optional>
#include <vector>

#include "../run_draws.hpp"
#include "variate/inference/summary.hpp"

namespace variate::cli::report {

/// The rows of `folder`/summary.json if it has one for `run`: one entry per chain in its sampler
/// section, run.draws draws per chain, and one row per column of the draws other than the sampler
/// columns besides lp__, in column order. Otherwise (no file, another run's, unreadable) nothing:
/// the caller computes the summary.
std::optional<std::vector<inference::ParameterSummary>> saved_summary(const std::filesystem::path& folder,
                                                                      const RunDraws& run);

}  // namespace variate::cli::report
