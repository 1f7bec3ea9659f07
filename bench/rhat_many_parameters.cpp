// How large R-hat gets by chance alone over many parameters: chains of independent N(0, 1) draws
// (what a perfect sampler gives), the rank-normalized split R-hat of each parameter (bulk and tail,
// Vehtari et al. 2021, inference::rhat), and the largest over the parameters. A run that must have
// every R-hat below 1.01 needs at least the draws per chain at which this largest value falls below
// 1.01; with autocorrelated draws, that many effective draws per chain.
//
//   build/bench/rhat_many_parameters [--parameters=P] [--chains=C] [--seeds=K]
//
// Defaults: MNIST softmax regression's 7,850 parameters, 4 chains, 3 seeds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "args.hpp"
#include "variate/inference/diagnostics.hpp"

namespace {

int option(int argc, char** argv, const char* name, int fallback) {
  const std::size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') {
      const int v = std::atoi(argv[i] + n + 1);
      if (v < 1) {
        std::fprintf(stderr, "rhat_many_parameters: %s must be a positive integer, got '%s'\n", name, argv[i] + n + 1);
        std::exit(2);
      }
      return v;
    }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int parameters = option(argc, argv, "--parameters", 7850);
  const int chains = option(argc, argv, "--chains", 4);
  const int seeds = variate::bench::seed_count(argc, argv, "rhat_many_parameters", 3);
  std::printf("%d parameters, %d chains of independent N(0, 1) draws, %d seeds\n", parameters, chains, seeds);
  std::printf("%-16s %-24s %s\n", "draws per chain", "largest R-hat (per seed)", "share of parameters above 1.01");
  for (const int draws : {150, 300, 500, 1000}) {
    std::printf("%-16d", draws);
    double above = 0;
    std::string largest;
    for (int seed = 1; seed <= seeds; ++seed) {
      std::mt19937_64 rng(std::uint64_t(seed) * 1000003u + std::uint64_t(draws));
      std::normal_distribution<double> normal;
      double worst = 0;
      variate::inference::ChainDraws x(std::size_t(chains), std::vector<double>(std::size_t(draws), 0.0));
      for (int p = 0; p < parameters; ++p) {
        for (auto& chain : x)
          for (double& v : chain) v = normal(rng);
        const double r = variate::inference::rhat(x);
        worst = std::max(worst, r);
        above += r > 1.01;
      }
      char text[16];
      std::snprintf(text, sizeof text, "%.4f ", worst);
      largest += text;
    }
    std::printf(" %-24s %.4f\n", largest.c_str(), above / (double(parameters) * seeds));
  }
}
