#include "variate/distributions/mixture_same_family.hpp"

#include <cmath>

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {
namespace {

// Called in every base-initializer argument: their order of evaluation is unspecified.
const Distribution& not_null(const DistributionPtr& components) {
  VARIATE_CHECK(components != nullptr, "MixtureSameFamily", "the components distribution is null");
  return *components;
}

Shape without_last(const Shape& s) { return Shape(s.dims().first(std::size_t(s.rank() - 1))); }

// Checks the arguments and returns the batch shape.
Shape mixture_batch(const Tensor& logits, const DistributionPtr& components) {
  not_null(components);
  dist::check_defined("MixtureSameFamily", "mixture_logits", logits);
  VARIATE_CHECK(logits.rank() >= 1, "MixtureSameFamily",
                "mixture_logits must have a component axis (shape (..., K)), got shape ", logits.shape());
  const Shape& batch = components->batch_shape();
  VARIATE_CHECK(batch.rank() >= 1 && batch.dim(-1) == logits.dim(-1), "MixtureSameFamily",
                "the components' batch shape must end in the number of components ", logits.dim(-1),
                " (the last axis of mixture_logits), got the ", components->name(), " batch shape ", batch);
  // Made with host_check (check_each), so that computed logits are checked again at each replay.
  dist::check_not_nan("MixtureSameFamily", "mixture_logits", logits);
  dist::check_each("MixtureSameFamily", "mixture_logits", logits, "below +inf", [](double v) { return v < INFINITY; });
  return broadcast_shapes("MixtureSameFamily", without_last(logits.shape()), without_last(batch));
}

Shape concat_shapes(const Shape& a, const Shape& b) {
  Shape s = a;
  for (auto d : b) s.push_back(d);
  return s;
}

}  // namespace

MixtureSameFamily::MixtureSameFamily(Tensor mixture_logits, DistributionPtr components_distribution)
    : Distribution(mixture_batch(mixture_logits, components_distribution),
                   not_null(components_distribution).event_shape(), not_null(components_distribution).dtype()),
      logits_(dist::as_dtype(mixture_logits, components_distribution->dtype())),
      components_(std::move(components_distribution)) {}

Tensor MixtureSameFamily::log_prob(const Tensor& value) const {
  const int event = event_shape().rank();
  VARIATE_CHECK(value.rank() >= event, "MixtureSameFamily", "expected values with the event shape ", event_shape(),
                " as trailing axes, got shape ", value.shape());
  // A component axis in front of the event axes makes every component score every value.
  const Tensor per_component = components_->log_prob(expand_dims(value, value.rank() - event));
  const int last[] = {-1};
  return logsumexp(log_softmax(logits_, -1) + per_component, last);
}

Tensor MixtureSameFamily::sample(random::Key key, const Shape& sample_shape) const {
  const auto [index_key, draws_key] = random::split(key);
  const Shape leading = concat_shapes(sample_shape, batch_shape());
  const Tensor index = random::categorical(index_key, autodiff::stop_gradient(logits_), leading);
  // Every component draws; the chosen one is gathered. Leading batch axes that only the logits have
  // become extra sample axes of the components, so every batch member gets its own draws.
  const int own = components_->batch_shape().rank() - 1;  // the components' batch axes, without K
  const int extra = batch_shape().rank() - own;
  Shape draw_shape = sample_shape;
  for (int i = 0; i < extra; ++i) draw_shape.push_back(batch_shape()[i]);
  for (int i = 0; i < own; ++i)
    VARIATE_CHECK(components_->batch_shape()[i] == batch_shape()[extra + i], "MixtureSameFamily",
                  "sampling needs the components' batch shape ", components_->batch_shape(),
                  " to match the mixture's batch shape ", batch_shape(),
                  " on its trailing axes (no size-1 broadcasting)");
  const Tensor draws = components_->sample(draws_key, draw_shape);
  Shape index_shape = concat_shapes(leading, Shape{1});
  for (int i = 0; i < event_shape().rank(); ++i) index_shape.push_back(1);
  const int axis = leading.rank();
  // The chosen component's draw keeps its gradient in the component parameters; the choice itself
  // is discrete, so there is none in the mixture logits.
  const Tensor draw = squeeze(gather(draws, axis, reshape(index, index_shape.dims())), axis);
  return dist::detail::without_draw_gradient(name(),
                                             "the choice of component is discrete; the draw is differentiable "
                                             "in the components' parameters only",
                                             draw, {logits_});
}

Tensor MixtureSameFamily::weights() const {
  Shape shape = logits_.shape();
  for (int i = 0; i < event_shape().rank(); ++i) shape.push_back(1);
  return reshape(softmax(logits_, -1), shape.dims());
}

Tensor MixtureSameFamily::sum_components(const Tensor& x) const {
  const int axis[] = {-1 - event_shape().rank()};
  return sum(x, axis);
}

Tensor MixtureSameFamily::mean() const { return sum_components(weights() * components_->mean()); }

Tensor MixtureSameFamily::variance() const {
  const Tensor w = weights(), means = components_->mean();
  // Deviations of the component means from the mixture mean, not E[x^2] - mean^2, which cancels
  // when the means are large compared with the spread.
  const Tensor mixture_mean = expand_dims(sum_components(w * means), -1 - event_shape().rank());
  return sum_components(w * (components_->variance() + square(means - mixture_mean)));
}

}  // namespace variate::dist
