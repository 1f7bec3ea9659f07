#include "variate/distributions/transformed_distribution.hpp"

#include <cmath>

#include "distributions/sum_rightmost.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {
namespace {

// Called in every base-initializer argument: their order of evaluation is unspecified.
const Distribution& checked(const DistributionPtr& base, const BijectorPtr& bijector) {
  VARIATE_CHECK(base != nullptr, "TransformedDistribution", "the base distribution is null");
  VARIATE_CHECK(bijector != nullptr, "TransformedDistribution", "the bijector is null");
  VARIATE_CHECK(base->event_shape().rank() >= bijector->forward_event_ndims(), "TransformedDistribution",
                "the bijector ", bijector->name(), " acts on ", bijector->forward_event_ndims(),
                " trailing axes but the base ", base->name(), " has event shape ", base->event_shape(),
                " (wrap the base in Independent to turn batch axes into event axes)");
  return *base;
}

// Whether every element along the last `n` axes is true.
Tensor all_rightmost(const Tensor& mask, int n) { return n == 0 ? mask : all(mask, detail::rightmost_axes(n)); }

}  // namespace

TransformedDistribution::TransformedDistribution(DistributionPtr distribution, BijectorPtr bijector)
    : Distribution(checked(distribution, bijector).batch_shape(),
                   bijector->forward_shape(checked(distribution, bijector).event_shape()),
                   checked(distribution, bijector).dtype()),
      base_(std::move(distribution)),
      bijector_(std::move(bijector)) {
  // A bijector that cannot name its image still gives draws and densities; only support() and the
  // -inf outside the support need the image.
  try {
    support_ = bijector_->forward_image(base_->support());
  } catch (const Error&) {
    support_.reset();
  }
}

Tensor TransformedDistribution::sample(random::Key key, const Shape& sample_shape) const {
  return bijector_->forward(base_->sample(key, sample_shape));
}

Tensor TransformedDistribution::log_prob(const Tensor& value) const {
  const Tensor y = dist::as_dtype(value, dtype());
  const int event = event_shape().rank();
  if (!support_) return log_prob_inside(y, event);
  // Outside the image the inverse is NaN (log of a negative number); such values get -inf. An
  // element-wise NaN value keeps its NaN density, as dist::mask_outside_support does.
  Tensor keep = dist::in_support(*support_, y);
  Tensor evaluated_at = y;
  if (support_->event_ndims() == 0) {
    keep = logical_or(keep, ne(y, y));
    // The base's partials at a NaN inverse would turn the masked -inf into NaN gradients, so
    // values outside the image are evaluated at an inside point (the image of 0) instead. 0 itself
    // lies in a real image: a flow (real vectors onto real vectors) needs no forward pass for it,
    // which for a MAF would take D network passes.
    const Tensor zero = Tensor::zeros(Shape{}, dtype());
    const Tensor inside =
        support_->kind == Constraint::Kind::real ? zero : autodiff::stop_gradient(bijector_->forward(zero));
    evaluated_at = where(keep, y, inside);
  }
  keep = all_rightmost(keep, event - support_->event_ndims());
  const Tensor lp = log_prob_inside(evaluated_at, event);
  return where(keep, lp, Tensor::scalar(-INFINITY, lp.dtype()));
}

Tensor TransformedDistribution::log_prob_inside(const Tensor& y, int event) const {
  return base_->log_prob(bijector_->inverse(y)) +
         detail::sum_rightmost(bijector_->inverse_log_det_jacobian(y), event - bijector_->inverse_event_ndims());
}

Constraint TransformedDistribution::support() const {
  if (support_) return *support_;
  return bijector_->forward_image(base_->support());  // throws, naming the bijector and the support
}

}  // namespace variate::dist
