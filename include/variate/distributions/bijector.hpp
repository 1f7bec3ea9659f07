#pragma once
// Bijectors (TFP semantics): differentiable invertible maps with log|det J|. Inference maps each
// latent site to the unconstrained space through its support's default bijector
// (distributions/default_bijector.hpp): y = forward(x) takes unconstrained x to the support.
#include <memory>

#include "variate/autodiff/ops.hpp"
#include "variate/distributions/constraint.hpp"

namespace variate {

/// An invertible, differentiable map y = f(x) with the log-determinant of its Jacobian (TFP's
/// bijectors): the default transforms of constrained supports and the layers of normalizing flows.
class Bijector {
 public:
  virtual ~Bijector() = default;
  /// The bijector's name as TFP spells it ("Exp"), used in error messages.
  virtual const char* name() const = 0;

  /// y = f(x), element-wise or over the event axes.
  virtual Tensor forward(const Tensor& x) const = 0;
  /// x = f^-1(y).
  virtual Tensor inverse(const Tensor& y) const = 0;
  /// log|det dforward/dx| at x, summed over the last `forward_event_ndims()` axes of x: element-wise
  /// bijectors return x's shape, vector bijectors x's shape without the event axes.
  virtual Tensor forward_log_det_jacobian(const Tensor& x) const = 0;
  /// log|det dinverse/dy| at y; by default -forward_log_det_jacobian(inverse(y)).
  virtual Tensor inverse_log_det_jacobian(const Tensor& y) const;

  /// Trailing axes that one input (x) value spans: 0 element-wise, 1 for StickBreaking and
  /// CorrCholesky (a vector of free parameters).
  virtual int forward_event_ndims() const { return 0; }
  /// Trailing axes that one output (y) value spans: 1 for StickBreaking (a simplex), 2 for
  /// CorrCholesky (a matrix).
  virtual int inverse_event_ndims() const { return forward_event_ndims(); }
  /// Shape of forward(x) for x of shape `x_shape`.
  virtual Shape forward_shape(const Shape& x_shape) const { return x_shape; }
  /// Shape of inverse(y) for y of shape `y_shape`.
  virtual Shape inverse_shape(const Shape& y_shape) const { return y_shape; }

  /// The set that forward maps `domain` onto (NumPyro's codomain, for a given domain), so that a
  /// TransformedDistribution knows its support: Exp maps real to positive, Shift(2) maps positive
  /// to greater_than(2). Throws naming the bijector for domains it does not know; the default knows
  /// none.
  virtual Constraint forward_image(const Constraint& domain) const;
};

using BijectorPtr = std::shared_ptr<const Bijector>;

}  // namespace variate
