// Checkpoints of the sampler: a chain resumed from its state at any iteration (in each part of
// warm-up, at its end, while sampling) makes bit for bit the draws of a run that never stopped;
// the checkpoint file keeps that state exactly and refuses corrupt, truncated or foreign files;
// warm starts sample with the metric and step size they are given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_seed.hpp"
#include "variate/inference/checkpoint_file.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::inference {
namespace {

// A correlated Gaussian (so a dense metric has something to learn), written by hand.
Target correlated_gaussian() {
  Target t;
  t.dimension = 3;
  t.evaluate = [](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> g) {
    for (std::int64_t c = 0; c < batch; ++c) {
      const double* x = q.data() + c * 3;
      double* gr = g.data() + c * 3;
      // precision matrix [[2, 0.9, 0], [0.9, 1, 0], [0, 0, 0.25]]
      gr[0] = -(2 * x[0] + 0.9 * x[1]);
      gr[1] = -(0.9 * x[0] + x[1]);
      gr[2] = -0.25 * x[2];
      lp[std::size_t(c)] = 0.5 * (x[0] * gr[0] + x[1] * gr[1] + x[2] * gr[2]);
    }
  };
  return t;
}

// Expects f() to throw a variate::Error whose message holds each of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  const std::string message = testing::error_of(f);
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\nexpected to contain: " << part;
}

struct Recorded {
  std::vector<double> position;
  TransitionStats stats;
};

// Every iteration's draw and every checkpoint of a run, by (chain, iteration).
struct Recording {
  std::map<std::pair<int, std::int64_t>, Recorded> draws;
  std::map<std::pair<int, std::int64_t>, ChainState> states;
  SampleResult result;
};

SamplerOptions options(MetricKind metric, MetricAdaptation adaptation = MetricAdaptation::stan_windows) {
  SamplerOptions o;
  o.metric = metric;
  o.metric_adaptation = adaptation;
  o.chains = 2;
  o.threads = 2;
  o.num_warmup = 150;  // init buffer 75, one slow window to 100, term buffer 50
  o.num_draws = 60;
  o.seed = variate::testing::test_seed(11);
  return o;
}

Recording run(const Target& target, SamplerOptions o) {
  Recording r;
  std::mutex mutex;
  if (o.checkpoint_every > 0)
    o.on_checkpoint = [&](const ChainState& s) {
      std::lock_guard lock(mutex);
      r.states[{s.chain, s.iteration}] = s;
    };
  r.result = sample(target, o, [&](const Draw& d) {
    std::lock_guard lock(mutex);
    r.draws[{d.chain, d.iteration}] = {{d.position.begin(), d.position.end()}, *d.stats};
  });
  return r;
}

void expect_same_draws(const Recording& reference, const Recording& resumed, std::int64_t from, int chains = 2,
                       std::int64_t total = 210) {
  std::size_t compared = 0;
  for (const auto& [key, draw] : resumed.draws) {
    ASSERT_GE(key.second, from) << "a resumed chain repeated iteration " << key.second;
    const Recorded& want = reference.draws.at(key);
    ASSERT_EQ(std::memcmp(draw.position.data(), want.position.data(), want.position.size() * sizeof(double)), 0)
        << "chain " << key.first << " iteration " << key.second;
    EXPECT_EQ(draw.stats.log_density, want.stats.log_density);
    EXPECT_EQ(draw.stats.step_size, want.stats.step_size);
    EXPECT_EQ(draw.stats.accept_stat, want.stats.accept_stat);
    EXPECT_EQ(draw.stats.n_leapfrog, want.stats.n_leapfrog);
    ++compared;
  }
  EXPECT_EQ(compared, std::size_t(chains * (total - from)));
  for (std::size_t c = 0; c < std::size_t(chains); ++c) {
    EXPECT_EQ(resumed.result.chains[c].step_size, reference.result.chains[c].step_size);
    EXPECT_EQ(resumed.result.chains[c].metric.inverse(), reference.result.chains[c].metric.inverse());
    EXPECT_EQ(resumed.result.chains[c].metric.directions(), reference.result.chains[c].metric.directions());
    EXPECT_EQ(resumed.result.chains[c].metric.eigenvalues(), reference.result.chains[c].metric.eigenvalues());
  }
}

struct Adapted {
  MetricKind metric;
  MetricAdaptation adaptation;
  bool vectorized;
};

