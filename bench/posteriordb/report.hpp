#pragma once
// The suite's report: one row per run, then the medians over models (each model's median over its
// seeds first) and the failures; and the same as JSON.
#include <iosfwd>
#include <string>
#include <vector>

#include "run.hpp"

namespace posteriordb {

struct SuiteSummary {
  int models = 0, runs = 0;
  /// Medians over models of each model's median over seeds.
  double ess_per_gradient = 0;           // min bulk ESS / gradients, warm-up included
  double ess_per_sampling_gradient = 0;  // min bulk ESS / gradients of the kept draws
  double tail_ess_per_gradient = 0;      // min tail ESS / gradients, warm-up included
  double seconds = 0;
  /// "posterior seed S: reason" for each run that threw, diverged, has an R-hat above 1.01 or a
  /// mean off its reference.
  std::vector<std::string> failures;
};

SuiteSummary summarize_runs(const std::vector<RunRecord>& runs, const RunOptions& options);

void print_header(std::ostream& out);
void print_row(std::ostream& out, const RunRecord& r);
void print_summary(std::ostream& out, const SuiteSummary& s);
/// {"options": {...}, "runs": [...], "summary": {...}}; NaN and infinities as null.
void write_json(const std::string& file, const RunOptions& options, const std::vector<RunRecord>& runs,
                const SuiteSummary& summary);

}  // namespace posteriordb
