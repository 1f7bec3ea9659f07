#include "variate/distributions/independent.hpp"

#include "distributions/sum_rightmost.hpp"

namespace variate::dist {

Independent::Layout Independent::layout(const DistributionPtr& base, std::optional<int> reinterpreted_batch_ndims) {
  VARIATE_CHECK(base != nullptr, "Independent", "the base distribution is null");
  const Shape& batch = base->batch_shape();
  const int n = reinterpreted_batch_ndims.value_or(batch.rank());
  VARIATE_CHECK(n >= 0 && n <= batch.rank(), "Independent", "reinterpreted_batch_ndims must be in [0, ", batch.rank(),
                "] (the rank of the base ", base->name(), "'s batch shape ", batch, "), got ", n);
  Layout out{Shape(batch.dims().first(std::size_t(batch.rank() - n))), Shape(batch.dims().last(std::size_t(n))), n};
  for (auto d : base->event_shape()) out.event_shape.push_back(d);
  return out;
}

Independent::Independent(DistributionPtr base, std::optional<int> reinterpreted_batch_ndims)
    : Independent(base, layout(base, reinterpreted_batch_ndims)) {}

Independent::Independent(DistributionPtr base, const Layout& layout)
    : Distribution(layout.batch_shape, layout.event_shape, base->dtype()),
      base_(std::move(base)),
      ndims_(layout.ndims) {}

Tensor Independent::sample(random::Key key, const Shape& sample_shape) const {
  return base_->sample(key, sample_shape);
}

Tensor Independent::log_prob(const Tensor& value) const {
  return detail::sum_rightmost(base_->log_prob(value), ndims_);
}

}  // namespace variate::dist