class ResumeTest : public ::testing::TestWithParam<Adapted> {
 protected:
  SamplerOptions chosen() const {
    SamplerOptions o = options(GetParam().metric, GetParam().adaptation);
    o.vectorized = GetParam().vectorized;
    return o;
  }
};

TEST_P(ResumeTest, ResumedChainsMakeTheDrawsOfAnUninterruptedRun) {
  const Target target = correlated_gaussian();
  SamplerOptions o = chosen();
  o.checkpoint_every = 1;
  const Recording reference = run(target, o);
  const Recording unchecked = run(target, chosen());
  expect_same_draws(reference, unchecked, 0);  // checkpointing does not change the draws

  // Stan's windows: in the first fast window, in the slow window, right after it (its metric just
  // updated). Fisher's (early switches to 45, metric fixed from 128 on): in an early window, just
  // after a switch, between two low-rank updates, as the metric is fixed and just after. Then at
  // the end of warm-up, while sampling, and after the last iteration.
  const bool fisher = GetParam().adaptation == MetricAdaptation::fisher;
  const std::vector<std::int64_t> cuts = fisher ? std::vector<std::int64_t>{10, 40, 85, 127, 128, 150, 175, 210}
                                                : std::vector<std::int64_t>{10, 80, 100, 150, 175, 210};
  for (std::int64_t cut : cuts) {
    SCOPED_TRACE("resumed at iteration " + std::to_string(cut));
    SamplerOptions again = chosen();
    again.resume = {std::optional(reference.states.at({0, cut})), std::optional(reference.states.at({1, cut}))};
    ASSERT_EQ(again.resume[0]->fisher.has_value(), fisher);
    expect_same_draws(reference, run(target, again), cut);
  }
}

INSTANTIATE_TEST_SUITE_P(Metrics, ResumeTest,
                         ::testing::Values(Adapted{MetricKind::diagonal, MetricAdaptation::stan_windows, false},
                                           Adapted{MetricKind::dense, MetricAdaptation::stan_windows, false},
                                           Adapted{MetricKind::diagonal, MetricAdaptation::fisher, false},
                                           Adapted{MetricKind::low_rank, MetricAdaptation::fisher, false},
                                           Adapted{MetricKind::diagonal, MetricAdaptation::stan_windows, true},
                                           Adapted{MetricKind::low_rank, MetricAdaptation::fisher, true}),
                         [](const ::testing::TestParamInfo<Adapted>& info) {
                           const Adapted& a = info.param;
                           const std::string metric = a.metric == MetricKind::dense      ? "Dense"
                                                      : a.metric == MetricKind::low_rank ? "LowRank"
                                                                                         : "Diagonal";
                           return std::string(a.adaptation == MetricAdaptation::fisher ? "Fisher" : "Stan") + metric +
                                  (a.vectorized ? "Vectorized" : "Threaded");
                         });

// The low-rank metric a Fisher run adapts has directions to keep.
TEST(Resume, FisherLowRankStatesCarryTheDirectionsAndWindows) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::low_rank, MetricAdaptation::fisher);
  o.checkpoint_every = 50;
  const Recording r = run(target, o);
  const ChainState& s = r.states.at({0, 100});
  EXPECT_EQ(s.metric.kind(), MetricKind::low_rank);
  EXPECT_FALSE(s.metric.eigenvalues().empty()) << "a correlated Gaussian should give the metric a direction";
  ASSERT_TRUE(s.fisher.has_value());
  EXPECT_GT(s.fisher->foreground.count, 0);
  EXPECT_EQ(s.fisher->foreground.draws.size(), std::size_t(s.fisher->foreground.count) * 3);

  SamplerOptions stan = options(MetricKind::diagonal);
  stan.resume = {std::nullopt, std::optional(r.states.at({1, 100}))};
  stan.resume[1]->metric = Metric::unit(MetricKind::diagonal, 3);
  expect_error([&] { (void)sample(target, stan); },
               {"chain 2 was made by Fisher-divergence metric adaptation", "Stan's windowed"});
  SamplerOptions cut = options(MetricKind::low_rank, MetricAdaptation::fisher);
  cut.resume = {std::nullopt, std::optional(r.states.at({1, 100}))};
  cut.resume[1]->fisher->foreground.draws.pop_back();
  bool drew = false;  // the fresh chain 1 must not start either
  expect_error([&] { (void)sample(target, cut, [&](const Draw&) { drew = true; }); },
               {"FisherWindow::restore", "stored draws and gradients"});
  EXPECT_FALSE(drew);
}

