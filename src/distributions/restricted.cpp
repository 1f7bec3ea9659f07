#include "variate/distributions/restricted.hpp"

#include <cmath>
#include <vector>

#include "variate/distributions/parameters.hpp"
#include "variate/distributions/sample.hpp"

namespace variate::dist {
namespace {

using K = Constraint::Kind;

// Called in the base-initializer: the order of evaluation of its arguments is unspecified.
const Distribution& checked(const DistributionPtr& base) {
  VARIATE_CHECK(base != nullptr, "Restricted", "the base distribution is null");
  return *base;
}

bool has_bounds(const Constraint& c) { return c.low.defined() || c.high.defined(); }

}  // namespace

Restricted::Restricted(DistributionPtr base, Constraint support)
    : Distribution(checked(base).batch_shape(), checked(base).event_shape(), checked(base).dtype()),
      base_(std::move(base)),
      support_(std::move(support)) {
  const Constraint base_support = base_->support();
  VARIATE_CHECK(!support_.is_discrete(), "Restricted", "the support must be continuous, got ", support_.str());
  VARIATE_CHECK(!base_support.is_discrete(), "Restricted", "the base ", base_->name(), " is discrete (",
                base_support.str(), "); only continuous distributions can be restricted");
  VARIATE_CHECK(support_.event_ndims() <= event_shape().rank(), "Restricted", "the ", support_.str(),
                " support spans the last ", support_.event_ndims(), " axes, but the base ", base_->name(),
                " has event shape ", event_shape(), "; make them one event first (dist::Sample or dist::Independent)");
  if (support_.kind == base_support.kind && !has_bounds(support_) && !has_bounds(base_support)) {
    draws_ = Draws::base;
  } else if (support_.kind == K::ordered || support_.kind == K::positive_ordered) {
    // iid components: a Sample of a family whose own event is a scalar.
    const auto* iid = dynamic_cast<const Sample*>(base_.get());
    const bool scalar = iid != nullptr && iid->distribution()->event_shape().rank() == 0;
    const K kind = scalar ? iid->distribution()->support().kind : K::real;
    const bool positive = kind == K::positive || kind == K::unit_interval;
    if (scalar && (support_.kind == K::ordered || positive)) draws_ = Draws::sorted;
  }
}

Tensor Restricted::sample(random::Key key, const Shape& sample_shape) const {
  switch (draws_) {
    case Draws::base: return base_->sample(key, sample_shape);
    case Draws::sorted: return sort(base_->sample(key, sample_shape), -1);
    case Draws::none: break;
  }
  variate::detail::fail("Restricted::sample: no exact sampler for the base ", base_->name(), " restricted to the ",
                        support_.str(), " support of ", base_->support().str(),
                        " values (only the base's own support, or ordered / positive_ordered of iid draws, "
                        "dist::Sample of a scalar family, are drawn); inference starts such a site without draws");
}

Tensor Restricted::log_prob(const Tensor& value) const {
  const Tensor lp = base_->log_prob(value);
  const int e = support_.event_ndims();
  Tensor inside = in_support(support_, value);
  // A NaN element keeps its NaN density, as mask_outside_support does.
  if (e == 0) inside = logical_or(inside, ne(value, value));
  std::vector<int> extra;  // event axes of the base beyond those the support spans
  for (int i = 0; i < event_shape().rank() - e; ++i) extra.push_back(-1 - i);
  if (!extra.empty()) inside = all(inside, extra);
  return where(inside, lp, Tensor::scalar(-INFINITY, lp.dtype()));
}

}  // namespace variate::dist
