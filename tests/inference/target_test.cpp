// make_target: what the target owns, and the check that a batch of states evaluates as each state
// alone would.
#include "variate/inference/target.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

const std::vector<double> kSchoolEffects{28, 8, -3, 7, -1, 1, 18, 12};
const std::vector<double> kSchoolErrors{15, 10, 16, 11, 9, 11, 10, 18};

// Eight schools written without a thought for a leading chain dim: with a batch of states mu is
// (chains), and Normal(mu, tau) with 8 draws per state broadcasts mu along the schools instead.
void unbatchable_schools() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfCauchy(0.0, 5.0, "tau");
  auto theta = Normal(mu, tau, "theta", {8});
  tracing::Condition data({{"y", Tensor::from(kSchoolEffects, Shape{8})}});
  Normal(theta, Tensor::from(kSchoolErrors, Shape{8}), "y");
}

// The same, right-aligned: the chain dim leads everywhere.
void batchable_schools() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfCauchy(0.0, 5.0, "tau");
  const Tensor schools = Tensor::ones(Shape{8});
  auto theta = Normal(expand_dims(mu, -1) * schools, expand_dims(tau, -1) * schools, "theta");
  tracing::Condition data({{"y", Tensor::from(kSchoolEffects, Shape{8})}});
  Normal(theta, Tensor::from(kSchoolErrors, Shape{8}), "y");
}

std::vector<double> positions(std::int64_t batch, std::int64_t dimension) {
  std::vector<double> q(std::size_t(batch * dimension));
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.1 * double(i % 13) - 0.5;
  return q;
}

TEST(Target, OwnsTheSpaceItWasMadeFrom) {
  const Target target = make_target(Unconstrained(batchable_schools));  // the space is a temporary
  std::vector<double> q = positions(1, target.dimension), grad(q.size());
  double lp = 0;
  target.evaluate(q, 1, std::span<double>(&lp, 1), grad);
  EXPECT_TRUE(std::isfinite(lp));
}

TEST(Target, ABatchThatMixesUpItsStatesIsAnErrorNamingTheSite) {
  const Target target = make_target(Unconstrained(unbatchable_schools));
  const std::int64_t chains = 8, d = target.dimension;
  std::vector<double> q = positions(chains, d), lp(chains), grad(q.size());
  EXPECT_ERROR(target.evaluate(q, chains, lp, grad), "vectorized states: site 'theta': in a batch of 8 states");
  // The sampler says so too, instead of failing later to find a step size.
  SamplerOptions options;
  options.chains = 8;
  options.vectorized = true;
  options.num_warmup = 10;
  options.num_draws = 10;
  EXPECT_ERROR(sample(target, options), "site 'theta'");
}

TEST(Target, ABatchThatBroadcastsRightEvaluatesAsItsStates) {
  const Target target = make_target(Unconstrained(batchable_schools));
  const std::int64_t chains = 8, d = target.dimension;
  std::vector<double> q = positions(chains, d), lp(chains), grad(q.size());
  target.evaluate(q, chains, lp, grad);
  for (std::int64_t c = 0; c < chains; ++c) {
    double alone = 0;
    std::vector<double> g(static_cast<std::size_t>(d));
    target.evaluate(std::span<const double>(q.data() + c * d, std::size_t(d)), 1, std::span<double>(&alone, 1), g);
    EXPECT_NEAR(lp[std::size_t(c)], alone, 1e-10 * (1 + std::abs(alone)));
  }
}

}  // namespace
}  // namespace variate::inference