// A warm start from a Fisher run keeps its low-rank metric and step size without warm-up, and
// warm-up adapts from them.
TEST(WarmStart, FisherRunsStartFromTheEarlierLowRankMetric) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::low_rank, MetricAdaptation::fisher);
  o.checkpoint_every = 210;
  const ChainState last = run(target, o).states.at({0, 210});
  SamplerOptions warm = options(MetricKind::low_rank, MetricAdaptation::fisher);
  warm.num_warmup = 0;
  warm.warm_start = {{last.position, last.step_size, last.metric}};
  const Recording r = run(target, warm);
  for (const auto& [key, draw] : r.draws) EXPECT_EQ(draw.stats.step_size, last.step_size);
  EXPECT_EQ(r.result.chains[1].metric.eigenvalues(), last.metric.eigenvalues());
  EXPECT_EQ(r.result.chains[1].metric.directions(), last.metric.directions());
  warm.num_warmup = 60;
  const Recording adapted = run(target, warm);
  EXPECT_EQ(adapted.result.chains[0].metric.kind(), MetricKind::low_rank);
}

// ChEES-HMC's chains share their warm-up (step size, trajectory length, Adam's and dual averaging's
// sums, the pooled positions of the fixed metric) and resume together from one iteration.
SamplerOptions chees_options() {
  SamplerOptions o;
  o.algorithm = Algorithm::chees;
  o.vectorized = true;
  o.chains = 4;
  o.num_warmup = 120;  // the metric follows the chains to 90, pooled from 45; fixed after
  o.num_draws = 40;
  o.seed = variate::testing::test_seed(13);
  return o;
}

TEST(Resume, CheesChainsResumeTogetherToTheDrawsOfAnUninterruptedRun) {
  const Target target = correlated_gaussian();
  SamplerOptions o = chees_options();
  o.checkpoint_every = 1;
  const Recording reference = run(target, o);
  expect_same_draws(reference, run(target, chees_options()), 0, 4, 160);
  ASSERT_TRUE(reference.states.at({0, 60}).chees.has_value());
  EXPECT_TRUE(reference.states.at({0, 60}).chees->pooled.has_value());

  // Before the pooling starts, while it pools, as the metric is fixed, in the last quarter, at the
  // end of warm-up, while sampling.
  for (std::int64_t cut : {10, 60, 90, 100, 120, 150}) {
    SCOPED_TRACE("resumed at iteration " + std::to_string(cut));
    SamplerOptions again = chees_options();
    for (int c = 0; c < 4; ++c) again.resume.push_back(reference.states.at({c, cut}));
    expect_same_draws(reference, run(target, again), cut, 4, 160);
  }

  SamplerOptions mixed = chees_options();
  for (int c = 0; c < 4; ++c) mixed.resume.push_back(reference.states.at({c, c == 2 ? 50 : 60}));
  expect_error([&] { (void)sample(target, mixed); }, {"resume together", "chain 3's resume state is at iteration 50"});
  // The shared state: each chain's copy must be usable and the same as chain 1's.
  SamplerOptions differing = chees_options();
  for (int c = 0; c < 4; ++c) differing.resume.push_back(reference.states.at({c, 60}));
  differing.resume[3]->chees->adaptation.count += 1;
  expect_error([&] { (void)sample(target, differing); }, {"chain 4's copy of the ChEES-HMC state", "differs"});
  SamplerOptions broken = chees_options();
  for (int c = 0; c < 4; ++c) broken.resume.push_back(reference.states.at({c, 60}));
  broken.resume[0]->chees->adaptation.step_size = -1;
  expect_error([&] { (void)sample(target, broken); }, {"chain 1's ChEES-HMC state is corrupt", "step size -1"});
  broken.resume[0]->chees = reference.states.at({0, 60}).chees;
  broken.resume[2]->chees->pooled->mean.pop_back();
  expect_error([&] { (void)sample(target, broken); }, {"chain 3's ChEES-HMC state is corrupt", "pooled sums"});
  SamplerOptions nuts_states = chees_options();
  nuts_states.resume.assign(4, reference.states.at({0, 60}));
  for (int c = 0; c < 4; ++c) {
    nuts_states.resume[std::size_t(c)]->chain = c;
    nuts_states.resume[std::size_t(c)]->chees.reset();
  }
  expect_error([&] { (void)sample(target, nuts_states); }, {"has no ChEES-HMC state"});
}

