#include "summary_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/summary.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

bool is_sampler_column(const std::string& name) { return name.size() > 2 && name.ends_with("__"); }

// The first difference between two files' columns, or an empty string.
std::string column_mismatch(const data::StanCsv& first, const data::StanCsv& other) {
  const auto& a = first.columns;
  const auto& b = other.columns;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i])
      return "column " + std::to_string(i + 1) + " is " + quote_input(b[i]) + " but " + quote_input(a[i]) + " in " +
             first.path;
  if (a.size() != b.size())
    return "it has " + std::to_string(b.size()) + " columns but " + first.path + " has " + std::to_string(a.size());
  return {};
}

}  // namespace

int run_summary_job(const SummaryJobOptions& o, std::ostream& out) {
  VARIATE_CHECK(!o.files.empty(), "summary", "no files given; expected one or more Stan CSV files");
  std::vector<data::StanCsv> files;
  std::vector<std::string> empty;  // files without draws, such as chains an interrupted run never started
  for (const std::string& path : o.files) {
    data::StanCsv f = data::read_stan_csv(path);
    if (!f.warning.empty()) std::cerr << "variate summary: warning: " + f.warning + "\n";
    const std::string mismatch = files.empty() ? std::string() : column_mismatch(files.front(), f);
    VARIATE_CHECK(mismatch.empty(), "summary", f.path, " does not match the other files: ", mismatch);
    if (f.draws.empty()) {
      empty.push_back(f.path);
    } else {
      files.push_back(std::move(f));
    }
  }
  VARIATE_CHECK(!files.empty(), "summary", "no draws after warm-up to summarize in ",
                o.files.size() == 1 ? "" : "any of ", o.files.front(), o.files.size() == 1 ? "" : " ...");

  // Chains of an interrupted run can differ in length; the diagnostics need equal lengths.
  std::size_t draws = files.front().draws.size();
  for (const auto& f : files) draws = std::min(draws, f.draws.size());
  out << "Inference for Stan CSV: " << files.size() << (files.size() == 1 ? " chain" : " chains") << ", " << draws
      << " draws each\n";
  for (const auto& path : empty) out << "note: " << path << " has no draws after warm-up; left out\n";
  for (const auto& f : files)
    if (f.draws.size() != draws)
      out << "note: " << f.path << " has " << f.draws.size() << " draws; using the first " << draws
          << " of each file\n";

  const std::vector<std::string>& columns = files.front().columns;
  const auto draws_of = [&](std::size_t column) {
    inference::ChainDraws d(files.size());
    for (std::size_t c = 0; c < files.size(); ++c)
      for (std::size_t i = 0; i < draws; ++i) d[c].push_back(files[c].draws[i][column]);
    return d;
  };
  // lp__ and the parameters in full; the other sampler columns only by their location and spread,
  // as stansummary: their MCSE, ESS and R-hat mean little.
  std::vector<inference::ParameterSummary> rows;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    inference::ParameterSummary s = inference::summarize(columns[j], draws_of(j));
    if (is_sampler_column(columns[j]) && columns[j] != "lp__") s.mcse = s.ess_bulk = s.ess_tail = s.rhat = NAN;
    rows.push_back(s);
  }
  out << '\n';
  inference::write_summary_table(out, rows);

  inference::SamplerSummary sampler;
  const auto column = [&](const char* name) -> std::optional<std::size_t> {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return std::size_t(it - columns.begin());
  };
  int max_depth = 0;
  if (const std::string* v = files.front().config_value("max_depth")) max_depth = std::atoi(v->c_str());
  for (const auto& f : files) {
    if (const auto j = column("divergent__")) {
      int n = 0;
      for (std::size_t i = 0; i < draws; ++i) n += f.draws[i][*j] != 0 ? 1 : 0;
      sampler.divergences.push_back(n);
    }
    if (const auto j = column("treedepth__"); j && max_depth > 0) {
      int n = 0;
      for (std::size_t i = 0; i < draws; ++i) n += f.draws[i][*j] >= max_depth ? 1 : 0;
      sampler.max_treedepth_hits.push_back(n);
    }
    if (const auto j = column("energy__")) {
      std::vector<double> energy;
      for (std::size_t i = 0; i < draws; ++i) energy.push_back(f.draws[i][*j]);
      sampler.ebfmi.push_back(inference::ebfmi(energy));
    }
    if (f.has_adaptation) {
      sampler.step_sizes.push_back(f.adaptation.step_size);
    } else if (const auto j = column("stepsize__")) {
      sampler.step_sizes.push_back(f.draws[0][*j]);
    }
  }
  if (sampler.step_sizes.size() != files.size()) sampler.step_sizes.clear();
  sampler.draws_per_chain = int(draws);
  sampler.max_treedepth = max_depth;
  out << "\nSampler diagnostics:\n";
  inference::write_sampler_diagnostics(out, sampler);

  if (!o.csv.empty()) write_file("summary", o.csv, [&](std::ostream& f) { inference::write_summary_csv(f, rows); });
  if (!o.json.empty())
    write_file("summary", o.json, [&](std::ostream& f) { inference::write_summary_json(f, rows, sampler); });
  return 0;
}

}  // namespace variate::cli
