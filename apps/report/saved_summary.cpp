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

std::optional<SavedSummary> read_saved_summary(const std::filesystem::path& folder) {
  std::ifstream in(folder / "summary.json");
  if (!in) return std::nullopt;
  const nlohmann::json saved = nlohmann::json::parse(in, nullptr, false);
  if (saved.is_discarded() || !saved.contains("parameters") || !saved["parameters"].is_array() ||
      !saved.contains("sampler"))
    return std::nullopt;
  const nlohmann::json& sampler = saved["sampler"];
  const int draws = sampler.value("draws_per_chain", -1);
  if (draws < 0 || !sampler.contains("step_sizes") || !sampler["step_sizes"].is_array()) return std::nullopt;

  SavedSummary summary{.rows = {}, .chains = sampler["step_sizes"].size(), .draws_per_chain = std::size_t(draws)};
  for (const nlohmann::json& row : saved["parameters"]) {
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string()) return std::nullopt;
    summary.rows.push_back({.name = row["name"].get<std::string>(),
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
  return summary;
}

bool describes(const SavedSummary& saved, const RunDraws& run) {
  if (saved.draws_per_chain != run.draws || saved.chains != run.chains.size()) return false;
  std::size_t next = 0;
  for (const std::string& column : run.header()) {
    if (is_sampler_column(column) && column != "lp__") continue;
    if (next >= saved.rows.size() || saved.rows[next].name != column) return false;
    ++next;
  }
  return next == saved.rows.size();
}

}  // namespace variate::cli::report
