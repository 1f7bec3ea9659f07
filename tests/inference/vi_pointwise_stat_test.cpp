// The K-sample importance estimate of each data point's log evidence, log (1/K) sum_k exp(w_k)
// (iwae_bound with batch_ndims, what a VAE's test negative log-likelihood is), on a linear-Gaussian
// VAE whose evidence and posterior are known in closed form, under a perturbed mean-field guide:
// at K = 1 its gap to log p(x) is KL(q || p(z | x)) exactly (checked through a z-score), and it
// closes as K grows (Burda et al. 2016, Theorem 1). Standard errors come from independent repeats;
// each check's threshold of 4 standard errors has a false-failure rate below 1e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/linear_gaussian_vae.hpp"
#include "support/test_seed.hpp"
#include "variate/inference/vi_elbo.hpp"

namespace variate::inference {
namespace {

using testing::LinearGaussianVae;

struct MeanError {
  double mean, error;
};

// The gap log p(x_b) - estimate_b (minus `offset_b`), averaged over the minibatch, in `repeats`
// independent runs: its mean and standard error.
MeanError mean_gap(const LinearGaussianVae& vae, const tracing::Program& guide, int particles, int repeats,
                   const Tensor& offset) {
  auto model = [&] { vae.model(); };
  const Tensor exact = vae.log_evidence();
  std::vector<double> gaps;
  for (int r = 0; r < repeats; ++r) {
    const ElboEstimate e =
        iwae_bound(model, guide, random::fold_in(random::Key(variate::testing::test_seed(20)), std::uint64_t(r)),
                   {.particles = particles, .batch_ndims = 1});
    gaps.push_back(mean(exact - e.pointwise - offset).item());
  }
  double total = 0, squares = 0;
  for (double g : gaps) total += g;
  const double m = total / repeats;
  for (double g : gaps) squares += (g - m) * (g - m);
  return {m, std::sqrt(squares / (repeats - 1) / repeats)};
}

TEST(ImportanceEstimate, ClosesTheGapToTheEvidenceAsKGrows) {
  const LinearGaussianVae vae(random::Key(10), 40);
  // A mean-field guide off the posterior: shifted means, scales 1.3 times the marginal ones.
  const Tensor loc = vae.posterior_loc() + Tensor::vec({0.3, -0.2});
  const Tensor scale = 1.3 * sqrt(diagonal(vae.posterior_covariance())) * Tensor::ones(Shape{40, 2});
  auto guide = [&] { Normal(loc, scale, "z"); };
  const Tensor kl = vae.kl_to_posterior(loc, scale);

  // K = 1: the ELBO, whose gap is the KL.
  const MeanError elbo_gap = mean_gap(vae, guide, 1, 400, kl);
  EXPECT_LT(std::abs(elbo_gap.mean) / elbo_gap.error, 4.0)
      << "gap - KL: " << elbo_gap.mean << " +- " << elbo_gap.error << " (KL " << mean(kl).item() << ")";

  const Tensor none = Tensor::zeros(Shape{40});
  const double kl_mean = mean(kl).item();
  double previous = kl_mean, previous_error = 0;
  for (const auto& [k, repeats] : std::vector<std::pair<int, int>>{{10, 200}, {100, 160}}) {
    const MeanError gap = mean_gap(vae, guide, k, repeats, none);
    // Each tenfold K closes a significant part of the gap, and the estimate stays a lower bound.
    EXPECT_LT(gap.mean, previous - 4.0 * std::hypot(gap.error, previous_error))
        << "K = " << k << ": gap " << gap.mean << " +- " << gap.error << ", at K / 10: " << previous;
    EXPECT_GT(gap.mean, -4.0 * gap.error) << "K = " << k << ": above log p(x)";
    previous = gap.mean, previous_error = gap.error;
  }
  // For large K the gap is about Var_q(p(x, z) / q(z)) / (2 K p(x)^2) (the delta method on the log
  // of a mean): about a hundredth of K = 10's at K = 1000, far below a twentieth of the KL.
  const MeanError gap = mean_gap(vae, guide, 1000, 20, none);
  EXPECT_GT(gap.mean, -4.0 * gap.error) << "K = 1000: above log p(x)";
  EXPECT_LT(gap.mean + 4.0 * gap.error, kl_mean / 20.0) << "K = 1000 leaves " << gap.mean << " +- " << gap.error;
}

}  // namespace
}  // namespace variate::inference
