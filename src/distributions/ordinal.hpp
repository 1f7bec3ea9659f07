#pragma once
// What OrderedLogistic and OrderedProbit share (private to src/distributions): the checks on the
// predictor and the cutpoints, the log probability of a category, and drawing one.
#include "variate/distributions/distribution.hpp"

namespace variate::dist::detail {

/// Checks the cutpoints (rank >= 1, at least one, finite, strictly increasing along the last axis)
/// and the predictor (finite), naming `family`; returns the batch shape.
Shape ordinal_batch(const char* family, const Tensor& predictor, const Tensor& cutpoints);

/// log_probs (..., K) picked at the categories `value` (0..K-1), -inf outside; differentiable in
/// log_probs.
Tensor ordinal_log_prob(const Tensor& log_probs, const Tensor& value, const Shape& batch_shape);

/// Categories drawn from log_probs (..., K), i64, sample_shape + batch; a gradient of a draw with
/// respect to `predictor` or `cutpoints` throws naming `family` (a string literal).
Tensor ordinal_sample(const char* family, random::Key key, const Tensor& log_probs, const Shape& full_shape,
                      const Tensor& predictor, const Tensor& cutpoints);

}  // namespace variate::dist::detail
