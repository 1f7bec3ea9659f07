#pragma once
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

/// `x` with the elements outside `support` replaced by `fill`, a point inside it (NaN stays NaN, as
/// mask_outside_support keeps it). A density and its partials computed from the result are finite
/// where `x` is outside, so the zero cotangent that the mask routes there cannot meet an infinite
/// partial (0 * inf = NaN) in the backward pass. A value computation: call it with recording paused
/// (autodiff::NoRecording), as a family computes its log density.
inline Tensor inside_or(const Constraint& support, const Tensor& x, const Tensor& fill) {
  return where(logical_or(in_support(support, x), ne(x, x)), x, cast(fill, x.dtype()));
}

}  // namespace variate::dist
