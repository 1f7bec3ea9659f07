// NUTS end to end against the reference figures of CmdStan 2.32.2 measured on this kind of machine
// (issue 4): Bayesian logistic regression (fused GLM likelihood) at N = 100000, D = 51 and at
// N = 10000, D = 21, and eight schools (non-centered), each with 4 chains x (1000 warm-up + 1000
// draws), as threaded chains and as vectorized (lockstep) chains. Prints ms per gradient, leapfrog
// steps per second, min bulk ESS over the parameters and min bulk ESS per wall-second, with the
// ratio to Stan's, and the memory bandwidth measured in the same run.
//
// The min over 52 parameters of an ESS estimate is a noisy figure (several runs of ours differ by
// 20%, and Stan's reference is one run), so --seeds=K runs each configuration with K seeds and adds
// the median ESS over the parameters and, after the K rows, the median and range of the ratios.
//
//   build/bench/nuts_sampling [logistic|logistic-small|eight-schools ...] [--only=threaded|vectorized]
//                             [--seeds=K]
//   (default: every model, every chain layout, one seed)
//   build/bench/nuts_sampling --write-data=DIR   (writes the two logistic data sets as CmdStan JSON)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "args.hpp"
#include "machine_limits.hpp"
#include "synthetic_logistic.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/models/builtin.hpp"

namespace {

using namespace variate;

struct Config {
  const char* label;
  bool vectorized;
  DType dtype;
};

constexpr std::uint64_t kSeed = 20261129;  // the sampler's seed for the first (or only) run

struct Reference {
  double stan_ess_per_second;
};

/// Runs 4 chains x (1000 + 1000) and prints one row. A run shorter than a second is repeated (five
/// runs, the same seed and so the same draws) and its median wall time is reported: on a shared
/// machine one pause of a neighbour's making would otherwise decide a 0.1 s figure.
/// Returns the run's min bulk ESS per wall-second over Stan's.
double run_seed(const char* model_name, const inference::Target& target, const Config& config, const Reference& ref,
                std::uint64_t seed) {
  inference::SamplerOptions o;
  o.seed = seed;
  o.vectorized = config.vectorized;
  std::vector<double> walls;
  inference::SampleResult r;
  do {
    const auto start = std::chrono::steady_clock::now();
    r = inference::sample(target, o);
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } while (walls.front() < 1.0 && walls.size() < 5);
  std::sort(walls.begin(), walls.end());
  const double wall = walls[walls.size() / 2];

  std::int64_t leapfrogs = 0;
  for (const auto& c : r.chains)
    for (const auto& s : c.stats) leapfrogs += s.n_leapfrog;
  // Min bulk ESS over the unconstrained coordinates (each is a monotone map of one constrained
  // scalar, so their bulk ESS equals the constrained one's: it is rank based).
  std::vector<double> ess;
  for (std::int64_t i = 0; i < r.dimension; ++i) ess.push_back(inference::ess_bulk(inference::coordinate_draws(r, i)));
  std::sort(ess.begin(), ess.end());
  const double min_ess = ess.front(), median_ess = ess[ess.size() / 2];
  // Per chain, per gradient: a vectorized call serves 4 chains at once.
  const double calls = double(r.target_calls);
  const double ms_per_call = wall / calls * 1e3;
  const double ess_per_s = min_ess / wall, ratio = ess_per_s / ref.stan_ess_per_second;
  std::printf("%-15s %-16s %5llu %9.3f %12.0f %9.0f %9.0f %8.1f %10.1f %8.2fx\n", model_name, config.label,
              static_cast<unsigned long long>(seed % 100), ms_per_call, double(leapfrogs) / wall, min_ess, median_ess,
              wall, ess_per_s, ratio);
  std::fflush(stdout);
  return ratio;
}

/// One row per seed and, for several seeds, the median and the range of the ratios.
void run(const char* model_name, const tracing::Program& model, const Config& config, const Reference& ref, int seeds) {
  const inference::Unconstrained space(model);
  const inference::Target target = inference::make_target(space, config.dtype);
  std::vector<double> ratios;
  for (int s = 0; s < seeds; ++s) ratios.push_back(run_seed(model_name, target, config, ref, kSeed + std::uint64_t(s)));
  if (seeds == 1) return;
  std::sort(ratios.begin(), ratios.end());
  std::printf("%-15s %-16s over %d seeds: median %.2fx, range %.2fx-%.2fx\n", model_name, config.label, seeds,
              ratios[ratios.size() / 2], ratios.front(), ratios.back());
}

// The data in CmdStan's JSON format (N, D, X as rows, y), for bench/stan/logistic.stan and for
// bench/models/logistic_glm.cpp as a plugin: bench/stan/nuts_side_by_side.sh runs both on it.
void write_logistic_json(const std::string& path, std::int64_t n, std::int64_t d) {
  const bench::LogisticData data = bench::logistic_data(n, d);
  const std::vector<double> x = data.x.to_vector<double>(), y = data.y.to_vector<double>();
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "nuts_sampling: cannot write '%s'\n", path.c_str());
    std::exit(1);
  }
  std::fprintf(f, "{\"N\": %lld, \"D\": %lld, \"X\": [", static_cast<long long>(n), static_cast<long long>(d));
  for (std::int64_t i = 0; i < n; ++i) {
    std::fputs(i > 0 ? ",[" : "[", f);
    for (std::int64_t j = 0; j < d; ++j) std::fprintf(f, j > 0 ? ",%.17g" : "%.17g", x[std::size_t(i * d + j)]);
    std::fputc(']', f);
  }
  std::fputs("], \"y\": [", f);
  for (std::int64_t i = 0; i < n; ++i) std::fprintf(f, i > 0 ? ",%d" : "%d", int(y[std::size_t(i)]));
  std::fputs("]}\n", f);
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "nuts_sampling: failed to write '%s'\n", path.c_str());
    std::exit(1);
  }
  std::printf("wrote %s\n", path.c_str());
}

