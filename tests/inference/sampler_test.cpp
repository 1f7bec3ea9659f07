// The sampler's parts: the integrator, the metric, Stan's warm-up schedule and dual averaging,
// lockstep chains against lone chains, determinism across thread counts, initialization errors
// and interruption.
#include "variate/inference/sampler.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "support/expect_error.hpp"
#include "support/test_seed.hpp"

namespace variate::inference {
namespace {

/// log N(q | 0, diag(scales²)) written by hand, row by row, so batched and single evaluations are
/// bitwise identical.
Target gaussian_target(std::vector<double> scales) {
  Target t;
  t.dimension = std::int64_t(scales.size());
  t.evaluate = [scales](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> g) {
    const std::size_t d = scales.size();
    for (std::int64_t c = 0; c < batch; ++c) {
      double s = 0;
      for (std::size_t i = 0; i < d; ++i) {
        const double x = q[std::size_t(c) * d + i], v = scales[i] * scales[i];
        s -= 0.5 * x * x / v;
        g[std::size_t(c) * d + i] = -x / v;
      }
      lp[std::size_t(c)] = s;
    }
  };
  return t;
}

PhasePoints start_point(const Target& target, Evaluator& evaluator) {
  PhasePoints z(1, target.dimension);
  for (std::int64_t i = 0; i < target.dimension; ++i) {
    z.q[std::size_t(i)] = 0.5 + 0.1 * double(i);
    z.p[std::size_t(i)] = 1.0 - 0.3 * double(i);
  }
  evaluator.evaluate(z, ChainMask{1});
  return z;
}

double max_energy_error(double step, int steps) {
  const Target target = gaussian_target({1.0, 2.0, 0.5});
  Evaluator evaluator(target);
  PhasePoints z = start_point(target, evaluator);
  const std::vector<Metric> metric{Metric::unit(MetricKind::diagonal, 3)};
  const double h0 = hamiltonian(z, 0, metric[0]);
  std::vector<double> scratch;
  double worst = 0;
  for (int i = 0; i < steps; ++i) {
    leapfrog(evaluator, metric, std::vector<double>{step}, ChainMask{1}, z, scratch);
    worst = std::max(worst, std::abs(hamiltonian(z, 0, metric[0]) - h0));
  }
  return worst;
}

TEST(Integrator, EnergyErrorIsSecondOrderInTheStepSize) {
  // Over the same integration time, halving the step divides the energy error by 4.
  const double coarse = max_energy_error(0.1, 20), fine = max_energy_error(0.05, 40);
  EXPECT_GT(coarse, 0.0);
  EXPECT_NEAR(coarse / fine, 4.0, 0.2);
}

TEST(Integrator, IsExactlyReversible) {
  const Target target = gaussian_target({1.0, 2.0, 0.5});
  Evaluator evaluator(target);
  PhasePoints z = start_point(target, evaluator);
  const PhasePoints start = z;
  const std::vector<Metric> metric{Metric::diagonal({1.5, 0.7, 2.0})};
  std::vector<double> scratch;
  for (int i = 0; i < 25; ++i) leapfrog(evaluator, metric, std::vector<double>{0.13}, ChainMask{1}, z, scratch);
  for (int i = 0; i < 25; ++i) leapfrog(evaluator, metric, std::vector<double>{-0.13}, ChainMask{1}, z, scratch);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(z.q[i], start.q[i], 1e-13);
    EXPECT_NEAR(z.p[i], start.p[i], 1e-13);
  }
}

TEST(Metric, DenseMomentumHasCovarianceM) {
  // M⁻¹ = [[2, 0.6], [0.6, 1]]: the momenta from unit normals e1, e2 are the columns of a P with
  // P Pᵀ = M, i.e. P Pᵀ M⁻¹ = I.
  const std::vector<double> inv{2.0, 0.6, 0.6, 1.0};
  const Metric m = Metric::dense(inv, 2);
  double P[2][2];
  for (int j = 0; j < 2; ++j) {
    const double z[2] = {double(j == 0), double(j == 1)};
    double p[2];
    m.momentum_from_normals(z, p);
    P[0][j] = p[0];
    P[1][j] = p[1];
  }
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 2; ++k) {
      double s = 0;
      for (int j = 0; j < 2; ++j) s += (P[i][0] * P[j][0] + P[i][1] * P[j][1]) * inv[std::size_t(j * 2 + k)];
      EXPECT_NEAR(s, i == k ? 1.0 : 0.0, 1e-14);
    }
  }
  const double p[2] = {1.0, -2.0};
  EXPECT_NEAR(m.kinetic_energy(p), 0.5 * (2.0 - 2 * 1.2 + 4.0), 1e-14);
  EXPECT_ERROR(Metric::dense({1.0, 2.0, 2.0, 1.0}, 2), "not positive definite");
  EXPECT_ERROR(Metric::diagonal({1.0, -1.0}), "entry 1 must be positive");
}

