#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "variate/core/error.hpp"

namespace posteriordb {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<std::string> reasons(const RunRecord& r, double z_limit) {
  if (!r.error.empty()) return {"error: " + r.error};
  std::vector<std::string> out;
  if (r.divergences > 0) out.push_back(std::to_string(r.divergences) + " divergences");
  if (!(r.max_rhat <= 1.01)) out.push_back("max R-hat " + std::to_string(r.max_rhat));
  if (r.has_reference && r.means_off > 0) {
    std::string off;
    for (const MeanCheck& c : r.checks)
      if (!(c.z <= z_limit)) off += (off.empty() ? "" : ", ") + c.parameter;
    out.push_back(std::to_string(r.means_off) + " means off the reference (max z " + std::to_string(r.max_z) +
                  "): " + off);
  }
  return out;
}

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

}  // namespace

SuiteSummary summarize_runs(const std::vector<RunRecord>& runs, const RunOptions& options) {
  struct PerModel {
    std::vector<double> ess, sampling_ess, tail, seconds;
  };
  std::map<std::string, PerModel> models;
  SuiteSummary s;
  s.runs = int(runs.size());
  for (const RunRecord& r : runs) {
    for (const std::string& why : reasons(r, options.z_limit))
      s.failures.push_back(r.posterior + " seed " + std::to_string(r.seed) + ": " + why);
    PerModel& m = models[r.posterior];
    if (!r.error.empty()) continue;
    m.ess.push_back(r.min_ess_bulk / double(r.gradients));
    m.sampling_ess.push_back(r.min_ess_bulk / double(r.sampling_gradients));
    m.tail.push_back(r.min_ess_tail / double(r.gradients));
    m.seconds.push_back(r.seconds);
  }
  std::vector<double> ess, sampling_ess, tail, seconds;
  for (const auto& [name, m] : models) {
    if (m.ess.empty()) continue;
    ess.push_back(median(m.ess));
    sampling_ess.push_back(median(m.sampling_ess));
    tail.push_back(median(m.tail));
    seconds.push_back(median(m.seconds));
  }
  s.models = int(models.size());
  s.ess_per_gradient = median(ess);
  s.ess_per_sampling_gradient = median(sampling_ess);
  s.tail_ess_per_gradient = median(tail);
  s.seconds = median(seconds);
  return s;
}

void print_header(std::ostream& out) {
  out << std::left << std::setw(44) << "posterior" << std::right << std::setw(5) << "seed" << std::setw(9) << "bulk ESS"
      << std::setw(9) << "tail ESS" << std::setw(11) << "gradients" << std::setw(11) << "sampling" << std::setw(10)
      << "ESS/grad" << std::setw(8) << "div" << std::setw(8) << "R-hat" << std::setw(9) << "seconds" << std::setw(8)
      << "max z"
      << "  means\n";
}

void print_row(std::ostream& out, const RunRecord& r) {
  out << std::left << std::setw(44) << r.posterior << std::right << std::setw(5) << r.seed;
  if (!r.error.empty()) {
    out << "  error: " << r.error << "\n";
    return;
  }
  out << std::fixed << std::setprecision(0) << std::setw(9) << r.min_ess_bulk << std::setw(9) << r.min_ess_tail
      << std::setw(11) << r.gradients << std::setw(11) << r.sampling_gradients << std::setprecision(5) << std::setw(10)
      << r.min_ess_bulk / double(r.gradients) << std::setw(8) << r.divergences << std::setprecision(3) << std::setw(8)
      << r.max_rhat << std::setprecision(1) << std::setw(9) << r.seconds << std::setprecision(2) << std::setw(8)
      << r.max_z << "  "
      << (!r.has_reference ? "no reference"
          : r.means_ok()   ? "ok"
                           : "OFF")
      << "\n";
  out.unsetf(std::ios::floatfield);
}

void print_summary(std::ostream& out, const SuiteSummary& s) {
  out << "\n"
      << s.runs << " runs of " << s.models << " models; medians over models (of each model's median over seeds):\n"
      << "  min bulk ESS per gradient, warm-up included: " << s.ess_per_gradient << "\n"
      << "  min bulk ESS per gradient, warm-up excluded: " << s.ess_per_sampling_gradient << "\n"
      << "  min tail ESS per gradient, warm-up included: " << s.tail_ess_per_gradient << "\n"
      << "  wall time: " << s.seconds << " s\n"
      << s.failures.size() << " failures" << (s.failures.empty() ? "" : ":") << "\n";
  for (const std::string& f : s.failures) out << "  " << f << "\n";
}

void write_json(const std::string& file, const RunOptions& options, const std::vector<RunRecord>& runs,
                const SuiteSummary& summary) {
  nlohmann::json j;
  j["options"] = {{"metric", options.metric}, {"chains", options.chains},         {"warmup", options.warmup},
                  {"draws", options.draws},   {"vectorized", options.vectorized}, {"z_limit", options.z_limit}};
  j["runs"] = nlohmann::json::array();
  for (const RunRecord& r : runs) {
    nlohmann::json run = {{"posterior", r.posterior}, {"seed", r.seed}};
    if (!r.error.empty()) {
      run["error"] = r.error;
    } else {
      run.update({{"parameters", r.parameters},
                  {"min_ess_bulk", number(r.min_ess_bulk)},
                  {"min_ess_tail", number(r.min_ess_tail)},
                  {"max_rhat", number(r.max_rhat)},
                  {"gradients", r.gradients},
                  {"sampling_gradients", r.sampling_gradients},
                  {"target_calls", r.target_calls},
                  {"seconds", r.seconds},
                  {"divergences", r.divergences}});
      if (r.has_reference) {
        run["means_ok"] = r.means_ok();
        run["max_z"] = number(r.max_z);
        for (const MeanCheck& c : r.checks)
          run["means"].push_back({{"parameter", c.parameter},
                                  {"mean", number(c.mean)},
                                  {"mcse", number(c.mcse)},
                                  {"reference_mean", c.reference_mean},
                                  {"reference_mcse", c.reference_mcse},
                                  {"z", number(c.z)}});
      }
    }
    j["runs"].push_back(std::move(run));
  }
  j["summary"] = {{"models", summary.models},
                  {"runs", summary.runs},
                  {"ess_per_gradient", number(summary.ess_per_gradient)},
                  {"ess_per_sampling_gradient", number(summary.ess_per_sampling_gradient)},
                  {"tail_ess_per_gradient", number(summary.tail_ess_per_gradient)},
                  {"seconds", number(summary.seconds)},
                  {"failures", summary.failures}};
  std::ofstream out(file);
  VARIATE_CHECK(out.good(), "posteriordb suite", "cannot write ", file);
  out << j.dump(2) << "\n";
  VARIATE_CHECK(out.good(), "posteriordb suite", "writing ", file, " failed");
}

}  // namespace posteriordb
