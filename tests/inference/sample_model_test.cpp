// The public sample(): a model and its data to draws on disk and in memory, the predictive and
// log-likelihood columns, and its errors.
#include "variate/inference/sample_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_seed.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/predictive_columns.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

const Tensor kData = Tensor::vec({0.8, 1.9, 1.2});

// mu ~ N(0, 1), y_i ~ N(mu, 1): mu | y ~ N(sum(y) / 4, 1 / 4) = N(0.975, 0.5^2).
void model() {
  auto mu = Normal(0.0, 1.0, "mu");
  Normal(expand_dims(mu, -1) * Tensor::ones(Shape{3}), 1.0, "y");
}

ModelSampleOptions short_run(int threads) {
  ModelSampleOptions o;
  o.sampler.chains = 2;
  o.sampler.num_warmup = 300;
  o.sampler.num_draws = 400;
  o.sampler.seed = variate::testing::test_seed(11);
  o.sampler.threads = threads;
  o.name = "normal";
  return o;
}

double mean_of(const ChainDraws& draws) {
  double sum = 0, n = 0;
  for (const auto& chain : draws)
    for (double x : chain) sum += x, n += 1;
  return sum / n;
}

// The Laplace start: the chains run on whitened coordinates; the draws, in memory and in the
// result, are the model's own (here mu is unconstrained, so both must be the same numbers).
TEST(SampleModel, LaplaceStartSamplesThePosteriorOnItsOwnScale) {
  ModelSampleOptions o = short_run(1);
  o.laplace = true;
  const ModelSample fit = sample(model, {{"y", kData}}, o);
  EXPECT_GT(fit.initialization_gradients, 2);  // L-BFGS's evaluations and the Hessian's 2
  const ChainDraws& mu = fit.column("mu");
  EXPECT_NEAR(mean_of(mu), 0.975, 4 * mcse_mean(mu));
  for (int c = 0; c < 2; ++c)
    for (std::size_t s = 0; s < mu[std::size_t(c)].size(); ++s)
      ASSERT_DOUBLE_EQ(fit.result.chains[std::size_t(c)].draws[s], mu[std::size_t(c)][s]) << c << " " << s;
}

TEST(SampleModel, WritesStanCsvAndReturnsTheSameDrawsAndTheirSummary) {
  const testing::ScratchDir dir("sample_model_files");
  ModelSampleOptions o = short_run(1);
  o.output = (dir.path() / "out").string();  // created
  const ModelSample fit = sample(model, {{"y", kData}}, o);

  ASSERT_EQ(fit.files.size(), 2u);
  EXPECT_EQ(fit.files[1], dir / "out/normal-2.csv");
  const std::vector<std::string> columns = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                            "n_leapfrog__", "divergent__",   "energy__",   "mu"};
  EXPECT_EQ(fit.columns, columns);
  for (int c = 0; c < 2; ++c) {
    const data::StanCsv csv = data::read_stan_csv(fit.files[std::size_t(c)]);
    EXPECT_EQ(csv.columns, columns);
    EXPECT_TRUE(csv.has_adaptation);
    EXPECT_EQ(*csv.config_value("id"), std::to_string(c + 1));
    EXPECT_EQ(*csv.config_value("num_samples"), "400");
    EXPECT_EQ(csv.column("mu"), fit.column("mu")[std::size_t(c)]) << "the file holds the returned draws bit for bit";
    EXPECT_EQ(csv.column("lp__"), fit.column("lp__")[std::size_t(c)]);
  }
  // lp__ and mu, with the posterior mean within 5 Monte Carlo standard errors.
  ASSERT_EQ(fit.summary.size(), 2u);
  EXPECT_EQ(fit.summary[1].name, "mu");
  EXPECT_NEAR(fit.summary[1].mean, 0.975, 5 * fit.summary[1].mcse);
  EXPECT_NEAR(fit.summary[1].sd, 0.5, 0.1);
  EXPECT_LT(fit.summary[1].rhat, 1.05);
  EXPECT_EQ(fit.sampler.divergences, (std::vector<int>{0, 0}));
  EXPECT_EQ(fit.result.chains[0].draw_count(), 400);
}

TEST(SampleModel, AnEarlierRunInTheFolderIsRefusedOrReplaced) {
  const testing::ScratchDir dir("sample_model_earlier");
  ModelSampleOptions o = short_run(1);
  o.output = (dir.path() / "out").string();
  o.sampler.chains = 3;
  sample(model, {{"y", kData}}, o);
  o.sampler.chains = 2;
  EXPECT_ERROR(sample(model, {{"y", kData}}, o), "already holds an earlier run's files (normal-1.csv");
  o.overwrite = true;
  const ModelSample second = sample(model, {{"y", kData}}, o);
  EXPECT_EQ(second.files.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir / "out/normal-3.csv")) << "the earlier run's third chain is left behind";
}

