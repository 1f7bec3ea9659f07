#include "variate/distributions/truncated.hpp"

#include <cmath>

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

constexpr const char* kFamily = "Truncated";

const DistributionPtr& checked_base(const DistributionPtr& base) {
  VARIATE_CHECK(base != nullptr, kFamily, "the base distribution is null");
  VARIATE_CHECK(base->event_shape().rank() == 0 && !base->support().is_discrete(), kFamily,
                "the base must be continuous with scalar events, got ", base->name(), " with support ",
                base->support().str(), " and event shape ", base->event_shape());
  return base;
}

// The base support's bounds, where it has them.
std::optional<Tensor> base_low(const Constraint& c, DType dtype) {
  using K = Constraint::Kind;
  switch (c.kind) {
    case K::positive:
    case K::unit_interval: return Tensor::scalar(0.0, dtype);
    case K::greater_than:
    case K::interval: return dist::as_dtype(c.low, dtype);
    default: return std::nullopt;
  }
}
std::optional<Tensor> base_high(const Constraint& c, DType dtype) {
  using K = Constraint::Kind;
  switch (c.kind) {
    case K::unit_interval: return Tensor::scalar(1.0, dtype);
    case K::less_than:
    case K::interval: return dist::as_dtype(c.high, dtype);
    default: return std::nullopt;
  }
}

Shape batch_of(const DistributionPtr& base, const std::optional<Tensor>& low, const std::optional<Tensor>& high) {
  Shape s = checked_base(base)->batch_shape();
  if (low) s = broadcast_shapes(kFamily, s, low->shape());
  if (high) s = broadcast_shapes(kFamily, s, high->shape());
  return s;
}

// A bound moved one relative epsilon (at least the smallest normal number) in `direction`, as a
// constant.
Tensor nudged(const Tensor& bound, double direction) {
  const bool f32 = bound.dtype() == DType::f32;
  const double eps = f32 ? 0x1p-23 : 0x1p-52, tiny = f32 ? 0x1p-126 : 0x1p-1022;
  const Tensor b = autodiff::stop_gradient(bound);
  const Tensor step = maximum(abs(b) * eps, Tensor::scalar(tiny, b.dtype()));
  return b + step * direction;
}

}  // namespace

Truncated::Truncated(DistributionPtr base, std::optional<Tensor> low, std::optional<Tensor> high)
    : Distribution(batch_of(base, low, high), {}, base->dtype()),
      base_(std::move(base)),
      name_(std::string(kFamily) + base_->name()) {
  VARIATE_CHECK(low || high, kFamily, "give a low bound, a high bound or both");
  if (low) dist::check_not_nan(kFamily, "low", *low);
  if (high) dist::check_not_nan(kFamily, "high", *high);
  if (low && high) dist::check_ordered(kFamily, "low", *low, "high", *high);
  // The support: the base's, cut to the bounds.
  const Constraint base_support = base_->support();
  const std::optional<Tensor> bl = base_low(base_support, dtype()), bh = base_high(base_support, dtype());
  if (low) low_ = dist::as_dtype(*low, dtype());
  if (high) high_ = dist::as_dtype(*high, dtype());
  const std::optional<Tensor> lo = low_ ? (bl ? std::optional<Tensor>(maximum(*low_, *bl)) : low_) : bl;
  const std::optional<Tensor> hi = high_ ? (bh ? std::optional<Tensor>(minimum(*high_, *bh)) : high_) : bh;
  if (lo && hi) {
    support_ = Constraint::interval(*lo, *hi);
  } else if (lo) {
    support_ = Constraint::greater_than(*lo);
  } else {
    support_ = Constraint::less_than(*hi);
  }
}

Tensor Truncated::cdf_low() const { return low_ ? base_->cdf(*low_) : Tensor::scalar(0.0, dtype()); }

Tensor Truncated::mass() const {
  const Tensor upper = high_ ? base_->cdf(*high_) : Tensor::scalar(1.0, dtype());
  const Tensor m = upper - cdf_low();
  // Far in the base's upper tail F(low) rounds to 1 and the window's mass to 0: the density would be
  // +inf. Say so (a host_check, so a replay checks again) instead.
  dist::check_each(name(), "the base's mass between the bounds", m,
                   "positive (a window this far in the base's upper tail loses its digits: F(low) rounds to 1)",
                   [](double v) { return v > 0; });
  return m;
}

Tensor Truncated::log_prob(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  return dist::mask_outside_support(support_, x, base_->log_prob(x) - log(mass()));
}

Tensor Truncated::cdf(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor zero = Tensor::scalar(0.0, dtype()), one = Tensor::scalar(1.0, dtype());
  const Tensor inside = (base_->cdf(x) - cdf_low()) / mass();
  return minimum(maximum(inside, zero), one);
}

Tensor Truncated::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  try {
    return base_->icdf(cdf_low() + dist::as_dtype(p, dtype()) * mass());
  } catch (const Error& e) {
    variate::detail::fail(name_, ": sampling (and the quantile) needs the inverse cdf of the base ", base_->name(),
                          ", which it does not have (", e.what(), ")");
  }
}

Tensor Truncated::sample(random::Key key, const Shape& sample_shape) const {
  // Uniform draws kept off 0 and 1, so that the quantile stays finite.
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor u = random::uniform(key, shape, DType::f64) + 0x1p-54;
  const Tensor draw = icdf(cast(u, dtype()));
  // Rounding of a quantile can put a draw on a bound; nudge it inside.
  const Constraint& c = support_;
  Tensor out = draw;
  if (c.low.defined()) out = maximum(out, nudged(c.low, 1.0));
  if (c.high.defined()) out = minimum(out, nudged(c.high, -1.0));
  return out;
}

}  // namespace variate::dist
