#pragma once
// What `variate sample` reports once the chains are done: the parameters' summaries (the main ones
// on screen, all of them in summary.csv and summary.json), the sampler's diagnostics, and where an
// interrupted run left its draws.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <vector>

#include "draw_layout.hpp"
#include "draw_writer.hpp"
#include "sample_context.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/summary.hpp"

namespace variate::cli {

/// lp__, then every saved column in the gathered file's order. `sharded` are the summaries of the
/// columns the devices kept (per-device), gathered.
std::vector<inference::ParameterSummary> summarize_draws(const DrawWriter& draws, const DrawLayout& layout,
                                                         std::vector<inference::ParameterSummary> sharded);

/// Prints the first row of `all` (lp__) and the model's main parameters under "summary of the main
/// parameters (<draws>):", and the worst R_hat and ESS among the rest, pointing at `full_table`.
void print_parameter_summary(std::ostream& out, const Model& model, const std::string& draws,
                             const std::vector<inference::ParameterSummary>& all,
                             const std::filesystem::path& full_table);

void write_summary_files(const std::filesystem::path& dir, const std::vector<inference::ParameterSummary>& all,
                         const inference::SamplerSummary& sampler);

/// Where the draws of an interrupted run are and how to summarize them.
void print_interrupted(std::ostream& out, const SampleContext& job, const std::vector<std::int64_t>& kept,
                       bool per_device, const std::filesystem::path& dir);

}  // namespace variate::cli