TEST(Metric, WelfordMatchesTheRegularizedSampleCovariance) {
  const std::vector<std::vector<double>> xs{{1, 2}, {2, 1}, {4, 3}, {0, 0}, {3, 5}};
  WelfordEstimator diag(MetricKind::diagonal, 2), dense(MetricKind::dense, 2);
  for (const auto& x : xs) {
    diag.add(x);
    dense.add(x);
  }
  // Means 2 and 2.2; sample covariance entries by hand.
  const double n = 5, s00 = 10.0 / 4, s11 = 14.8 / 4, s01 = 9.0 / 4;
  const double shrink = n / (n + 5), ridge = 1e-3 * 5 / (n + 5);
  const Metric d = diag.regularized_metric(), f = dense.regularized_metric();
  EXPECT_NEAR(d.inverse()[0], shrink * s00 + ridge, 1e-14);
  EXPECT_NEAR(d.inverse()[1], shrink * s11 + ridge, 1e-14);
  EXPECT_NEAR(f.inverse()[1], shrink * s01, 1e-14);
  EXPECT_NEAR(f.inverse()[3], shrink * s11 + ridge, 1e-14);
}

TEST(Warmup, StanDefaultWindows) {
  const WarmupSchedule s(1000, WarmupOptions{});
  std::vector<std::int64_t> ends;
  for (std::int64_t i = 0; i < 1000; ++i)
    if (s.ends_slow_window(i)) ends.push_back(i);
  EXPECT_EQ(ends, (std::vector<std::int64_t>{99, 149, 249, 449, 949}));
  EXPECT_FALSE(s.in_slow_window(74));
  EXPECT_TRUE(s.in_slow_window(75));
  EXPECT_TRUE(s.in_slow_window(949));
  EXPECT_FALSE(s.in_slow_window(950));
}

TEST(Warmup, ShortWarmupsScaleTheBuffers) {
  const WarmupSchedule s(100, WarmupOptions{});  // 15 / 75 / 10
  std::vector<std::int64_t> ends;
  for (std::int64_t i = 0; i < 100; ++i)
    if (s.ends_slow_window(i)) ends.push_back(i);
  EXPECT_EQ(ends, (std::vector<std::int64_t>{89}));
  EXPECT_FALSE(s.in_slow_window(14));
  EXPECT_TRUE(s.in_slow_window(15));
  const WarmupSchedule tiny(19, WarmupOptions{});
  for (std::int64_t i = 0; i < 19; ++i) EXPECT_FALSE(tiny.in_slow_window(i) || tiny.ends_slow_window(i));
}

TEST(DualAveraging, FindsTheStepSizeWithTheTargetAcceptance) {
  // A synthetic acceptance curve a(ε) = exp(-ε): the target 0.8 is reached at ε = -log 0.8.
  DualAveraging da;
  da.restart(1.0);
  double eps = 1.0;
  for (int i = 0; i < 2000; ++i) eps = da.update(std::exp(-eps));
  EXPECT_NEAR(da.final_step_size(), -std::log(0.8), 0.01);
}

SamplerOptions small_run(int chains) {
  SamplerOptions o;
  o.chains = chains;
  o.num_warmup = 150;
  o.num_draws = 100;
  o.seed = variate::testing::test_seed(42);
  return o;
}

std::vector<double> all_draws(const SampleResult& r) {
  std::vector<double> out;
  for (const auto& c : r.chains) out.insert(out.end(), c.draws.begin(), c.draws.end());
  return out;
}

