#pragma once
#include "variate/distributions/distribution.hpp"
#include "variate/distributions/kernels.hpp"
#include "variate/distributions/multivariate_normal.hpp"

namespace variate::dist {

/// GaussianProcess(kernel, index_points X, observation_noise_variance s2, mean m): the values of a
/// Gaussian process at the N index points (event shape [N]), i.e. TFP's tfd.GaussianProcess and
/// NumPyro's GP examples, as the MultivariateNormal
///   f(X) ~ N(m, K(X, X) + (s2 + jitter) I)
/// (Rasmussen & Williams 2006, eq. 2.30 for the log marginal likelihood). X is (N) or (..., N, F);
/// m is a tensor of values at the index points broadcasting against (..., N) (zero when undefined);
/// s2 >= 0 broadcasts against the batch. `jitter` (default 1e-6, TFP's default) is added to the
/// diagonal so that the Cholesky factorization of a kernel matrix that is numerically singular
/// (points close together relative to the length scale) still succeeds; it adds jitter to the
/// variance of every value, so a noise-free GP is one with s2 = 0. Batch shape = the broadcast of
/// the kernel's, X's and s2's batch dims and m's leading dims. Everything is differentiable: the
/// kernel's hyperparameters, X, s2 and m may be other model parameters. Samples are reparameterized.
class GaussianProcess final : public Distribution {
 public:
  GaussianProcess(const Kernel& kernel, Tensor index_points, Tensor observation_noise_variance = Tensor::scalar(0.0),
                  Tensor mean = {}, double jitter = 1e-6);

  const char* name() const override { return "GaussianProcess"; }
  /// K(X, X) + (s2 + jitter) I, (..., N, N).
  const Tensor& covariance_matrix() const { return covariance_; }
  /// The equivalent multivariate normal.
  const MultivariateNormal& marginal() const { return mvn_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override {
    return mvn_.sample(key, sample_shape);
  }
  Tensor log_prob(const Tensor& value) const override { return mvn_.log_prob(value); }
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override { return mvn_.mean(); }
  Tensor variance() const override { return mvn_.variance(); }

 private:
  struct Parts {
    Tensor covariance;
    MultivariateNormal mvn;
  };
  explicit GaussianProcess(Parts parts);
  static Parts build(const Kernel& kernel, const Tensor& index_points, const Tensor& noise, const Tensor& mean,
                     double jitter);
  Tensor covariance_;
  MultivariateNormal mvn_;
};

}  // namespace variate::dist
