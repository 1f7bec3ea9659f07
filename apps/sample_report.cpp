#include "sample_report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "netcdf_draws.hpp"
#include "shard_output.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

// Puts `summaries` (named) in the order of `names`, the gathered file's columns.
std::vector<inference::ParameterSummary> in_column_order(std::vector<inference::ParameterSummary> summaries,
                                                         const std::vector<std::string>& names) {
  std::map<std::string, inference::ParameterSummary> by_name;
  for (auto& s : summaries) by_name.emplace(s.name, std::move(s));
  std::vector<inference::ParameterSummary> ordered;
  for (const std::string& n : names) {
    const auto it = by_name.find(n);
    VARIATE_CHECK(it != by_name.end(), "sample", "no summary of column '", n, "'");
    ordered.push_back(std::move(it->second));
  }
  return ordered;
}

// The line pointing at the worst R_hat and bulk ESS among all parameters, when not all are shown.
std::string worst_of(const std::vector<inference::ParameterSummary>& all) {
  const inference::ParameterSummary* worst_rhat = nullptr;
  const inference::ParameterSummary* worst_ess = nullptr;
  for (std::size_t j = 1; j < all.size(); ++j) {
    const auto& r = all[j];
    if (!std::isnan(r.rhat) && (!worst_rhat || r.rhat > worst_rhat->rhat)) worst_rhat = &r;
    if (!std::isnan(r.ess_bulk) && (!worst_ess || r.ess_bulk < worst_ess->ess_bulk)) worst_ess = &r;
  }
  if (!worst_rhat && !worst_ess) return " no R_hat or ESS (too few draws)";
  std::ostringstream worst;
  if (worst_rhat)
    worst << " largest R_hat " << std::fixed << std::setprecision(3) << worst_rhat->rhat << " (" << worst_rhat->name
          << ")" << (worst_ess ? "," : "");
  if (worst_ess)
    worst << " smallest ESS_bulk " << std::fixed << std::setprecision(0) << worst_ess->ess_bulk << " ("
          << worst_ess->name << ")";
  return worst.str();
}

}  // namespace

std::vector<inference::ParameterSummary> summarize_draws(const DrawWriter& draws, const DrawLayout& layout,
                                                         std::vector<inference::ParameterSummary> sharded) {
  std::vector<inference::ParameterSummary> all;
  all.push_back(inference::summarize("lp__", draws.main_column(0)));
  std::vector<inference::ParameterSummary> parameters = std::move(sharded);
  for (std::size_t j = layout.sampler_width; j < layout.columns.size(); ++j)
    parameters.push_back(inference::summarize(layout.columns[j], draws.main_column(j)));
  parameters = in_column_order(std::move(parameters), layout.all_sites.names);
  all.insert(all.end(), std::make_move_iterator(parameters.begin()), std::make_move_iterator(parameters.end()));
  return all;
}

void print_parameter_summary(std::ostream& out, const Model& model, const std::string& draws,
                             const std::vector<inference::ParameterSummary>& all,
                             const std::filesystem::path& full_table) {
  std::vector<inference::ParameterSummary> main_rows = {all[0]};
  for (const std::string& name : model.main_parameters) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& r) { return r.name == name; });
    if (it != all.end()) main_rows.push_back(*it);
  }
  out << "\nsummary of the main parameters (" << draws << "):\n";
  inference::write_summary_table(out, main_rows);
  if (all.size() > main_rows.size())  // not all shown: point at the worst of the rest
    out << "over all " << all.size() - 1 << " parameters:" << worst_of(all) << "; the full table is in "
        << full_table.string() << '\n';
}

void write_summary_files(const std::filesystem::path& dir, const std::vector<inference::ParameterSummary>& all,
                         const inference::SamplerSummary& sampler) {
  write_file("sample", (dir / "summary.csv").string(), [&](std::ostream& f) { inference::write_summary_csv(f, all); });
  write_file("sample", (dir / "summary.json").string(),
             [&](std::ostream& f) { inference::write_summary_json(f, all, sampler); });
}

void print_interrupted(std::ostream& out, const SampleContext& job, const std::vector<std::int64_t>& kept,
                       bool per_device, const std::filesystem::path& dir) {
  const std::string& model = job.model.name;
  std::ostringstream counts;
  if (std::all_of(kept.begin(), kept.end(), [&](std::int64_t k) { return k == kept[0]; })) {
    counts << kept[0];
  } else {
    for (std::size_t c = 0; c < kept.size(); ++c) counts << (c ? ", " : "") << kept[c];
  }
  out << "interrupted: kept " << counts.str() << " draws per chain in " << dir.string();
  if (!writes_csv(job.options.output_format)) {
    out << " (in " << (dir / netcdf_file_name(model)).string() << ")\n" << std::flush;
    return;
  }
  out << " (summarize them with: variate summary " << (dir / (model + "-*.csv")).string();
  if (per_device)
    out << "; each device's rows with: variate summary " << (dir / (model + ".device<k>-*.csv")).string()
        << "; the files are listed in " << (dir / manifest_file_name(model)).string();
  out << ")\n" << std::flush;
}

}  // namespace variate::cli
