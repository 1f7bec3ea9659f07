#pragma once
#include <cmath>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

/// Which elements of a value lie in a scalar family's support, NaN counted in (it keeps its NaN log
/// density), computed once for the two uses a log density makes of it.
class SupportMask {
 public:
  SupportMask(const Constraint& support, const Tensor& x) {
    VARIATE_CHECK(support.event_ndims() == 0, "SupportMask", "expected a scalar support, got ", support.str());
    const autodiff::NoRecording mask_only;
    keep_ = logical_or(in_support(support, x), ne(x, x));
  }
  /// `x` with the elements outside replaced by `fill`, a point inside the support. A density and its
  /// partials computed from the result are finite where `x` is outside, so the zero cotangent that
  /// mask() routes there cannot meet an infinite partial (0 * inf = NaN) in the backward pass. A
  /// value computation: call it with recording paused (autodiff::NoRecording), as a family
  /// computes its log density.
  Tensor inside_or(const Tensor& x, const Tensor& fill) const { return where(keep_, x, cast(fill, x.dtype())); }
  /// `log_prob` inside the support, -inf outside.
  Tensor mask(const Tensor& log_prob) const {
    return where(keep_, log_prob, Tensor::scalar(-INFINITY, log_prob.dtype()));
  }

 private:
  Tensor keep_;
};

}  // namespace variate::dist
