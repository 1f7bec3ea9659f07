#include <cmath>
#include <numbers>

#include "variate/autodiff/no_recording.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {
namespace {

using K = Constraint::Kind;

// A parameter in the floating dtype of the value it acts on, so that f32 values stay f32.
Tensor like(const Tensor& param, const Tensor& value) { return dist::as_dtype(param, float_type(value.dtype())); }

// Zeros shaped like x broadcast with a parameter: the log|det J| of a volume-preserving map.
Tensor zeros_for(const Tensor& x, const Tensor& param) {
  return Tensor::zeros(broadcast_shapes("Shift", x.shape(), param.shape()), float_type(x.dtype()));
}

// The image of the real line, for bijectors that are only defined on it.
Constraint image_of_real(const Bijector& b, const Constraint& domain, Constraint image) {
  return domain.kind == K::real ? image : b.Bijector::forward_image(domain);
}

}  // namespace

Tensor Identity::forward_log_det_jacobian(const Tensor& x) const {
  return Tensor::zeros(x.shape(), float_type(x.dtype()));
}
Tensor Identity::inverse_log_det_jacobian(const Tensor& y) const { return forward_log_det_jacobian(y); }

Tensor Exp::forward(const Tensor& x) const { return exp(x); }
Tensor Exp::inverse(const Tensor& y) const { return log(y); }
Tensor Exp::forward_log_det_jacobian(const Tensor& x) const { return x; }
Tensor Exp::inverse_log_det_jacobian(const Tensor& y) const { return -log(y); }
Constraint Exp::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::positive());
}

Tensor Softplus::forward(const Tensor& x) const { return softplus(x); }
// log(exp(y) - 1) = y + log(1 - exp(-y)); expm1 keeps the second term exact both for y near 0
// (where exp(y) - 1 would cancel) and for large y (where exp(y) would overflow).
Tensor Softplus::inverse(const Tensor& y) const { return y + log(-expm1(-y)); }
// dy/dx = sigmoid(x) = 1 - exp(-y).
Tensor Softplus::forward_log_det_jacobian(const Tensor& x) const { return log_sigmoid(x); }
Tensor Softplus::inverse_log_det_jacobian(const Tensor& y) const { return -log(-expm1(-y)); }
Constraint Softplus::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::positive());
}

Tensor Sigmoid::forward(const Tensor& x) const { return sigmoid(x); }
Tensor Sigmoid::inverse(const Tensor& y) const { return log(y) - log1p(-y); }
// dy/dx = sigmoid(x) sigmoid(-x); in logs both factors stay finite for any finite x.
Tensor Sigmoid::forward_log_det_jacobian(const Tensor& x) const { return log_sigmoid(x) + log_sigmoid(-x); }
Tensor Sigmoid::inverse_log_det_jacobian(const Tensor& y) const { return -log(y) - log1p(-y); }
Constraint Sigmoid::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::unit_interval());
}

Interval::Interval(Tensor low, Tensor high) {
  dist::check_finite("Interval", "low", low);
  dist::check_finite("Interval", "high", high);
  dist::check_ordered("Interval", "low", low, "high", high);
  low_ = std::move(low);
  high_ = std::move(high);
}

Tensor Interval::forward(const Tensor& x) const {
  const Tensor low = like(low_, x), high = like(high_, x), width = high - low;
  // For x > 0 the value is measured from `high`, so that it keeps its distance to that bound
  // instead of rounding onto it as low + width * (1 - tiny) would.
  return where(gt(x, 0.0), high - width * sigmoid(-x), low + width * sigmoid(x));
}

// Differences from the bounds, not the logit of (y - low) / (high - low), so that values near
// either bound keep their precision.
Tensor Interval::inverse(const Tensor& y) const { return log(y - like(low_, y)) - log(like(high_, y) - y); }

Tensor Interval::forward_log_det_jacobian(const Tensor& x) const {
  return log(like(high_, x) - like(low_, x)) + log_sigmoid(x) + log_sigmoid(-x);
}

Tensor Interval::inverse_log_det_jacobian(const Tensor& y) const {
  const Tensor low = like(low_, y), high = like(high_, y);
  return log(high - low) - log(y - low) - log(high - y);
}

Constraint Interval::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::interval(low_, high_));
}

Shift::Shift(Tensor shift) {
  dist::check_finite("Shift", "shift", shift);
  shift_ = std::move(shift);
}

Tensor Shift::forward(const Tensor& x) const { return x + like(shift_, x); }
Tensor Shift::inverse(const Tensor& y) const { return y - like(shift_, y); }
Tensor Shift::forward_log_det_jacobian(const Tensor& x) const { return zeros_for(x, shift_); }
Tensor Shift::inverse_log_det_jacobian(const Tensor& y) const { return zeros_for(y, shift_); }

