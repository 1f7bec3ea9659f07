// ELBO and IWAE estimators against closed forms: a conjugate Gaussian model (z ~ N(0, 1), x_j ~
// N(z, 1)) under a Gaussian guide, and a Bernoulli latent under a Bernoulli guide (the
// score-function estimator). Each Monte Carlo mean is compared with the exact value through its
// z-score, using the standard error of the repeated estimates themselves; fixed keys.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_seed.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

const double kLog2Pi = std::log(2.0 * std::numbers::pi);
const std::vector<double> kData = {0.8, 1.9, 1.2};

void gaussian_model() {
  auto z = Normal(0.0, 1.0, "z");
  tracing::Condition data({{"x", Tensor::from(kData)}});
  Normal(expand_dims(z, -1) * Tensor::ones(Shape{3}), 1.0, "x");
}

// E_q[log p(z) + log p(x | z)] + H[q] for q = N(m, s).
double exact_gaussian_elbo(double m, double s) {
  double out = -0.5 * kLog2Pi - 0.5 * (m * m + s * s);
  for (double x : kData) out += -0.5 * kLog2Pi - 0.5 * ((x - m) * (x - m) + s * s);
  return out + 0.5 * (kLog2Pi + 1.0) + std::log(s);
}

// log p(x): x ~ N(0, I + 1 1^T), whose determinant is 1 + n and inverse I - 1 1^T / (1 + n).
double exact_log_evidence() {
  const double n = double(kData.size());
  double sum = 0, sum_sq = 0;
  for (double x : kData) {
    sum += x;
    sum_sq += x * x;
  }
  return -0.5 * n * kLog2Pi - 0.5 * std::log(1.0 + n) - 0.5 * (sum_sq - sum * sum / (1.0 + n));
}

// Mean and standard error of independent estimates.
struct MeanError {
  double mean, error;
};
MeanError mean_error(const std::vector<double>& xs) {
  double sum = 0, sum_sq = 0;
  for (double x : xs) sum += x;
  const double mean = sum / double(xs.size());
  for (double x : xs) sum_sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sum_sq / double(xs.size() - 1) / double(xs.size()))};
}

void expect_z_score_below(const MeanError& got, double exact, double bound, const char* what) {
  EXPECT_LT(std::abs(got.mean - exact) / got.error, bound)
      << what << ": estimate " << got.mean << " +- " << got.error << ", exact " << exact;
}

TEST(Elbo, PathwiseEstimateIsUnbiasedOnAConjugateGaussianModel) {
  const double m = 0.7, s = 0.6;
  auto guide = [&] { Normal(m, s, "z"); };
  const ElboEstimate e = elbo(gaussian_model, guide, random::Key(variate::testing::test_seed(11)), {.particles = 4000});
  ASSERT_GT(e.standard_error, 0.0);
  EXPECT_EQ(e.log_weights.numel(), 4000);
  expect_z_score_below({e.value, e.standard_error}, exact_gaussian_elbo(m, s), 4.0, "ELBO");
  EXPECT_DOUBLE_EQ(e.surrogate.item(), e.value);
}

TEST(Elbo, AnalyticKlGivesTheSameBound) {
  const double m = 0.7, s = 0.6;
  auto guide = [&] { Normal(m, s, "z"); };
  const ElboEstimate analytic = elbo(gaussian_model, guide, random::Key(variate::testing::test_seed(12)),
                                     {.particles = 2000, .analytic_kl = true});
  expect_z_score_below({analytic.value, analytic.standard_error}, exact_gaussian_elbo(m, s), 4.0, "analytic-KL ELBO");
  // Without data the bound is -KL(q || p) exactly: no Monte Carlo term is left.
  auto prior_only = [] { Normal(0.0, 1.0, "z"); };
  const ElboEstimate exact =
      elbo(prior_only, guide, random::Key(variate::testing::test_seed(13)), {.particles = 10, .analytic_kl = true});
  EXPECT_NEAR(exact.value, -(std::log(1.0 / s) + (s * s + m * m) / 2 - 0.5), 1e-12);
  EXPECT_NEAR(exact.standard_error, 0.0, 1e-12);
}

TEST(Elbo, PathwiseGradientIsUnbiased) {
  const double m = 0.7, s = 0.6, n = double(kData.size());
  double data_sum = 0;
  for (double x : kData) data_sum += x;
  // d/dm and d/ds of exact_gaussian_elbo.
  const double exact_dm = -m + data_sum - n * m, exact_ds = -s - n * s + 1.0 / s;
  std::vector<double> dm, ds;
  for (int r = 0; r < 300; ++r) {
    auto g = value_and_grad(
        [&](const Tensor& loc, const Tensor& scale) {
          auto guide = [&] { Normal(loc, scale, "z"); };
          return elbo(gaussian_model, guide, random::Key(variate::testing::test_seed(std::uint64_t(100 + r))),
                      {.particles = 5})
              .surrogate;
        },
        Tensor(m), Tensor(s));
    dm.push_back(g.grads[0].item());
    ds.push_back(g.grads[1].item());
  }
  expect_z_score_below(mean_error(dm), exact_dm, 4.0, "dELBO/dm");
  expect_z_score_below(mean_error(ds), exact_ds, 4.0, "dELBO/ds");
}