TEST(SampleModel, TheDrawsDoNotDependOnTheThreadCountOrTheFiles) {
  const ModelSample one = sample(model, {{"y", kData}}, short_run(1));
  const ModelSample two = sample(model, {{"y", kData}}, short_run(2));
  EXPECT_TRUE(one.files.empty()) << "no output folder: nothing written";
  EXPECT_EQ(one.column("mu"), two.column("mu"));
}

TEST(SampleModel, PredictiveAndLogLikelihoodColumnsFollowTheParameters) {
  ModelSampleOptions o = short_run(1);
  o.predictive = true;
  o.log_likelihood = true;
  const ModelSample fit = sample(model, {{"y", kData}}, o);
  const std::vector<std::string> tail = {"mu", "y_rep.1", "y_rep.2", "y_rep.3", "log_lik.1", "log_lik.2", "log_lik.3"};
  EXPECT_EQ(std::vector<std::string>(fit.columns.begin() + 7, fit.columns.end()), tail);
  const ChainDraws& mu = fit.column("mu");
  for (int i = 0; i < 3; ++i) {
    const ChainDraws& log_lik = fit.column("log_lik." + std::to_string(i + 1));
    for (std::size_t d = 0; d < mu[0].size(); d += 37) {
      const double z = kData.at(i) - mu[0][d];
      EXPECT_NEAR(log_lik[0][d], -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi), 1e-12);
    }
  }
  // y_rep = mu + e, e ~ N(0, 1) apart from mu: over 800 draws the mean of y_rep - mu is within
  // 5 / sqrt(800) of 0 and its variance within 5 sqrt(2 / 800) of 1.
  const ChainDraws& y_rep = fit.column("y_rep.2");
  double sum = 0, sum_sq = 0, n = 0;
  for (std::size_t c = 0; c < 2; ++c)
    for (std::size_t d = 0; d < mu[c].size(); ++d) {
      const double e = y_rep[c][d] - mu[c][d];
      sum += e, sum_sq += e * e, n += 1;
    }
  EXPECT_NEAR(sum / n, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(sum_sq / n - (sum / n) * (sum / n), 1.0, 5 * std::sqrt(2 / n));
  EXPECT_NEAR(mean_of(fit.column("mu")), 0.975, 0.1) << "the extra columns leave the draws alone";
}

TEST(SampleModel, ErrorsNameWhatIsWrong) {
  EXPECT_ERROR(sample(model, {{"yy", kData}}, short_run(1)), "'yy'");
  auto no_latent = [] { Normal(0.0, 1.0, "y"); };
  EXPECT_ERROR(sample(no_latent, {{"y", Tensor::scalar(0.5)}}, short_run(1)),
               "sample: the model has no continuous latent variables");
  const testing::ScratchDir dir("sample_model_errors");
  ModelSampleOptions o = short_run(1);
  o.output = dir.write("a_file", "x");
  EXPECT_ERROR(sample(model, {{"y", kData}}, o),
               "sample: the output path '" + o.output + "' exists and is not a folder");
  o = short_run(1);
  o.predictive = true;
  EXPECT_ERROR(sample(model, {}, o), "the model observes no site");
  // A distribution broadcast against its data would give one draw for all of them.
  auto broadcast = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    Normal(expand_dims(mu, -1), 1.0, "y");
  };
  EXPECT_ERROR(sample(broadcast, {{"y", kData}}, o), "site 'y': a predictive draw has shape");
}

TEST(PredictiveColumns, ANameThatIsAlreadyASiteIsAnError) {
  auto clash = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    auto y_rep = Normal(0.0, 1.0, "y_rep");
    tracing::Condition data({{"y", Tensor::scalar(0.3)}});
    Normal(mu + y_rep, 1.0, "y");
  };
  const tracing::Values latent = {{"mu", Tensor::scalar(0.0)}, {"y_rep", Tensor::scalar(0.0)}};
  EXPECT_ERROR(PredictiveColumns(clash, latent, {.predictive = true}, random::Key(1)),
               "the column 'y_rep' would repeat the name of a site");
  const PredictiveColumns log_lik_only(clash, latent, {.log_likelihood = true}, random::Key(1));
  ASSERT_EQ(log_lik_only.sites().size(), 1u);
  EXPECT_EQ(log_lik_only.sites()[0].name, "log_lik");
  EXPECT_EQ(log_lik_only.sites()[0].shape, (Shape{1}));
}

}  // namespace
}  // namespace variate::inference