Constraint Shift::forward_image(const Constraint& domain) const {
  switch (domain.kind) {
    case K::real: return domain;
    case K::positive: return Constraint::greater_than(shift_);
    case K::greater_than: return Constraint::greater_than(domain.low + shift_);
    case K::unit_interval: return Constraint::interval(shift_, shift_ + 1.0);
    case K::interval: return Constraint::interval(domain.low + shift_, domain.high + shift_);
    case K::less_than: return Constraint::less_than(domain.high + shift_);
    default: return Bijector::forward_image(domain);
  }
}

Scale::Scale(Tensor scale) {
  // Made with host_check (check_each), so that a computed scale is checked again at each replay.
  dist::check_finite("Scale", "scale", scale);
  dist::check_each("Scale", "scale", scale, "nonzero (the map would not be invertible)",
                   [](double v) { return v != 0; });
  scale_ = std::move(scale);
}

Tensor Scale::forward(const Tensor& x) const { return x * like(scale_, x); }
Tensor Scale::inverse(const Tensor& y) const { return y / like(scale_, y); }

Tensor Scale::forward_log_det_jacobian(const Tensor& x) const {
  const Tensor log_abs = log(abs(like(scale_, x)));
  return broadcast_to(log_abs, broadcast_shapes("Scale", x.shape(), log_abs.shape()));
}

Tensor Scale::inverse_log_det_jacobian(const Tensor& y) const { return -forward_log_det_jacobian(y); }

Constraint Scale::forward_image(const Constraint& domain) const {
  if (domain.kind == K::real) return domain;
  // The image depends on the sign of a scale that may be computed: a replay whose scale changed
  // sign falls back to evaluating.
  const bool positive = host_decision({scale_}, [scale = scale_] {
    const autodiff::NoRecording reads_values;
    return min(scale).item() > 0;
  });
  if (!positive) {
    const bool negative = host_decision({scale_}, [scale = scale_] {
      const autodiff::NoRecording reads_values;
      return max(scale).item() < 0;
    });
    if (!negative) return Bijector::forward_image(domain);
    switch (domain.kind) {  // a negative scale turns the order around
      case K::positive: return Constraint::less_than(Tensor::zeros(scale_.shape(), scale_.dtype()));
      case K::greater_than: return Constraint::less_than(domain.low * scale_);
      case K::less_than: return Constraint::greater_than(domain.high * scale_);
      case K::interval: return Constraint::interval(domain.high * scale_, domain.low * scale_);
      default: return Bijector::forward_image(domain);
    }
  }
  switch (domain.kind) {
    case K::less_than: return Constraint::less_than(domain.high * scale_);
    case K::positive: return domain;
    case K::greater_than: return Constraint::greater_than(domain.low * scale_);
    case K::unit_interval: return Constraint::interval(Tensor::zeros(scale_.shape(), scale_.dtype()), scale_);
    case K::interval: return Constraint::interval(domain.low * scale_, domain.high * scale_);
    default: return Bijector::forward_image(domain);
  }
}

OffsetMultiplier::OffsetMultiplier(Tensor offset, Tensor multiplier) {
  // check_each works through host_check, so computed parameters are checked again at each replay.
  dist::check_finite("OffsetMultiplier", "offset", offset);
  dist::check_positive("OffsetMultiplier", "multiplier", multiplier);
  broadcast_shapes("OffsetMultiplier", offset.shape(), multiplier.shape());
  offset_ = std::move(offset);
  multiplier_ = std::move(multiplier);
}

Tensor OffsetMultiplier::forward(const Tensor& x) const { return like(offset_, x) + like(multiplier_, x) * x; }
Tensor OffsetMultiplier::inverse(const Tensor& y) const { return (y - like(offset_, y)) / like(multiplier_, y); }

Tensor OffsetMultiplier::forward_log_det_jacobian(const Tensor& x) const {
  const Tensor log_multiplier = log(like(multiplier_, x));
  return broadcast_to(log_multiplier, broadcast_shapes("OffsetMultiplier",
                                                       broadcast_shapes("OffsetMultiplier", x.shape(), offset_.shape()),
                                                       log_multiplier.shape()));
}

Tensor OffsetMultiplier::inverse_log_det_jacobian(const Tensor& y) const { return -forward_log_det_jacobian(y); }

Constraint OffsetMultiplier::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::real());
}

Tensor Tanh::forward(const Tensor& x) const { return tanh(x); }
Tensor Tanh::inverse(const Tensor& y) const { return 0.5 * (log1p(y) - log1p(-y)); }
// 1 - tanh(x)^2 = 4 / (exp(x) + exp(-x))^2 and log(exp(x) + exp(-x)) = x + softplus(-2 x): no
// cancellation and no overflow for large |x|, where 1 - tanh(x)^2 would round to 0.
Tensor Tanh::forward_log_det_jacobian(const Tensor& x) const {
  return 2.0 * (std::numbers::ln2 - x - softplus(-2.0 * x));
}
Tensor Tanh::inverse_log_det_jacobian(const Tensor& y) const { return -log1p(y) - log1p(-y); }
Constraint Tanh::forward_image(const Constraint& domain) const {
  return image_of_real(*this, domain, Constraint::interval(Tensor::scalar(-1.0), Tensor::scalar(1.0)));
}

}  // namespace variate::dist
