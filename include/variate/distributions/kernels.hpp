#pragma once
// Positive-semidefinite kernels for GaussianProcess (TFP's tfp.math.psd_kernels, NumPyro's
// examples): k(x, x') on index points of shape (..., N, F), F features last (a 1-d tensor (N) is
// N points of one feature). Hyperparameters are tensors, possibly other model parameters: every
// kernel is written in differentiable ops, and its argument checks are recorded with host_check, so
// a model that computes them is replayed (tensor/replay.hpp).
#include <memory>

#include "variate/autodiff/ops.hpp"

namespace variate::dist {

/// A positive-definite covariance function k(x, x') of a Gaussian process.
class Kernel {
 public:
  virtual ~Kernel() = default;
  /// The kernel's name as TFP spells it ("ExponentiatedQuadratic"), used in error messages.
  virtual const char* name() const = 0;
  /// The matrix k(x1_i, x2_j), of shape (..., N, M) for x1 (..., N, F) and x2 (..., M, F), the
  /// hyperparameters' batch shape broadcast in front.
  virtual Tensor matrix(const Tensor& x1, const Tensor& x2) const = 0;
};

/// A stationary kernel amplitude^2 * f(r) of the scaled distance r = |x - x'| / length_scale.
/// amplitude and length_scale are positive, of any batch shape that broadcasts against the index
/// points' leading dims. Where r = 0 (the diagonal) the derivative of sqrt is kept finite: r is
/// computed as sqrt of the squared distance only where that is positive.
class StationaryKernel : public Kernel {
 public:
  /// The amplitude: k = amplitude^2 * f(r).
  const Tensor& amplitude() const { return amplitude_; }
  /// The length scale that divides the distance.
  const Tensor& length_scale() const { return length_scale_; }
  Tensor matrix(const Tensor& x1, const Tensor& x2) const final;

 protected:
  /// Checks that amplitude and length_scale are positive, naming `family` if not.
  StationaryKernel(const char* family, Tensor amplitude, Tensor length_scale);
  /// f as a function of the squared scaled distance r^2 (..., N, M).
  virtual Tensor profile(const Tensor& r2) const = 0;
  /// r itself, with a finite derivative at r = 0.
  static Tensor distance(const Tensor& r2);

 private:
  Tensor amplitude_, length_scale_;
};

/// k = amplitude^2 exp(-r^2 / 2) (the squared exponential; Rasmussen & Williams 2006, eq. 4.9).
class ExponentiatedQuadratic final : public StationaryKernel {
 public:
  ExponentiatedQuadratic(Tensor amplitude, Tensor length_scale);
  const char* name() const override { return "ExponentiatedQuadratic"; }

 private:
  Tensor profile(const Tensor& r2) const override;
};

/// Matern nu = 1/2: k = amplitude^2 exp(-r) (Rasmussen & Williams 2006, eq. 4.14 ff.).
class Matern12 final : public StationaryKernel {
 public:
  Matern12(Tensor amplitude, Tensor length_scale);
  const char* name() const override { return "Matern12"; }

 private:
  Tensor profile(const Tensor& r2) const override;
};

/// Matern nu = 3/2: k = amplitude^2 (1 + sqrt(3) r) exp(-sqrt(3) r) (Rasmussen & Williams 2006,
/// eq. 4.17).
class Matern32 final : public StationaryKernel {
 public:
  Matern32(Tensor amplitude, Tensor length_scale);
  const char* name() const override { return "Matern32"; }

 private:
  Tensor profile(const Tensor& r2) const override;
};

/// Matern nu = 5/2: k = amplitude^2 (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r) (Rasmussen &
/// Williams 2006, eq. 4.17).
class Matern52 final : public StationaryKernel {
 public:
  Matern52(Tensor amplitude, Tensor length_scale);
  const char* name() const override { return "Matern52"; }

 private:
  Tensor profile(const Tensor& r2) const override;
};

/// The periodic (exp-sine-squared) kernel of MacKay (1998; Rasmussen & Williams 2006, eq. 4.31):
///   k = amplitude^2 exp(-2 sum_f sin^2(pi (x_f - x'_f) / period) / length_scale^2),
/// summed over the features f (TFP's ExpSinSquared). amplitude, length_scale and period are
/// positive, of any batch shape that broadcasts against the index points' leading dims. Points a
/// whole number of periods apart are perfectly correlated.
class Periodic final : public Kernel {
 public:
  Periodic(Tensor amplitude, Tensor length_scale, Tensor period);
  const char* name() const override { return "Periodic"; }
  const Tensor& amplitude() const { return amplitude_; }
  const Tensor& length_scale() const { return length_scale_; }
  const Tensor& period() const { return period_; }
  Tensor matrix(const Tensor& x1, const Tensor& x2) const override;

 private:
  Tensor amplitude_, length_scale_, period_;
};

}  // namespace variate::dist
