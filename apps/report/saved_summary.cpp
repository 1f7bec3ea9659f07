#include "saved_summary.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace variate::cli::report {
namespace {

double number(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : NAN;  // the writer saves NaN as null
}

}  // namespace

std::optional<std::vector<inference::ParameterSummary>> saved_summary(const std::filesystem::path& folder,
                                                                      const RunDraws& run) {
  std::ifstream in(folder / "summary.json");
  if (!in) return std::nullopt;
  const nlohmann::json saved = nlohmann::json::parse(in, nullptr, false);
  if (saved.is_discarded() || !saved.contains("parameters") || !saved.contains("sampler")) return std::nullopt;
  const nlohmann::json& sampler = saved["sampler"];
  if (sampler.value("draws_per_chain", -1) != int(run.draws) || !sampler.contains("step_sizes") ||
      sampler["step_sizes"].size() != run.chains.size())
    return std::nullopt;

  std::vector<inference::ParameterSummary> rows;
  std::size_t next = 0;
  for (const std::string& column : run.columns()) {
    if (is_sampler_column(column) && column != "lp__") continue;
    if (next >= saved["parameters"].size()) return std::nullopt;
    const nlohmann::json& row = saved["parameters"][next++];
    if (row.value("name", "") != column) return std::nullopt;
    rows.push_back({.name = column,
                    .mean = number(row, "mean"),
                    .mcse = number(row, "mcse"),
                    .sd = number(row, "sd"),
                    .mad = number(row, "mad"),
                    .q5 = number(row, "q5"),
                    .q50 = number(row, "q50"),
                    .q95 = number(row, "q95"),
                    .ess_bulk = number(row, "ess_bulk"),
                    .ess_tail = number(row, "ess_tail"),
                    .rhat = number(row, "rhat")});
  }
  if (next != saved["parameters"].size()) return std::nullopt;
  return rows;
}

}  // namespace variate::cli::report