TEST(Sampler, LockstepChainsFollowTheirLoneChainPaths) {
  // The masks must make each chain of a vectorized batch take exactly the path it takes alone.
  const Target target = gaussian_target({1.0, 10.0, 0.1});
  for (Algorithm algorithm : {Algorithm::nuts, Algorithm::hmc}) {
    for (MetricKind metric : {MetricKind::diagonal, MetricKind::dense}) {
      SamplerOptions o = small_run(3);
      o.algorithm = algorithm;
      o.hmc.jitter = 0.5;  // the chains' trajectories differ in length, so some wait masked
      o.metric = metric;
      o.threads = 1;
      const SampleResult alone = sample(target, o);
      o.vectorized = true;
      const SampleResult lockstep = sample(target, o);
      EXPECT_EQ(all_draws(alone), all_draws(lockstep));
      EXPECT_LT(lockstep.target_calls, alone.target_calls);
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(alone.chains[std::size_t(c)].step_size, lockstep.chains[std::size_t(c)].step_size);
    }
  }
}

// Steps are floor(u * 10) with u uniform in (0.5, 1.5): every count from 5 to 14 at about 1/10
// of the draws, drawn per chain, so the chains of one iteration differ.
TEST(Sampler, JitteredHmcDrawsEachTrajectorysSteps) {
  SamplerOptions o = small_run(2);
  o.algorithm = Algorithm::hmc;
  o.hmc.num_steps = 10;
  o.hmc.jitter = 0.5;
  o.num_draws = 2000;
  const SampleResult r = sample(gaussian_target({1.0, 2.0}), o);
  std::map<int, int> counts;
  int differing = 0;
  for (std::size_t i = 0; i < r.chains[0].stats.size(); ++i) {
    for (const ChainResult& c : r.chains) ++counts[c.stats[i].n_leapfrog];
    differing += r.chains[0].stats[i].n_leapfrog != r.chains[1].stats[i].n_leapfrog;
  }
  ASSERT_EQ(counts.begin()->first, 5);
  ASSERT_EQ(counts.rbegin()->first, 14);
  ASSERT_EQ(counts.size(), 10u);
  // Each count is Binomial(4000, 1/10): mean 400, sd 19; 5 sd either side.
  for (const auto& [steps, n] : counts) EXPECT_NEAR(n, 400, 5 * 19) << steps << " steps";
  // Equal counts in the two chains happen 1/10 of the time: 200 of 2000, sd 13.
  EXPECT_NEAR(differing, 1800, 5 * 13);
  o.hmc.jitter = 1;
  EXPECT_ERROR(sample(gaussian_target({1.0}), o), "jitter in [0, 1)");
}

TEST(Sampler, SameSeedSameDrawsWhateverTheThreadCount) {
  const Target target = gaussian_target({1.0, 3.0});
  SamplerOptions o = small_run(4);
  o.threads = 1;
  const auto one = all_draws(sample(target, o));
  o.threads = 2;
  const auto two = all_draws(sample(target, o));
  o.threads = 3;
  const auto three = all_draws(sample(target, o));
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  o.seed = variate::testing::test_seed(43);
  EXPECT_NE(one, all_draws(sample(target, o)));
}

