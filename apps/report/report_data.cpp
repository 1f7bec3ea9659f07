#include "report_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/inference/kernel_density.hpp"
#include "variate/inference/rank_histogram.hpp"

namespace variate::cli::report {
namespace {

constexpr std::size_t kTracePoints = 250;    // per chain: enough to see mixing and trends
constexpr int kDensityPoints = 64;           // per chain
constexpr std::size_t kPairPoints = 1000;    // of all chains together, besides the divergent draws
constexpr std::size_t kEnergyPoints = 1000;  // per chain
constexpr std::size_t kDefaultPairs = 4;

// x to 4 significant digits, which print in few characters; NaN stays (JSON null).
double compact(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", x);
  return std::strtod(text, nullptr);
}

nlohmann::json compact_list(const std::vector<double>& xs, std::size_t step = 1) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < xs.size(); i += step) list.push_back(compact(xs[i]));
  return list;
}

std::size_t thinning(std::size_t size, std::size_t points) {
  return std::max<std::size_t>(1, (size + points - 1) / points);
}

bool all_finite(const inference::ChainDraws& draws) {
  for (const auto& chain : draws)
    for (double x : chain)
      if (!std::isfinite(x)) return false;
  return true;
}

nlohmann::json rank_data(const inference::ChainDraws& draws) {
  const inference::RankHistogram h = inference::rank_histogram(draws, inference::rank_plot_bins(draws[0].size()));
  return {{"edges", h.edges}, {"counts", h.counts}, {"expected", h.expected}};
}

// Each chain's density on one grid spanning all draws; null for constant draws (no density).
nlohmann::json density_data(const inference::ChainDraws& draws) {
  std::vector<double> pooled;
  for (const auto& chain : draws) pooled.insert(pooled.end(), chain.begin(), chain.end());
  const auto [lo, hi] = std::minmax_element(pooled.begin(), pooled.end());
  if (!(*hi > *lo) || draws[0].size() < 2) return nullptr;
  const inference::DensityGrid grid{.lo = *lo, .hi = *hi, .points = kDensityPoints};
  std::vector<double> x;
  for (int i = 0; i < grid.points; ++i) x.push_back(grid.at(i));
  nlohmann::json y = nlohmann::json::array();
  for (const auto& chain : draws) {
    const double h = inference::silverman_bandwidth(chain);
    // A chain stuck at one value has no spread of its own: the pooled bandwidth draws it as a spike.
    y.push_back(
        compact_list(inference::kernel_density(chain, grid, h > 0 ? h : inference::silverman_bandwidth(pooled))));
  }
  return {{"x", compact_list(x)}, {"y", y}};
}

nlohmann::json parameter_plots(const RunDraws& run, std::size_t column) {
  const inference::ChainDraws draws = run.column(column);
  const std::size_t step = thinning(run.draws, kTracePoints);
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& chain : draws) trace.push_back(compact_list(chain, step));
  nlohmann::json plots = {{"name", run.columns()[column]}, {"step", step}, {"trace", trace}};
  const bool finite = all_finite(draws);
  plots["rank"] = finite ? rank_data(draws) : nullptr;
  plots["density"] = finite ? density_data(draws) : nullptr;
  return plots;
}

std::vector<std::string> pair_names(const std::vector<inference::ParameterSummary>& ordered,
                                    const ReportChoices& choices) {
  if (!choices.pairs.empty()) return choices.pairs;
  std::vector<std::string> names;
  for (const auto& row : ordered)
    if (row.name != "lp__" && names.size() < std::min(kDefaultPairs, choices.plotted)) names.push_back(row.name);
  return names;
}

// The pooled draws of the pair plot's parameters, thinned, with every divergent draw kept.
nlohmann::json pair_data(const RunDraws& run, const std::vector<std::string>& names) {
  if (names.size() < 2) return nullptr;
  std::vector<std::size_t> columns;
  for (const std::string& name : names) {
    const auto j = run.column_index(name);
    VARIATE_CHECK(j.has_value(), "report", "--pairs names ", quote_input(name),
                  ", which is not a column of the draws; expected parameter names as in the files (such as ",
                  run.columns().back(), ")");
    columns.push_back(*j);
  }
  const auto divergent_column = run.column_index("divergent__");
  const std::size_t step = thinning(run.draws * run.chains.size(), kPairPoints);
  std::vector<std::vector<double>> values(columns.size());
  std::vector<int> divergent;
  std::size_t seen = 0;
  for (const auto& chain : run.chains)
    for (std::size_t i = 0; i < run.draws; ++i, ++seen) {
      const bool is_divergent = divergent_column && chain.draws[i][*divergent_column] != 0;
      if (!is_divergent && seen % step != 0) continue;
      for (std::size_t k = 0; k < columns.size(); ++k) values[k].push_back(compact(chain.draws[i][columns[k]]));
      divergent.push_back(is_divergent ? 1 : 0);
    }
  return {{"names", names}, {"values", values}, {"divergent", divergent}};
}

