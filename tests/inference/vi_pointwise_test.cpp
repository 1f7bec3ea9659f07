// Bounds per data point (ElboOptions::batch_ndims) on a linear-Gaussian VAE over a minibatch:
// under the exact posterior every log weight is log p(x_b), so the importance-weighted estimate
// equals the closed-form evidence of each data point for any number of particles; the bookkeeping
// (shapes, sums, the ELBO unchanged) and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "support/linear_gaussian_vae.hpp"
#include "variate/inference/vi_elbo.hpp"

namespace variate::inference {
namespace {

using testing::LinearGaussianVae;

TEST(PointwiseBound, ExactPosteriorGivesEachDataPointsEvidenceForAnyK) {
  const LinearGaussianVae vae(random::Key(1), 6);
  auto model = [&] { vae.model(); };
  const Tensor loc = vae.posterior_loc(), covariance = vae.posterior_covariance();
  auto guide = [&] { MultivariateNormalFullCovariance(loc, covariance, "z"); };
  const std::vector<double> exact = vae.log_evidence().to_vector<double>();
  for (int k : {1, 7}) {
    const ElboEstimate e = iwae_bound(model, guide, random::Key(2), {.particles = k, .batch_ndims = 1});
    ASSERT_EQ(e.pointwise.shape(), Shape{6});
    ASSERT_EQ(e.log_weights.shape(), (Shape{k, 6}));
    const std::vector<double> got = e.pointwise.to_vector<double>();
    double total = 0;
    for (std::size_t b = 0; b < exact.size(); ++b) {
      EXPECT_NEAR(got[b], exact[b], 1e-9) << "K = " << k << ", data point " << b;
      total += exact[b];
    }
    EXPECT_NEAR(e.value, total, 1e-8) << "the bound is the sum over the data points";
  }
}

TEST(PointwiseBound, IwaeTakesTheLogMeanExpPerDataPoint) {
  const LinearGaussianVae vae(random::Key(3), 5);
  auto model = [&] { vae.model(); };
  const Tensor loc = vae.posterior_loc() + 0.4;
  auto guide = [&] { Normal(loc, 0.3, "z"); };
  const int k = 4;
  const ElboEstimate e = iwae_bound(model, guide, random::Key(4), {.particles = k, .batch_ndims = 1});
  const std::vector<double> w = e.log_weights.to_vector<double>(), bound = e.pointwise.to_vector<double>();
  double total = 0;
  for (std::size_t b = 0; b < 5; ++b) {
    double m = -INFINITY, s = 0;
    for (int i = 0; i < k; ++i) m = std::max(m, w[std::size_t(i) * 5 + b]);
    for (int i = 0; i < k; ++i) s += std::exp(w[std::size_t(i) * 5 + b] - m);
    EXPECT_NEAR(bound[b], m + std::log(s / k), 1e-10) << "data point " << b;
    total += bound[b];
  }
  EXPECT_NEAR(e.value, total, 1e-9);
  // The same particles weighed as one point give the bound of the whole minibatch, which is lower.
  const ElboEstimate joint = iwae_bound(model, guide, random::Key(4), {.particles = k});
  EXPECT_LT(joint.value, e.value);
}

TEST(PointwiseBound, TheElboIsTheSameWithOrWithoutDataDims) {
  const LinearGaussianVae vae(random::Key(5), 5);
  auto model = [&] { vae.model(); };
  const Tensor loc = vae.posterior_loc() - 0.2;
  auto guide = [&] { Normal(loc, 0.4, "z"); };
  for (bool analytic_kl : {false, true}) {
    const ElboEstimate flat = elbo(model, guide, random::Key(6), {.particles = 3, .analytic_kl = analytic_kl});
    const ElboEstimate per_point =
        elbo(model, guide, random::Key(6), {.particles = 3, .analytic_kl = analytic_kl, .batch_ndims = 1});
    EXPECT_NEAR(per_point.value, flat.value, 1e-9) << "analytic_kl " << analytic_kl;
    EXPECT_NEAR(per_point.standard_error, flat.standard_error, 1e-9);
    EXPECT_NEAR(per_point.surrogate.item(), flat.surrogate.item(), 1e-9);
    ASSERT_EQ(per_point.log_weights.shape(), (Shape{3, 5}));
    EXPECT_NEAR(sum(per_point.pointwise).item(), per_point.value, 1e-9);
    EXPECT_FALSE(flat.pointwise.defined());
  }
}

TEST(PointwiseBound, ASiteWithoutTheDataDimIsAnErrorNamingIt) {
  const LinearGaussianVae vae(random::Key(7), 3);
  // One observed value for the whole minibatch: not per data point.
  auto model = [&] {
    vae.model();
    tracing::Condition data({{"total", 1.0}});
    Normal(0.0, 1.0, "total");
  };
  auto guide = [&] { Normal(Tensor::zeros(Shape{3, 2}), 1.0, "z"); };
  EXPECT_ERROR(iwae_bound(model, guide, random::Key(8), {.particles = 2, .batch_ndims = 1}),
               "site 'total' has shape []; every site needs the 1 leading dims");
  auto scalar_guide = [&] { Normal(0.0, 1.0, "z"); };
  EXPECT_ERROR(iwae_bound([&] { vae.model(); }, scalar_guide, random::Key(8), {.particles = 2, .batch_ndims = 1}),
               "guide site 'z' has shape []");
  EXPECT_ERROR(elbo(model, guide, random::Key(8), {.batch_ndims = -1}), "batch_ndims must be >= 0");
}

}  // namespace
}  // namespace variate::inference