TEST(Sampler, FinishedWorkersHandTheirCoresToTheChainsStillRunning) {
  // 3 threaded chains on 2 threads: one worker runs two chains, the other one, and once that one
  // is done the second chain of the first gets both threads for its kernels, with the same draws.
  // Each evaluation sleeps 50 µs, so that a chain lasts far longer than a worker takes to start.
  const Target base = gaussian_target({1.0, 3.0});
  std::atomic<int> most_threads{0};
  Target target = base;
  target.evaluate = [&](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> g) {
    const int threads = omp_get_max_threads();
    for (int seen = most_threads.load(); threads > seen && !most_threads.compare_exchange_weak(seen, threads);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    base.evaluate(q, batch, lp, g);
  };
  SamplerOptions o = small_run(3);
  o.threads = 2;
  const auto two = all_draws(sample(target, o));
  EXPECT_EQ(most_threads.load(), 2);
  o.threads = 1;
  EXPECT_EQ(two, all_draws(sample(target, o)));
}

TEST(Sampler, ReportsStanStatistics) {
  const Target target = gaussian_target({1.0});
  SamplerOptions o = small_run(1);
  o.adapt = false;
  // A trajectory of 7 steps this small turns around only if its momentum changes sign in it, which
  // for a draw of 100 transitions has a chance of about 1e-5 (at a step of 1e-3 it was 7 of 32 seeds).
  o.initial_step_size = 1e-8;
  o.nuts.max_tree_depth = 3;
  const SampleResult r = sample(target, o);
  ASSERT_EQ(r.chains[0].draw_count(), 100);
  for (const TransitionStats& s : r.chains[0].stats) {
    // Every tree is full.
    EXPECT_EQ(s.tree_depth, 3);
    EXPECT_EQ(s.n_leapfrog, 7);
    EXPECT_FALSE(s.divergent);
    EXPECT_GT(s.accept_stat, 0.99);
    EXPECT_EQ(s.step_size, 1e-8);
  }
}

TEST(Sampler, CountsTheWarmupLeapfrogStepsOfEachChain) {
  const Target target = gaussian_target({1.0, 3.0});
  SamplerOptions o = small_run(3);
  std::vector<std::atomic<std::int64_t>> warmup_steps(3);
  const SampleResult r = sample(target, o, [&](const Draw& d) {
    if (d.warmup) warmup_steps[std::size_t(d.chain)] += d.stats->n_leapfrog;
  });
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_GT(r.chains[c].warmup_leapfrog_steps, 0) << c;
    EXPECT_EQ(r.chains[c].warmup_leapfrog_steps, warmup_steps[c].load()) << c;
  }
}

TEST(Sampler, UnusableModelsGetAClearError) {
  Target nowhere;
  nowhere.dimension = 2;
  nowhere.evaluate = [](std::span<const double>, std::int64_t, std::span<double>, std::span<double>) {
    throw Error("log density: scale must be positive");
  };
  const std::string message = testing::error_of([&] { sample(nowhere, small_run(2)); });
  for (const char* part : {"chain 1: no initial value", "after 100 attempts", "scale must be positive"})
    EXPECT_NE(message.find(part), std::string::npos) << message;
  Target nan_target = gaussian_target({1.0});
  const auto inner = nan_target.evaluate;
  nan_target.evaluate = [inner](std::span<const double> q, std::int64_t b, std::span<double> lp, std::span<double> g) {
    inner(q, b, lp, g);
    for (auto& v : lp) v = std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_ERROR(sample(nan_target, small_run(1)), "no initial value");
  SamplerOptions bad = small_run(0);
  EXPECT_ERROR(sample(gaussian_target({1.0}), bad), "chains must be at least 1");
}

TEST(Sampler, StartsEachChainWhereToldWithTheGivenMetric) {
  SamplerOptions o = small_run(2);
  o.algorithm = Algorithm::hmc;
  o.hmc.num_steps = 1;
  o.initial_step_size = 1e-9;  // one tiny step: the first draw is the start, to 1e-8
  o.adapt = false;
  o.num_warmup = 0;
  o.num_draws = 1;
  o.initial_positions = {0.5, -1, 3, 2};
  o.initial_metric = Metric::diagonal({4.0, 0.25});
  const SampleResult r = sample(gaussian_target({1.0, 2.0}), o);
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_NEAR(r.chains[c].draws[0], o.initial_positions[2 * c], 1e-8) << c;
    EXPECT_NEAR(r.chains[c].draws[1], o.initial_positions[2 * c + 1], 1e-8) << c;
    EXPECT_EQ(r.chains[c].metric.inverse(), std::vector<double>({4.0, 0.25}));
  }
}

// Without metric adaptation the metric stays the unit one or the given one, and warm-up still
// tunes the step size: the smallest sd in the metric's units bounds it, 1 with the unit metric
// and 10 with the given one.
TEST(Sampler, WithoutMetricAdaptationOnlyTheStepSizeIsTuned) {
  SamplerOptions o = small_run(1);
  o.metric_adaptation = MetricAdaptation::none;
  const SampleResult unit = sample(gaussian_target({1.0, 10.0}), o);
  EXPECT_EQ(unit.chains[0].metric.inverse(), std::vector<double>({1.0, 1.0}));
  o.initial_metric = Metric::diagonal({0.01, 1.0});
  const SampleResult given = sample(gaussian_target({1.0, 10.0}), o);
  EXPECT_EQ(given.chains[0].metric.inverse(), std::vector<double>({0.01, 1.0}));
  EXPECT_GT(given.chains[0].step_size, 5 * unit.chains[0].step_size);
}

