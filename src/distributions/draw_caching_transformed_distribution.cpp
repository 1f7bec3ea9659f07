#include "variate/distributions/draw_caching_transformed_distribution.hpp"

#include "distributions/sum_rightmost.hpp"

namespace variate::dist {

DrawCachingTransformedDistribution::DrawCachingTransformedDistribution(DistributionPtr distribution,
                                                                       BijectorPtr bijector)
    : DrawCachingTransformedDistribution(
          std::make_shared<const TransformedDistribution>(std::move(distribution), std::move(bijector))) {}

DrawCachingTransformedDistribution::DrawCachingTransformedDistribution(
    std::shared_ptr<const TransformedDistribution> exact)
    : Distribution(exact->batch_shape(), exact->event_shape(), exact->dtype()), exact_(std::move(exact)) {}

Tensor DrawCachingTransformedDistribution::sample(random::Key key, const Shape& sample_shape) const {
  Draw draw;
  draw.x = exact_->distribution()->sample(key, sample_shape);
  draw.y = exact_->bijector()->forward(draw.x);
  draw.writes = draw.y.write_count();
  const std::lock_guard lock(mutex_);
  last_ = draw;
  return draw.y;
}

bool DrawCachingTransformedDistribution::is_last_draw(const Tensor& value, Draw& draw) const {
  {
    const std::lock_guard lock(mutex_);
    draw = last_;
  }
  // The same storage, shape and dtype, unwritten since the draw: the very tensor sample returned
  // (or a handle to it), whose pre-image is draw.x.
  // (Through a const reference: the non-const raw() would count a write.)
  const Tensor& y = draw.y;
  return y.defined() && value.defined() && value.dtype() == y.dtype() && value.shape() == y.shape() &&
         value.raw() == y.raw() && value.write_count() == draw.writes;
}

Tensor DrawCachingTransformedDistribution::log_prob(const Tensor& value) const {
  Draw draw;
  if (!is_last_draw(value, draw)) return exact_->log_prob(value);
  const Bijector& f = *exact_->bijector();
  const int leftover = exact_->distribution()->event_shape().rank() - f.forward_event_ndims();
  return exact_->distribution()->log_prob(draw.x) - detail::sum_rightmost(f.forward_log_det_jacobian(draw.x), leftover);
}

}  // namespace variate::dist
