#include "run_draws.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <future>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::cli {
namespace {

// The first difference between two files' columns, or an empty string.
std::string column_mismatch(const data::StanCsv& first, const data::StanCsv& other) {
  const auto& a = first.header;
  const auto& b = other.header;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i])
      return "column " + std::to_string(i + 1) + " is " + quote_input(b[i]) + " but " + quote_input(a[i]) + " in " +
             first.path;
  if (a.size() != b.size())
    return "it has " + std::to_string(b.size()) + " columns but " + first.path + " has " + std::to_string(a.size());
  return {};
}

std::vector<data::StanCsv> read_in_parallel(const std::vector<std::string>& files, const ColumnFilter& keep) {
  std::vector<std::future<data::StanCsv>> reading;
  for (const std::string& path : files)
    reading.push_back(std::async(std::launch::async, [&keep, path] { return data::read_stan_csv(path, keep); }));
  std::vector<data::StanCsv> read;
  for (auto& r : reading) read.push_back(r.get());  // rethrows the first file's error, in file order
  return read;
}

}  // namespace

std::optional<std::size_t> RunDraws::column_index(std::string_view name) const {
  const auto it = std::find(columns().begin(), columns().end(), name);
  if (it == columns().end()) return std::nullopt;
  return std::size_t(it - columns().begin());
}

inference::ChainDraws RunDraws::column(std::size_t j) const {
  inference::ChainDraws d(chains.size());
  for (std::size_t c = 0; c < chains.size(); ++c) {
    d[c].reserve(draws);
    for (std::size_t i = 0; i < draws; ++i) d[c].push_back(chains[c].draws[i][j]);
  }
  return d;
}

bool is_sampler_column(std::string_view name) { return name.size() > 2 && name.ends_with("__"); }

RunDraws read_run_draws(const std::vector<std::string>& files, const char* op, std::ostream& warnings,
                        const ColumnFilter& keep) {
  VARIATE_CHECK(!files.empty(), op, "no files given; expected one or more Stan CSV files");
  RunDraws run;
  for (data::StanCsv& f : read_in_parallel(files, keep)) {
    if (!f.warning.empty()) warnings << "variate " + std::string(op) + ": warning: " + f.warning + "\n";
    const std::string mismatch = run.chains.empty() ? std::string() : column_mismatch(run.chains.front(), f);
    VARIATE_CHECK(mismatch.empty(), op, f.path, " does not match the other files: ", mismatch);
    if (f.draws.empty()) {
      run.notes.push_back(f.path + " has no draws after warm-up; left out");
    } else {
      run.chains.push_back(std::move(f));
    }
  }
  VARIATE_CHECK(!run.chains.empty(), op, "no draws after warm-up to summarize in ", files.size() == 1 ? "" : "any of ",
                files.front(), files.size() == 1 ? "" : " ...");
  run.draws = run.chains.front().draws.size();
  for (const auto& f : run.chains) run.draws = std::min(run.draws, f.draws.size());
  for (const auto& f : run.chains)
    if (f.draws.size() != run.draws)
      run.notes.push_back(f.path + " has " + std::to_string(f.draws.size()) + " draws; using the first " +
                          std::to_string(run.draws) + " of each file");
  return run;
}

std::vector<inference::ParameterSummary> summarize_run(const RunDraws& run) {
  const std::vector<std::string>& columns = run.columns();
  std::vector<inference::ParameterSummary> rows(columns.size());
  std::exception_ptr error;  // exceptions may not leave an OpenMP region
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t j = 0; j < columns.size(); ++j) {
    try {
      inference::ParameterSummary s = inference::summarize(columns[j], run.column(j));
      if (is_sampler_column(columns[j]) && columns[j] != "lp__") s.mcse = s.ess_bulk = s.ess_tail = s.rhat = NAN;
      rows[j] = std::move(s);
    } catch (...) {
#pragma omp critical
      error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return rows;
}

inference::SamplerSummary summarize_run_sampler(const RunDraws& run) {
  inference::SamplerSummary sampler;
  int max_depth = 0;
  if (const std::string* v = run.chains.front().config_value("max_depth")) max_depth = std::atoi(v->c_str());
  const auto divergent = run.column_index("divergent__"), treedepth = run.column_index("treedepth__"),
             energy_column = run.column_index("energy__"), stepsize = run.column_index("stepsize__");
  for (const auto& f : run.chains) {
    if (divergent) {
      int n = 0;
      for (std::size_t i = 0; i < run.draws; ++i) n += f.draws[i][*divergent] != 0 ? 1 : 0;
      sampler.divergences.push_back(n);
    }
    if (treedepth && max_depth > 0) {
      int n = 0;
      for (std::size_t i = 0; i < run.draws; ++i) n += f.draws[i][*treedepth] >= max_depth ? 1 : 0;
      sampler.max_treedepth_hits.push_back(n);
    }
    if (energy_column) {
      std::vector<double> energy;
      for (std::size_t i = 0; i < run.draws; ++i) energy.push_back(f.draws[i][*energy_column]);
      sampler.ebfmi.push_back(inference::ebfmi(energy));
    }
    if (f.has_adaptation) {
      sampler.step_sizes.push_back(f.adaptation.step_size);
    } else if (stepsize) {
      sampler.step_sizes.push_back(f.draws[0][*stepsize]);
    }
  }
  if (sampler.step_sizes.size() != run.chains.size()) sampler.step_sizes.clear();
  sampler.draws_per_chain = int(run.draws);
  sampler.max_treedepth = max_depth;
  return sampler;
}

}  // namespace variate::cli
