// ChEES-HMC's parts: the Halton jitter, the ChEES gradient against a finite difference, the
// shared trajectory of the chains, determinism, and the options it refuses.
#include "variate/inference/chees.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/expect_error.hpp"
#include "support/hand_targets.hpp"
#include "support/test_seed.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::inference {
namespace {

Target standard_normal(std::int64_t d) {
  std::vector<double> precision(std::size_t(d * d), 0.0);
  for (std::int64_t i = 0; i < d; ++i) precision[std::size_t(i * d + i)] = 1;
  return testing::gaussian_target_with_precision(precision, d);
}

SamplerOptions chees_options(int chains) {
  SamplerOptions o;
  o.algorithm = Algorithm::chees;
  o.vectorized = true;
  o.chains = chains;
  o.num_warmup = 200;
  o.num_draws = 50;
  o.seed = variate::testing::test_seed(3);
  return o;
}

TEST(Chees, HaltonJitterFillsTheUnitIntervalEvenly) {
  const std::vector<double> first{0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875};
  for (std::size_t n = 0; n < first.size(); ++n) EXPECT_EQ(halton_jitter(std::int64_t(n) + 1), first[n]);
  // The first 2^k - 1 values are exactly the multiples of 2^-k.
  std::vector<int> hits(1024, 0);
  for (std::int64_t n = 1; n < 1024; ++n) {
    const double h = halton_jitter(n);
    ASSERT_GT(h, 0);
    ASSERT_LT(h, 1);
    ++hits[std::size_t(h * 1024)];
  }
  for (std::size_t i = 1; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << i;
  EXPECT_ERROR(halton_jitter(0), "index >= 1");
}

// On N(0, I) the flow is exact: q(t) = q cos t + p sin t, p(t) = p cos t − q sin t. Chains in
// pairs (q, p) and (−q, −p) keep the cross-chain means at 0, so the estimator's treatment of the
// means as constants is exact and it must equal the derivative of ¼ mean Δ² in T (t = h T).
TEST(Chees, GradientMatchesAFiniteDifferenceOnAGaussian) {
  const std::int64_t pairs = 5, d = 3, n = 2 * pairs;
  const double jitter = 0.6, length = 1.3;
  PhasePoints start(n, d);
  std::vector<double> momentum(std::size_t(n * d));
  for (std::int64_t c = 0; c < pairs; ++c)
    for (std::int64_t i = 0; i < d; ++i) {
      const double q = std::sin(1.7 * double(c * d + i) + 0.3), p = std::cos(2.3 * double(c * d + i) + 1.1);
      start.q_of(c)[i] = q, start.q_of(c + pairs)[i] = -q;
      momentum[std::size_t(c * d + i)] = p, momentum[std::size_t((c + pairs) * d + i)] = -p;
    }
  const auto flow = [&](double trajectory, PhasePoints& proposal, std::vector<double>& velocity) {
    const double t = jitter * trajectory;
    velocity.assign(std::size_t(n * d), 0.0);
    for (std::int64_t k = 0; k < n * d; ++k) {
      const double q = start.q[std::size_t(k)], p = momentum[std::size_t(k)];
      proposal.q[std::size_t(k)] = q * std::cos(t) + p * std::sin(t);
      velocity[std::size_t(k)] = p * std::cos(t) - q * std::sin(t);
    }
  };
  const auto criterion = [&](double trajectory) {
    PhasePoints proposal(n, d);
    std::vector<double> velocity;
    flow(trajectory, proposal, velocity);
    double sum = 0;
    for (std::int64_t c = 0; c < n; ++c) {
      double change = 0;
      for (std::int64_t i = 0; i < d; ++i)
        change += proposal.q_of(c)[i] * proposal.q_of(c)[i] - start.q_of(c)[i] * start.q_of(c)[i];
      sum += 0.25 * change * change;
    }
    return sum / double(n);
  };
  PhasePoints proposal(n, d);
  std::vector<double> velocity;
  flow(length, proposal, velocity);
  const std::vector<double> accept(std::size_t(n), 1.0);
  const double h = 1e-5, numeric = (criterion(length + h) - criterion(length - h)) / (2 * h);
  EXPECT_NEAR(chees_gradient(start, proposal, velocity, accept, jitter), numeric, 1e-6 * std::abs(numeric) + 1e-9);
  // A rejected (α = 0) chain with a non-finite proposal carries no weight and no NaN.
  std::vector<double> some(accept);
  some[0] = 0;
  proposal.q_of(0)[0] = std::nan("");
  EXPECT_TRUE(std::isfinite(chees_gradient(start, proposal, velocity, some, jitter)));
  EXPECT_EQ(chees_gradient(start, proposal, velocity, std::vector<double>(std::size_t(n), 0.0), jitter), 0);
}

TEST(Chees, AllChainsShareOneJitteredTrajectoryAndTheSeedFixesTheDraws) {
  const Target target = standard_normal(4);
  SamplerOptions o = chees_options(16);
  std::vector<std::vector<int>> steps(std::size_t(o.num_warmup + o.num_draws));
  o.threads = 1;
  const SampleResult one =
      sample(target, o, [&](const Draw& d) { steps[std::size_t(d.iteration)].push_back(d.stats->n_leapfrog); });
  int shortest = 1 << 30, longest = 0;
  for (const auto& s : steps) {
    for (int n : s) EXPECT_EQ(n, s[0]);
    shortest = std::min(shortest, s[0]);
    longest = std::max(longest, s[0]);
  }
  EXPECT_GE(shortest, 1);
  EXPECT_GT(longest, 2 * shortest);  // the jitter varies the length
  o.threads = 2;
  const SampleResult two = sample(target, o);
  for (std::size_t c = 0; c < one.chains.size(); ++c) {
    EXPECT_EQ(one.chains[c].draws, two.chains[c].draws) << c;
    EXPECT_EQ(one.chains[c].step_size, one.chains[0].step_size);
    EXPECT_EQ(one.chains[c].metric.inverse(), one.chains[0].metric.inverse());
  }
  o.seed = variate::testing::test_seed(4);
  EXPECT_NE(sample(target, o).chains[0].draws, one.chains[0].draws);
}

// Without adaptation the kernel runs as given: a density that is -inf beyond q_0 = 1.5 and NaN
// below q_0 = -1.5 rejects the proposals that end there (each a divergence), and no draw lies there.
// (With adaptation such a wall would pull the harmonic-mean acceptance to 0 and shrink the step
// size; ChEES expects densities that are finite on R^D, as the unconstrained space gives.)
TEST(Chees, ReportsStatisticsAndRejectsNonFiniteDensities) {
  Target target = standard_normal(2);
  const auto gaussian = target.evaluate;
  target.evaluate = [gaussian](std::span<const double> q, std::int64_t batch, std::span<double> lp,
                               std::span<double> g) {
    gaussian(q, batch, lp, g);
    for (std::int64_t c = 0; c < batch; ++c) {
      const double x = q[std::size_t(2 * c)];
      if (x > 1.5) lp[std::size_t(c)] = -std::numeric_limits<double>::infinity();
      if (x < -1.5) lp[std::size_t(c)] = std::nan("");
    }
  };
  SamplerOptions o = chees_options(32);
  o.adapt = false;
  o.initial_step_size = 0.4;
  o.chees.initial_trajectory_length = 2;
  const SampleResult r = sample(target, o);
  int divergent = 0;
  for (const ChainResult& c : r.chains) {
    for (std::int64_t i = 0; i < c.draw_count(); ++i) {
      EXPECT_LE(c.draws[std::size_t(2 * i)], 1.5);
      EXPECT_GE(c.draws[std::size_t(2 * i)], -1.5);
    }
    for (const TransitionStats& s : c.stats) {
      EXPECT_EQ(s.tree_depth, 0);
      EXPECT_GE(s.accept_stat, 0);
      EXPECT_LE(s.accept_stat, 1);
      EXPECT_EQ(s.step_size, 0.4);
      EXPECT_LE(s.n_leapfrog, 5);  // ceil(h · 2 / 0.4), h <= 1
      EXPECT_TRUE(std::isfinite(s.energy));
      if (s.divergent) {
        EXPECT_EQ(s.accept_stat, 0);
      }
      divergent += s.divergent;  // an infinite energy error is a divergence
    }
  }
  EXPECT_GT(divergent, 0);
}

TEST(Chees, RefusesWhatItCannotDo) {
  const Target target = standard_normal(2);
  SamplerOptions threaded = chees_options(8);
  threaded.vectorized = false;
  EXPECT_ERROR(sample(target, threaded), "needs vectorized chains");
  EXPECT_ERROR(sample(target, chees_options(1)), "at least 2");
  SamplerOptions dense = chees_options(8);
  dense.metric = MetricKind::dense;
  EXPECT_ERROR(sample(target, dense), "dense, low-rank and Fisher-divergence metrics are not supported");
  SamplerOptions fisher = chees_options(8);
  fisher.metric_adaptation = MetricAdaptation::fisher;
  EXPECT_ERROR(sample(target, fisher), "Fisher-divergence metrics are not supported");
  SamplerOptions warm = chees_options(8);
  warm.warm_start.push_back({{0.0, 0.0}, 0.5, Metric::unit(MetricKind::diagonal, 2)});
  EXPECT_ERROR(sample(target, warm), "warm starts are not supported with ChEES-HMC");
  SamplerOptions bad = chees_options(8);
  bad.chees.learning_rate = 0;
  EXPECT_ERROR(sample(target, bad), "learning_rate > 0");
}

}  // namespace
}  // namespace variate::inference