bool layout_wanted(int argc, char** argv, const Config& c) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--only=threaded") == 0) return !c.vectorized;
    if (std::strcmp(argv[i], "--only=vectorized") == 0) return c.vectorized;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--write-data=", 13) == 0) {
      const std::string dir = argv[i] + 13;
      write_logistic_json(dir + "/logistic-100k.json", 100000, 51);
      write_logistic_json(dir + "/logistic-10k.json", 10000, 21);
      return 0;
    }
  const int seeds = bench::seed_count(argc, argv, "nuts_sampling", 1);
  const int threads = omp_get_max_threads();
  // X (N = 100000, D = 51) stays in cache between calls: its floor is the re-read rate of a buffer its size.
  const std::size_t x_bytes = std::size_t(100000) * 51 * 8;
  const double read_gbs = bench::read_bandwidth_gbs(threads, x_bytes, 15);
  std::printf(
      "machine: %d threads; memory read %.1f GB/s on all threads (1 thread: %.1f); re-read of a %.1f MB "
      "buffer (X's size) %.1f GB/s (1 thread: %.1f)\n",
      threads, bench::read_bandwidth_gbs(threads), bench::read_bandwidth_gbs(1), double(x_bytes) / 1e6, read_gbs,
      bench::read_bandwidth_gbs(1, x_bytes, 15));
  std::printf(
      "Stan reference (CmdStan 2.32.2, 4 chains x (1000+1000), 2 threads), min bulk ESS per wall-second:\n"
      "  logistic N=100000 D=51: 18.0; logistic N=10000 D=21: 786; eight schools non-centered: 18600\n");
  std::printf("floor: one read of X (N=100000, D=51) at %.1f GB/s = %.3f ms (f64), %.3f ms (f32)\n\n", read_gbs,
              100000.0 * 51 * 8 / (read_gbs * 1e9) * 1e3, 100000.0 * 51 * 4 / (read_gbs * 1e9) * 1e3);
  std::printf("%-15s %-16s %5s %9s %12s %9s %9s %8s %10s %9s\n", "model", "chains", "seed", "ms/call", "leapfrog/s",
              "min ESS", "med ESS", "wall s", "ESS/s", "vs Stan");
  const Config configs[] = {
      {"threaded f64", false, DType::f64}, {"vectorized f64", true, DType::f64}, {"vectorized f32", true, DType::f32}};
  for (const Config& c : configs) {
    if (!layout_wanted(argc, argv, c)) continue;
    if (bench::wanted(argc, argv, "logistic"))
      run("logistic-100k", bench::logistic_program(100000, 51, c.dtype), c, {18.0}, seeds);
    if (bench::wanted(argc, argv, "logistic-small"))
      run("logistic-10k", bench::logistic_program(10000, 21, c.dtype), c, {786}, seeds);
    if (bench::wanted(argc, argv, "eight-schools") && c.dtype == DType::f64)
      run("eight-schools", models::builtin_definition("eight-schools").program, c, {18600}, seeds);
  }
  std::printf(
      "\nms/call: wall time per target call (a vectorized call evaluates all 4 chains); seed: the last two\n"
      "digits of the sampler's seed; min/med ESS: the min and the median bulk ESS over the parameters\n");
}