// Fisher adaptation starts from the gradient at the initial point (nutpie), unless it is given a
// metric: a whitened target's unit one, where the gradient near the mode is near zero.
TEST(Sampler, FisherAdaptationStartsFromTheGivenMetricOrElseTheGradient) {
  for (const bool given : {true, false}) {
    SamplerOptions o = small_run(1);
    o.metric_adaptation = MetricAdaptation::fisher;
    o.initial_positions = {3.0, -2.0};  // gradient (-3, 0.5) on N(0, diag(1, 4))
    if (given) o.initial_metric = Metric::diagonal({4.0, 0.25});
    std::vector<double> first;
    sample(gaussian_target({1.0, 2.0}), o, [&](const Draw& d) {
      if (d.iteration == 0) first = d.metric->inverse();
    });
    ASSERT_EQ(first.size(), 2u);
    const std::vector<double> expected = given ? std::vector<double>{4.0, 0.25} : std::vector<double>{1 / 3.0, 2.0};
    EXPECT_NEAR(first[0], expected[0], 1e-12) << given;
    EXPECT_NEAR(first[1], expected[1], 1e-12) << given;
  }
}

TEST(Sampler, GivenStartsAndMetricsMustFit) {
  SamplerOptions o = small_run(2);
  o.initial_positions = {0.5, -1, 3};
  EXPECT_ERROR(sample(gaussian_target({1.0, 2.0}), o), "initial_positions must hold chains x dimension = 2 x 2");
  o.initial_positions = {0.5, -1, std::numeric_limits<double>::quiet_NaN(), 2};
  EXPECT_ERROR(sample(gaussian_target({1.0, 2.0}), o), "chain 2: the given initial position has a non-finite");
  o.initial_positions.clear();
  o.initial_metric = Metric::diagonal({1.0, 1.0, 1.0});
  EXPECT_ERROR(sample(gaussian_target({1.0, 2.0}), o), "initial_metric must be diagonal of dimension 2");
}

TEST(Sampler, VectorizedChainsNeedAModelThatBatches) {
  Target single_only = gaussian_target({1.0, 2.0});
  const auto inner = single_only.evaluate;
  single_only.evaluate = [inner](std::span<const double> q, std::int64_t b, std::span<double> lp, std::span<double> g) {
    if (b > 1) throw Error("add: shapes (4) and (8) do not broadcast");
    inner(q, b, lp, g);
  };
  SamplerOptions o = small_run(4);
  o.vectorized = true;
  EXPECT_ERROR(sample(single_only, o), "a leading chain dimension broadcasts");
  o.vectorized = false;
  EXPECT_EQ(sample(single_only, o).chains[3].draw_count(), 100);
}

TEST(Sampler, StopsWhenAskedAndKeepsWhatWasDrawn) {
  std::atomic<bool> stop{false};
  SamplerOptions o = small_run(2);
  o.threads = 1;
  o.stop = &stop;
  std::int64_t seen = 0;
  const SampleResult r = sample(gaussian_target({1.0}), o, [&](const Draw& d) {
    if (d.chain == 0 && d.iteration == 160) stop = true;
    ++seen;
  });
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.chains[0].draw_count(), 11);  // iterations 150..160
  EXPECT_EQ(r.chains[1].draw_count(), 0);   // never started
  EXPECT_EQ(seen, 161);
}

TEST(SampleResult, CoordinateDrawsSliceOneCoordinatePerChain) {
  SampleResult r;
  r.dimension = 2;
  r.chains.resize(2);
  r.chains[0].draws = {1, 10, 2, 20, 3, 30};  // three draws of (x0, x1)
  r.chains[0].stats.resize(3);
  r.chains[1].draws = {4, 40};
  r.chains[1].stats.resize(1);
  EXPECT_EQ(coordinate_draws(r, 1), (ChainDraws{{10, 20, 30}, {40}}));
  EXPECT_EQ(coordinate_draws(r, 0), (ChainDraws{{1, 2, 3}, {4}}));
  EXPECT_ERROR(coordinate_draws(r, 2), "coordinate 2 is outside 0..1");
}

}  // namespace
}  // namespace variate::inference
