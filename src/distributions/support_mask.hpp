#pragma once
#include <cmath>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

/// Which elements of a value lie outside a scalar family's support (NaN does not: it keeps its NaN log
/// density), computed once for the two uses a log density makes of it.
class SupportMask {
 public:
  SupportMask(const Constraint& support, const Tensor& x) {
    VARIATE_CHECK(support.event_ndims() == 0, "SupportMask", "expected a scalar support, got ", support.str());
    const autodiff::NoRecording mask_only;
    outside_ = outside_support(support, x);
  }
  /// `x` with the elements outside replaced by `fill`, a point inside the support. A density and its
  /// partials computed from the result are finite where `x` is outside, so the zero cotangent that
  /// mask() routes there cannot meet an infinite partial (0 * inf = NaN) in the backward pass. A
  /// value computation: call it with recording paused (autodiff::NoRecording), as a family
  /// computes its log density.
  Tensor inside_or(const Tensor& x, const Tensor& fill) const { return where(outside_, cast(fill, x.dtype()), x); }
  /// `log_prob` inside the support, -inf outside.
  Tensor mask(const Tensor& log_prob) const {
    return where(outside_, Tensor::scalar(-INFINITY, log_prob.dtype()), log_prob);
  }

 private:
  // The continuous supports test for the outside directly: a comparison with NaN is false, so NaN
  // stays inside with no test of its own, and a replayed gradient runs at most three ops per site
  // where the support test and a NaN test took five.
  static Tensor outside_support(const Constraint& c, const Tensor& x) {
    using K = Constraint::Kind;
    switch (c.kind) {
      case K::real: return eq(abs(x), INFINITY);
      case K::positive: return logical_or(le(x, 0.0), eq(x, INFINITY));
      case K::unit_interval: return logical_or(le(x, 0.0), ge(x, 1.0));
      case K::interval: return logical_or(le(x, c.low), ge(x, c.high));
      case K::greater_than: return logical_or(le(x, c.low), eq(x, INFINITY));
      case K::less_than: return logical_or(ge(x, c.high), eq(x, -INFINITY));
      default: return logical_not(logical_or(in_support(c, x), ne(x, x)));
    }
  }

  Tensor outside_;
};

}  // namespace variate::dist