nlohmann::json energy_data(const RunDraws& run, const inference::SamplerSummary& sampler) {
  const auto column = run.column_index("energy__");
  if (!column || run.draws < 2) return nullptr;
  std::vector<double> marginal, transition;
  const std::size_t step = thinning(run.draws, kEnergyPoints);
  for (const auto& chain : run.chains) {
    double mean = 0;
    for (std::size_t i = 0; i < run.draws; ++i) mean += chain.draws[i][*column] / double(run.draws);
    for (std::size_t i = 0; i < run.draws; i += step) {
      marginal.push_back(compact(chain.draws[i][*column] - mean));
      if (i > 0) transition.push_back(compact(chain.draws[i][*column] - chain.draws[i - 1][*column]));
    }
  }
  return {{"ebfmi", compact_list(sampler.ebfmi)}, {"marginal", marginal}, {"transition", transition}};
}

nlohmann::json tree_depth_data(const RunDraws& run) {
  const auto column = run.column_index("treedepth__");
  if (!column) return nullptr;
  int deepest = 0;
  for (const auto& chain : run.chains)
    for (std::size_t i = 0; i < run.draws; ++i) deepest = std::max(deepest, int(chain.draws[i][*column]));
  std::vector<std::vector<int>> counts(run.chains.size(), std::vector<int>(std::size_t(deepest) + 1, 0));
  for (std::size_t c = 0; c < run.chains.size(); ++c)
    for (std::size_t i = 0; i < run.draws; ++i)
      ++counts[c][std::size_t(std::max(0, int(run.chains[c].draws[i][*column])))];
  return {{"counts", counts}};
}

nlohmann::json sampler_data(const RunDraws& run, const inference::SamplerSummary& sampler) {
  return {{"step_sizes", compact_list(sampler.step_sizes)},
          {"divergences", sampler.divergences},
          {"max_treedepth_hits", sampler.max_treedepth_hits},
          {"max_treedepth", sampler.max_treedepth},
          {"ebfmi", compact_list(sampler.ebfmi)},
          {"tree_depth", tree_depth_data(run)}};
}

nlohmann::json table_row(const inference::ParameterSummary& s) {
  return {s.name,         compact(s.mean), compact(s.mcse), compact(s.sd),          compact(s.mad),
          compact(s.q5),  compact(s.q50),  compact(s.q95),  std::round(s.ess_bulk), std::round(s.ess_tail),
          compact(s.rhat)};
}

}  // namespace

std::vector<inference::ParameterSummary> worst_first(std::vector<inference::ParameterSummary> rows,
                                                     std::size_t chains) {
  std::erase_if(rows, [](const auto& r) { return is_sampler_column(r.name) && r.name != "lp__"; });
  const double ess_limit = kEssPerChainLimit * double(chains);
  const auto rank = [&](const inference::ParameterSummary& r) {
    const double ess = std::min(r.ess_bulk, r.ess_tail);
    const int group = std::isnan(r.rhat) ? 2 : (r.rhat > kRhatLimit || ess < ess_limit) ? 0 : 1;
    return std::pair(group, group == 0 ? -r.rhat : (std::isnan(ess) ? 0 : ess));
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return rows;
}

std::vector<std::string> plotted_columns(const std::vector<inference::ParameterSummary>& ordered,
                                         const ReportChoices& choices) {
  std::vector<std::string> names = pair_names(ordered, choices);
  for (std::size_t i = 0; i < std::min(choices.plotted, ordered.size()); ++i) names.push_back(ordered[i].name);
  return names;
}

nlohmann::json report_data(const RunDraws& run, const std::vector<inference::ParameterSummary>& summary,
                           const ReportChoices& choices) {
  const std::vector<inference::ParameterSummary> ordered = worst_first(summary, run.chains.size());
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : ordered) rows.push_back(table_row(s));
  nlohmann::json parameters = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(choices.plotted, ordered.size()); ++i)
    parameters.push_back(parameter_plots(run, *run.column_index(ordered[i].name)));

  const inference::SamplerSummary sampler = summarize_run_sampler(run);
  std::vector<std::string> files;
  for (const auto& chain : run.chains) files.push_back(chain.path);
  return {{"files", files},
          {"notes", run.notes},
          {"chains", run.chains.size()},
          {"draws", run.draws},
          {"limits", {{"rhat", kRhatLimit}, {"ess", kEssPerChainLimit * double(run.chains.size())}}},
          {"table",
           {{"columns", {"name", "Mean", "MCSE", "StdDev", "MAD", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "R_hat"}},
            {"rows", rows}}},
          {"parameters", parameters},
          {"pairs", pair_data(run, pair_names(ordered, choices))},
          {"energy", energy_data(run, sampler)},
          {"sampler", sampler_data(run, sampler)}};
}

}  // namespace variate::cli::report