// z ~ Bernoulli(0.3), x ~ N(2 z, 1) observed at 1.2; the guide is Bernoulli(logits = theta).
void bernoulli_model() {
  auto z = Bernoulli(Probs{0.3}, "z");
  tracing::Condition data({{"x", 1.2}});
  Normal(z * 2.0, 1.0, "x");
}

TEST(Elbo, ScoreFunctionEstimateAndGradientAreUnbiasedOnABernoulliLatent) {
  const double theta = 0.4, pi = 1.0 / (1.0 + std::exp(-theta));
  auto log_normal = [](double x, double mu) { return -0.5 * kLog2Pi - 0.5 * (x - mu) * (x - mu); };
  const double lp1 = std::log(0.3) + log_normal(1.2, 2.0), lp0 = std::log(0.7) + log_normal(1.2, 0.0);
  const double exact = pi * (lp1 - std::log(pi)) + (1 - pi) * (lp0 - std::log(1 - pi));
  const double exact_grad = pi * (1 - pi) * ((lp1 - std::log(pi)) - (lp0 - std::log(1 - pi)));
  std::vector<double> values, grads;
  for (int r = 0; r < 1000; ++r) {
    auto g = value_and_grad(
        [&](const Tensor& logits) {
          auto guide = [&] { Bernoulli(Logits{logits}, "z"); };
          return elbo(bernoulli_model, guide, random::Key(variate::testing::test_seed(std::uint64_t(5000 + r))),
                      {.particles = 4})
              .surrogate;
        },
        Tensor(theta));
    values.push_back(g.value.item());
    grads.push_back(g.grads[0].item());
  }
  expect_z_score_below(mean_error(values), exact, 4.0, "ELBO");
  const MeanError grad = mean_error(grads);
  expect_z_score_below(grad, exact_grad, 4.0, "dELBO/dtheta");
  // Not trivially satisfied: the gradient is resolved from zero.
  EXPECT_GT(std::abs(grad.mean) / grad.error, 4.0);
}

TEST(Iwae, LiesAboveTheElboAndApproachesTheEvidence) {
  const double m = 0.7, s = 0.6;
  auto guide = [&] { Normal(m, s, "z"); };
  auto iwae_mean = [&](int k) {
    std::vector<double> xs;
    for (int r = 0; r < 200; ++r)
      xs.push_back(iwae_bound(gaussian_model, guide, random::Key(variate::testing::test_seed(std::uint64_t(9000 + r))),
                              {.particles = k})
                       .value);
    return mean_error(xs);
  };
  const double elbo_exact = exact_gaussian_elbo(m, s), evidence = exact_log_evidence();
  const MeanError k1 = iwae_mean(1), k5 = iwae_mean(5), k50 = iwae_mean(50);
  expect_z_score_below(k1, elbo_exact, 4.0, "IWAE with K = 1 is the ELBO");
  EXPECT_GT((k5.mean - elbo_exact) / k5.error, 4.0) << "IWAE(5) " << k5.mean << " vs ELBO " << elbo_exact;
  EXPECT_LT(k50.mean, evidence + 4.0 * k50.error);
  // The gap to log p(x) shrinks like Var(w) / 2K: at K = 50 well under a fifth of the ELBO's gap.
  EXPECT_LT(evidence - k50.mean, 0.2 * (evidence - elbo_exact)) << "IWAE(50) " << k50.mean << ", log p(x) " << evidence;
}

TEST(Elbo, ErrorsNameTheSite) {
  auto empty_guide = [] {};
  EXPECT_ERROR(elbo(gaussian_model, empty_guide, random::Key(0)), "latent site 'z' of the model has no site");
  auto extra_guide = [] {
    Normal(0.0, 1.0, "z");
    Normal(0.0, 1.0, "w");
  };
  EXPECT_ERROR(elbo(gaussian_model, extra_guide, random::Key(0)), "w");
  auto discrete_guide = [] { Bernoulli(Probs{0.5}, "z"); };
  EXPECT_ERROR(iwae_bound(bernoulli_model, discrete_guide, random::Key(0), {.particles = 2}),
               "guide site 'z' is discrete");
  EXPECT_ERROR(elbo(gaussian_model, empty_guide, random::Key(0), {.particles = 0}), "particles must be >= 1");
  auto normal_guide = [] { Normal(0.0, 1.0, "z"); };
  EXPECT_ERROR(iwae_bound(gaussian_model, normal_guide, random::Key(0), {.analytic_kl = true}),
               "analytic_kl applies to the ELBO only");
}

}  // namespace
}  // namespace variate::inference