TEST(Resume, AChainWithoutStateStartsAfreshAndTheOtherContinues) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::diagonal);
  o.checkpoint_every = 25;
  const Recording reference = run(target, o);
  SamplerOptions again = options(MetricKind::diagonal);
  again.resume = {std::nullopt, std::optional(reference.states.at({1, 125}))};
  const Recording resumed = run(target, again);
  EXPECT_EQ(resumed.draws.count({0, 0}), 1u);
  EXPECT_EQ(resumed.draws.count({1, 124}), 0u);
  for (const auto& [key, draw] : resumed.draws)
    EXPECT_EQ(draw.position, reference.draws.at(key).position) << key.first << " " << key.second;
}

TEST(Resume, CheckpointsComeAtTheIntervalAtTheEndAndOnStop) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::diagonal);
  o.checkpoint_every = 40;
  const Recording r = run(target, o);
  std::vector<std::int64_t> iterations;
  for (const auto& [key, state] : r.states)
    if (key.first == 0) iterations.push_back(key.second);
  EXPECT_EQ(iterations, (std::vector<std::int64_t>{40, 80, 120, 160, 200, 210}));

  std::atomic<bool> stop{false};
  SamplerOptions stopping = options(MetricKind::diagonal);
  stopping.chains = 1;
  stopping.checkpoint_every = 1000;
  stopping.stop = &stop;
  std::vector<ChainState> states;
  stopping.on_checkpoint = [&](const ChainState& s) { states.push_back(s); };
  const SampleResult stopped = sample(target, stopping, [&](const Draw& d) {
    if (d.iteration == 33) stop = true;
  });
  EXPECT_TRUE(stopped.interrupted);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].iteration, 34);
}

TEST(Resume, StatesThatDoNotFitTheRunAreRefused) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::diagonal);
  o.checkpoint_every = 50;
  const Recording reference = run(target, o);
  SamplerOptions again = options(MetricKind::dense);
  again.resume = {std::optional(reference.states.at({0, 50})), std::nullopt};
  expect_error([&] { (void)sample(target, again); },
               {"resume state for chain 1 does not fit", "diagonal metric", "dense metric"});
  SamplerOptions swapped = options(MetricKind::diagonal);
  swapped.resume = {std::optional(reference.states.at({1, 50})), std::optional(reference.states.at({0, 50}))};
  expect_error([&] { (void)sample(target, swapped); }, {"it is chain 2"});
  SamplerOptions vectorized = options(MetricKind::diagonal);
  vectorized.vectorized = true;
  vectorized.resume = {std::nullopt, std::optional(reference.states.at({1, 50}))};
  expect_error([&] { (void)sample(target, vectorized); },
               {"vectorized chains resume together", "chain 2's resume state is at iteration 50, chain 1's missing"});
}

TEST(WarmStart, SamplesWithTheGivenMetricAndStepSize) {
  const Target target = correlated_gaussian();
  SamplerOptions o = options(MetricKind::dense);
  o.checkpoint_every = 210;
  const Recording earlier = run(target, o);
  const ChainState& last = earlier.states.at({0, 210});
  SamplerOptions warm = options(MetricKind::dense);
  warm.num_warmup = 0;
  warm.warm_start = {{last.position, last.step_size, last.metric}};
  const Recording r = run(target, warm);
  ASSERT_EQ(r.draws.size(), 2u * 60);
  for (const auto& [key, draw] : r.draws) EXPECT_EQ(draw.stats.step_size, last.step_size);
  EXPECT_EQ(r.result.chains[1].metric.inverse(), last.metric.inverse());

  warm.warm_start[0].position = {1.0 / 0.0, 0, 0};
  expect_error([&] { (void)sample(target, warm); },
               {"chain 1: the warm start's position has a non-finite log density"});
}

