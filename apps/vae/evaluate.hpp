#pragma once
// Scoring a trained VAE on binarized test images: the mean bound per image (the training curve),
// and the negative log-likelihood estimated by importance sampling with K samples per image,
// -log (1/K) sum_k p(x, z_k) / q(z_k | x), the IWAE paper's test measure (K = 5000 there).
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "programs.hpp"

namespace variate::cli::vae {

struct MeanAndError {
  double mean = 0;
  /// The standard error of the mean over the images (their spread / sqrt(count)).
  double standard_error = 0;
};

/// The mean of `values` and its standard error.
MeanAndError mean_and_error(const std::vector<double>& values);

/// The mean over `images` (0/1, (n, pixels)) of each image's bound, computed `chunk` images at a time.
MeanAndError mean_bound(const Vae& vae, const Tensor& images, const Bound& bound, random::Key key,
                        std::int64_t chunk = 500);

/// The estimate of -log p(x) with `samples` importance samples from the guide, for each of
/// `images`. An upper bound on the true negative log-likelihood in expectation, tight as `samples`
/// grows. A line per `chunk` images goes to `progress` when it is not null.
std::vector<double> test_negative_log_likelihoods(const Vae& vae, const Tensor& images, int samples, random::Key key,
                                                  std::ostream* progress = nullptr, std::int64_t chunk = 100);

}  // namespace variate::cli::vae
