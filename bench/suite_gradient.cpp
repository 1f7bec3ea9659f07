// The cost of one log-density gradient on the unconstrained space (inference::make_target, what the
// samplers call, Jacobian included) for each posteriordb suite model (bench/posteriordb/) and the
// gradient-only ones (radon), in ns: the median over several timing windows, on one thread as
// Stan's gradient runs. The point is the same constant in every coordinate (default 0.1), so a Stan
// harness that orders the coordinates differently evaluates the same point; the sum and norm of the
// gradient, which do not depend on that order, check its gradient against Stan's.
//
//   build/bench/suite_gradient [--models a,b] [--point 0.1] [--windows 9] [--window-seconds 0.1]
//       [--threads 1] [--data-folder DIR]
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "machine_limits.hpp"
#include "posteriordb/suite.hpp"
#include "timing.hpp"
#include "variate/inference/target.hpp"

namespace {

using namespace variate;

struct GradientTiming {
  std::int64_t dimension = 0;
  double median_ns = 0, min_ns = 0;
  double log_density = 0, gradient_sum = 0, gradient_norm = 0;
};

struct TimingOptions {
  double point = 0.1;
  int windows = 9;
  double window_seconds = 0.1;
};

GradientTiming time_gradient(const posteriordb::SuiteModel& model, const std::string& data_folder,
                             const TimingOptions& options) {
  const inference::Target target = inference::make_target(inference::Unconstrained(
      models::define(model.function, posteriordb::read_suite_data(model, data_folder)).program));
  const auto d = std::size_t(target.dimension);
  const std::vector<double> position(d, options.point);
  std::vector<double> gradient(d);
  double lp = 0;
  const auto evaluate = [&] { target.evaluate(position, 1, {&lp, 1}, gradient); };
  // The first calls check the target and record what later calls replay: not part of the cost.
  for (int warm = 0; warm < 3; ++warm) evaluate();
  GradientTiming t{.dimension = target.dimension, .log_density = lp};
  for (double g : gradient) t.gradient_sum += g, t.gradient_norm += g * g;
  t.gradient_norm = std::sqrt(t.gradient_norm);
  const double one_call = bench::best_seconds(evaluate, 0.02);
  const auto calls = std::max<std::int64_t>(1, std::int64_t(options.window_seconds / one_call));
  std::vector<double> ns;
  for (int w = 0; w < options.windows; ++w) {
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t c = 0; c < calls; ++c) evaluate();
    ns.push_back(bench::seconds_since(start) / double(calls) * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  t.median_ns = ns[ns.size() / 2];
  t.min_ns = ns.front();
  return t;
}

/// A suite model or a gradient-only one, by name.
const posteriordb::SuiteModel& find_model(const std::string& posterior) {
  for (const posteriordb::SuiteModel& m : posteriordb::gradient_only_models())
    if (m.posterior == posterior) return m;
  return posteriordb::find_suite_model(posterior);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace posteriordb;
  CLI::App app("ns per log-density gradient of the posteriordb suite's models");
  std::vector<std::string> names;
  std::string data_folder = default_data_folder();
  TimingOptions options;
  int threads = 1;
  app.add_option("--models", names, "posteriordb names, comma-separated (default: all)")->delimiter(',');
  app.add_option("--point", options.point, "the unconstrained point's value in every coordinate");
  app.add_option("--windows", options.windows, "timing windows; the median is reported")->check(CLI::PositiveNumber);
  app.add_option("--window-seconds", options.window_seconds)->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "kernel threads (Stan's gradient runs on one)")->check(CLI::PositiveNumber);
  app.add_option("--data-folder", data_folder, "posteriordb's data files");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<const SuiteModel*> models;
    if (names.empty()) {
      for (const SuiteModel& m : suite_models()) models.push_back(&m);
      for (const SuiteModel& m : gradient_only_models()) models.push_back(&m);
    }
    for (const std::string& name : names) models.push_back(&find_model(name));
    std::printf("machine: %d threads; memory read %.1f GB/s on 1 thread; re-read of a 1 MB buffer %.1f GB/s\n",
                omp_get_max_threads(), bench::read_bandwidth_gbs(1), bench::read_bandwidth_gbs(1, 1 << 20, 15));
    omp_set_num_threads(threads);
    std::printf("gradient at %g in every unconstrained coordinate, %d thread(s), median of %d windows of %.2f s\n",
                options.point, threads, options.windows, options.window_seconds);
    std::printf("%-46s %5s %12s %12s %16s %14s %14s\n", "posterior", "dim", "median_ns", "min_ns", "log_density",
                "grad_sum", "grad_norm");
    for (const SuiteModel* m : models) {
      const GradientTiming t = time_gradient(*m, data_folder, options);
      std::printf("%-46s %5lld %12.0f %12.0f %16.8g %14.8g %14.8g\n", m->posterior.c_str(),
                  static_cast<long long>(t.dimension), t.median_ns, t.min_ns, t.log_density, t.gradient_sum,
                  t.gradient_norm);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "suite_gradient: %s\n", e.what());
    return 1;
  }
}