ChainState some_state() {
  ChainState s;
  s.chain = 1;
  s.iteration = 123;
  s.position = {0.1, -2.5, 3e-300};
  s.gradient = {1.0 / 3, -0.0, 7};
  s.log_density = -4.25;
  s.step_size = 0.37;
  s.metric = Metric::dense({2, 0.5, 0, 0.5, 1, 0, 0, 0, 3}, 3);
  s.dual_averaging = {1.5, -0.25, 0.125, 48};
  s.welford = {5, {1, 2, 3}, {4, 5, 6, 5, 7, 8, 6, 8, 9}};
  s.step_size_searches = 3;
  s.warmup_seconds = 1.5;
  return s;
}

// A Fisher run's state: its low-rank metric (D, directions, eigenvalues) and its two windows.
TEST(CheckpointFile, KeepsALowRankMetricAndFisherWindowsBitForBit) {
  testing::ScratchDir dir("checkpoint_file_fisher");
  const std::filesystem::path path = dir.path() / "chain-2.ckpt";
  ChainState s = some_state();
  const double r = std::sqrt(0.5);
  s.metric = Metric::low_rank({0.5, 2, 3e-5}, {r, r, 0}, {7.5});
  s.welford = {};
  s.fisher =
      FisherState{{2, {1, 2, 3}, {0.5, 0.25, 1e-300}, {-1, -2, -3}, {4, 5, 6}, {1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1}},
                  {1, {0, 0, 1}, {0, 0, 0}, {2, 2, 2}, {0, 0, 0}, {0, 0, 1}, {2, 2, 2}}};
  write_checkpoint(path, {{{"model", "m"}}, {}, {s}});
  const ChainState back = read_checkpoint(path).chains.at(0);
  EXPECT_EQ(back.metric.kind(), MetricKind::low_rank);
  EXPECT_EQ(back.metric.inverse(), s.metric.inverse());
  EXPECT_EQ(back.metric.directions(), s.metric.directions());
  EXPECT_EQ(back.metric.eigenvalues(), s.metric.eigenvalues());
  ASSERT_TRUE(back.fisher.has_value());
  for (const auto& [got, want] : {std::pair{&back.fisher->foreground, &s.fisher->foreground},
                                  std::pair{&back.fisher->background, &s.fisher->background}}) {
    EXPECT_EQ(got->count, want->count);
    EXPECT_EQ(got->mean_x, want->mean_x);
    EXPECT_EQ(got->m2_x, want->m2_x);
    EXPECT_EQ(got->mean_g, want->mean_g);
    EXPECT_EQ(got->m2_g, want->m2_g);
    EXPECT_EQ(got->draws, want->draws);
    EXPECT_EQ(got->gradients, want->gradients);
  }
}

TEST(CheckpointFile, KeepsTheStateBitForBit) {
  testing::ScratchDir dir("checkpoint_file_round_trip");
  const std::filesystem::path path = dir.path() / "chain-2.ckpt";
  const ChainState s = some_state();
  write_checkpoint(path, {{{"model", "m"}}, {{"note", "n"}}, {s}});
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "chain-2.ckpt.tmp"));
  const Checkpoint back = read_checkpoint(path);
  EXPECT_EQ(back.identity, (CheckpointEntries{{"model", "m"}}));
  EXPECT_EQ(back.notes, (CheckpointEntries{{"note", "n"}}));
  ASSERT_EQ(back.chains.size(), 1u);
  const ChainState& r = back.chains[0];
  EXPECT_FALSE(r.chees.has_value());
  EXPECT_EQ(r.chain, 1);
  EXPECT_EQ(r.iteration, 123);
  EXPECT_EQ(r.position, s.position);
  EXPECT_TRUE(std::signbit(r.gradient[1]));
  EXPECT_EQ(r.gradient, s.gradient);
  EXPECT_EQ(r.log_density, s.log_density);
  EXPECT_EQ(r.step_size, s.step_size);
  EXPECT_EQ(r.metric.kind(), MetricKind::dense);
  EXPECT_EQ(r.metric.inverse(), s.metric.inverse());
  EXPECT_EQ(r.dual_averaging.x_bar, 0.125);
  EXPECT_EQ(r.dual_averaging.count, 48);
  EXPECT_EQ(r.welford.m2, s.welford.m2);
  EXPECT_EQ(r.step_size_searches, 3u);
  EXPECT_EQ(r.warmup_seconds, 1.5);
}

