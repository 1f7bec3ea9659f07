// Many-chain ChEES-HMC against 4 NUTS chains (issue 27): wall time and gradients until the draws
// hold 400 bulk ESS in every coordinate. ChEES runs 256 vectorized chains x (1000 warm-up + 100
// draws, and with 300 warm-up iterations); NUTS 4 threaded chains x (1000 + 1000), Stan's defaults. ESS grows in
// proportion to the draws, so the time to 400 ESS is the warm-up's time plus the share of the sampling time that 400 /
// (min bulk ESS) of the draws took (the whole sampling time when the ESS falls short, flagged with '<'). Gradients
// count one per chain and leapfrog step, warm-up included.
//
//   build/bench/chees_vs_nuts [eight-schools|logistic ...]   (default: both)
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "args.hpp"
#include "synthetic_logistic.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/models/builtin.hpp"

namespace {

using namespace variate;

constexpr double kWantedEss = 400;

struct Counts {
  std::int64_t warmup = 0, sampling = 0;
};

void run(const char* model_name, const inference::Target& target, const char* label, inference::SamplerOptions o) {
  Counts gradients;
  const inference::SampleResult r = inference::sample(target, o, [&](const inference::Draw& d) {
    (d.warmup ? gradients.warmup : gradients.sampling) += d.stats->n_leapfrog;
  });
  double min_ess = 1e300;
  for (std::int64_t i = 0; i < r.dimension; ++i)
    min_ess = std::min(min_ess, inference::ess_bulk(inference::coordinate_draws(r, i)));
  // Chains run side by side (threaded) or together (vectorized): the slowest chain's times.
  double warmup_s = 0, sampling_s = 0;
  for (const auto& c : r.chains)
    warmup_s = std::max(warmup_s, c.warmup_seconds), sampling_s = std::max(sampling_s, c.sampling_seconds);
  const double share = std::min(1.0, kWantedEss / min_ess);
  const double to_400 = warmup_s + share * sampling_s;
  const double gradients_to_400 = double(gradients.warmup) + share * double(gradients.sampling);
  std::printf("%-14s %-22s %8.2f %8.2f %9.0f %c%8.2f %12.3g %10.1f %8.2f\n", model_name, label, warmup_s, sampling_s,
              min_ess, min_ess < kWantedEss ? '<' : ' ', to_400, gradients_to_400, double(gradients.sampling) / min_ess,
              r.chains[0].step_size);
  std::fflush(stdout);
}

void compare(const char* name, const tracing::Program& model) {
  const inference::Unconstrained space(model);
  const inference::Target target = inference::make_target(space);
  inference::SamplerOptions nuts;
  nuts.seed = 20261202;
  run(name, target, "NUTS 4 threaded", nuts);
  inference::SamplerOptions chees;
  chees.algorithm = inference::Algorithm::chees;
  chees.vectorized = true;
  chees.chains = 256;
  chees.num_draws = 100;
  chees.seed = 20261202;
  run(name, target, "ChEES 256 vectorized", chees);
  chees.num_warmup = 300;  // warm-up dominates ChEES's cost; a shorter one
  run(name, target, "ChEES 256, warm-up 300", chees);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf(
      "%d threads; ChEES: 256 vectorized chains x (1000 or 300 + 100), NUTS: 4 threaded chains x (1000 + 1000)\n",
      omp_get_max_threads());
  std::printf("%-14s %-22s %8s %8s %9s %9s %12s %10s %8s\n", "model", "sampler", "warm s", "draw s", "min ESS",
              "s to 400", "grads to 400", "grads/ESS", "step");
  if (bench::wanted(argc, argv, "eight-schools"))
    compare("eight-schools", models::builtin_definition("eight-schools").program);
  if (bench::wanted(argc, argv, "logistic")) compare("logistic-10k", bench::logistic_program(10000, 21, DType::f64));
  std::printf(
      "\nwarm s / draw s: warm-up and sampling wall seconds; s to 400: seconds until 400 bulk ESS in every\n"
      "coordinate ('<': the run fell short); grads/ESS: sampling gradients per unit of min bulk ESS\n");
}
