// NUTS on a sharded model against its closed-form posterior: a hierarchical normal model whose
// local latents are split over two thread devices. Tolerances: kZ = 5 Monte Carlo standard errors
// (see sampler_stat_test.cpp); 6 comparisons, so the false-failure budget is below 4e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/posterior_moments.hpp"
#include "support/test_seed.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kZ = 5.0;

using variate::testing::mean_of;

void expect_moments(const ChainDraws& x, double mean, double variance, const std::string& what) {
  variate::testing::expect_moments(x, mean, variance, what, kZ);
}

// mu ~ N(0, 10), z_i ~ N(mu, 1), y_i ~ N(z_i, 1), i < 9, with z and y split over the devices.
// Then y_i | mu ~ N(mu, 2): mu | y ~ N(m, v) with 1/v = 1/100 + 9/2 and m = v sum(y) / 2, and
// z_i | y ~ N((m + y_i) / 2, 1/2 + v/4).
TEST(ShardedSamplingPosterior, HierarchicalNormalWithShardedLocalLatents) {
  const std::vector<double> y{1.2, 0.4, 2.9, 1.7, -0.3, 2.2, 0.8, 1.1, 3.0};
  const Tensor data = Tensor::from(y, Shape{9});
  const auto model = [&] {
    tracing::Condition observed({{"y", distribute::shard(data, "data")}});
    auto mu = Normal(0.0, 10.0, "mu");
    const std::int64_t mine = distribute::shard_range(9, "data").size();
    auto z = Sharded(std::make_shared<dist::Normal>(mu, 1.0), "data", "z", {mine});
    Sharded(std::make_shared<dist::Normal>(z, 1.0), "data", "y");
  };
  distribute::Mesh mesh(2, "data");
  SamplerOptions o;
  o.seed = variate::testing::test_seed(2026);
  const auto runs = mesh.run([&] {
    Unconstrained space(model);
    return sample(make_target(space), o);
  });
  double sum_y = 0;
  for (double v : y) sum_y += v;
  const double v = 1 / (1.0 / 100 + 9.0 / 2), m = v * sum_y / 2;
  // Device 0 holds rows 0-4, device 1 rows 5-8; each position is (mu, this device's z).
  const auto draws_of = [&](int device, std::size_t index) {
    const SampleResult& r = runs[std::size_t(device)];
    ChainDraws out;
    for (const ChainResult& c : r.chains) {
      std::vector<double> x;
      for (std::int64_t i = 0; i < c.draw_count(); ++i) x.push_back(c.draws[std::size_t(i * r.dimension) + index]);
      out.push_back(std::move(x));
    }
    return out;
  };
  expect_moments(draws_of(0, 0), m, v, "mu");
  expect_moments(draws_of(0, 1), (m + y[0]) / 2, 0.5 + v / 4, "z[0]");
  expect_moments(draws_of(1, 1 + 3), (m + y[8]) / 2, 0.5 + v / 4, "z[8]");
}

}  // namespace
}  // namespace variate::inference