// A lockstep batch's file: every chain, each with ChEES-HMC's shared state, with and without the
// pooled sums.
TEST(CheckpointFile, KeepsABatchAndItsCheesStateBitForBit) {
  testing::ScratchDir dir("checkpoint_file_batch");
  const std::filesystem::path path = dir.path() / "chains.ckpt";
  ChainState first = some_state(), second = some_state();
  first.chain = 0;
  first.chees = CheesState{{{0.5, -1.25, 0.75, 9}, 0.3, 2.5, 1e-7, std::log(2.0), 31}, std::nullopt, 0};
  second.chees = CheesState{first.chees->adaptation, WelfordState{7, {1, 2, 3}, {0.5, 0.25, 0.125}}, 1.75};
  write_checkpoint(path, {{{"model", "m"}}, {}, {first, second}});
  const Checkpoint back = read_checkpoint(path);
  ASSERT_EQ(back.chains.size(), 2u);
  EXPECT_EQ(back.chains[0].chain, 0);
  EXPECT_EQ(back.chains[1].position, second.position);
  ASSERT_TRUE(back.chains[0].chees && back.chains[1].chees);
  const CheesAdaptationState& a = back.chains[0].chees->adaptation;
  EXPECT_EQ(a.dual.s_bar, -1.25);
  EXPECT_EQ(a.dual.count, 9);
  EXPECT_EQ(a.step_size, 0.3);
  EXPECT_EQ(a.trajectory_length, 2.5);
  EXPECT_EQ(a.mean_square, 1e-7);
  EXPECT_EQ(a.log_length_average, std::log(2.0));
  EXPECT_EQ(a.count, 31);
  EXPECT_FALSE(back.chains[0].chees->pooled.has_value());
  ASSERT_TRUE(back.chains[1].chees->pooled.has_value());
  EXPECT_EQ(back.chains[1].chees->pooled->count, 7);
  EXPECT_EQ(back.chains[1].chees->pooled->m2, second.chees->pooled->m2);
  EXPECT_EQ(back.chains[1].chees->trajectory_length, 1.75);
}

// Version 1 files (one chain, no sampler tag) and version 2 files (no metric adaptation tag) come
// from an older variate: refused by their version.
TEST(CheckpointFile, AnOlderVersionIsRefusedByItsNumber) {
  testing::ScratchDir dir("checkpoint_file_version");
  const std::filesystem::path path = dir.path() / "old.ckpt";
  write_checkpoint(path, {{{"model", "m"}}, {}, {some_state()}});
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (const std::uint32_t version : {1u, 2u}) {
    std::memcpy(bytes.data() + 10, &version, sizeof version);
    expect_error([&] { (void)read_checkpoint(dir.write("old.ckpt", bytes)); },
                 {"old.ckpt", ("version " + std::to_string(version) + ", but this build reads version 3").c_str()});
  }
}

TEST(CheckpointFile, CorruptTruncatedAndForeignFilesGiveOneClearError) {
  testing::ScratchDir dir("checkpoint_file_errors");
  const std::filesystem::path path = dir.path() / "c.ckpt";
  write_checkpoint(path, {{{"model", "eight-schools"}, {"data fingerprint", "00ab"}}, {}, {some_state()}});
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto with = [&](const std::string& name, const std::string& contents) {
    return std::filesystem::path(dir.write(name, contents));
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  expect_error([&] { (void)read_checkpoint(with("flipped.ckpt", flipped)); }, {"flipped.ckpt", "checksum mismatch"});
  expect_error([&] { (void)read_checkpoint(with("cut.ckpt", bytes.substr(0, bytes.size() - 9))); },
               {"cut.ckpt", "truncated or corrupt"});
  expect_error([&] { (void)read_checkpoint(with("other.ckpt", "not a checkpoint at all")); }, {"bad magic bytes"});
  expect_error([&] { (void)read_checkpoint(dir.path() / "missing.ckpt"); }, {"missing.ckpt", "cannot open"});

  const Checkpoint good = read_checkpoint(path);
  check_identity(path, good.identity, {{"model", "eight-schools"}});
  expect_error(
      [&] {
        (void)check_identity(path, good.identity, {{"model", "beta-bernoulli"}});
      },
      {"made for another run: its model is 'eight-schools', this run's is 'beta-bernoulli'"});
  expect_error(
      [&] {
        (void)check_identity(path, good.identity, {{"data fingerprint", "00cd"}});
      },
      {"data fingerprint", "'00ab'"});
}

}  // namespace
}  // namespace variate::inference
