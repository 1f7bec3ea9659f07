#include "distributions/ordinal.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist::detail {

Shape ordinal_batch(const char* family, const Tensor& predictor, const Tensor& cutpoints) {
  check_min_rank(family, "cutpoints", cutpoints, 1, "(..., K - 1) with the K - 1 cutpoints of K categories last");
  VARIATE_CHECK(cutpoints.dim(-1) >= 1, family, "cutpoints must hold at least one cutpoint, got shape ",
                cutpoints.shape());
  dist::check_finite(family, "predictor", predictor);
  dist::check_finite(family, "cutpoints", cutpoints);
  const std::int64_t n = cutpoints.dim(-1);
  if (n > 1) {
    const autodiff::NoRecording check_only;
    dist::check_ordered(family, "each cutpoint", slice(cutpoints, -1, 0, n - 1), "the next one",
                        slice(cutpoints, -1, 1, n));
  }
  return broadcast_shapes(family, predictor.shape(), drop_trailing(cutpoints.shape(), 1));
}

Tensor ordinal_log_prob(const Tensor& log_probs, const Tensor& value, const Shape& batch_shape) {
  const DType ft = log_probs.dtype();
  const std::int64_t k = log_probs.dim(-1);
  const Constraint support = Constraint::integer_interval(Tensor::scalar(0.0, ft), Tensor::scalar(double(k - 1), ft));
  const Tensor x = dist::as_dtype(value, ft);
  Shape shape = broadcast_shapes("ordinal log_prob", x.shape(), batch_shape);
  // Values outside the support index category 0 and are masked to -inf below.
  const Tensor inside = dist::in_support(support, x);
  Tensor index;
  {
    const autodiff::NoRecording discrete_index;
    index = expand_dims(broadcast_to(cast(where(inside, x, Tensor::scalar(0.0, ft)), DType::i64), shape), -1);
  }
  shape.push_back(k);
  const Tensor picked = squeeze(gather(broadcast_to(log_probs, shape), -1, index), -1);
  return dist::mask_outside_support(support, x, picked);
}

Tensor ordinal_sample(const char* family, random::Key key, const Tensor& log_probs, const Shape& full_shape,
                      const Tensor& predictor, const Tensor& cutpoints) {
  const Tensor draw = random::categorical(key, autodiff::stop_gradient(log_probs), full_shape);
  return without_draw_gradient(family, "a discrete law has no reparameterization", draw, {predictor, cutpoints});
}

}  // namespace variate::dist::detail
