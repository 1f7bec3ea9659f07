#include "variate/distributions/zero_inflated.hpp"

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

const DistributionPtr& checked_base(const DistributionPtr& base) {
  VARIATE_CHECK(base != nullptr, "ZeroInflated", "the base distribution is null");
  const Constraint::Kind k = base->support().kind;
  VARIATE_CHECK(
      base->event_shape().rank() == 0 && (k == Constraint::Kind::nonnegative_integer ||
                                          k == Constraint::Kind::integer_interval || k == Constraint::Kind::boolean),
      "ZeroInflated",
      "the base must be a count law with scalar events (support nonnegative_integer, "
      "integer_interval or boolean), got ",
      base->name(), " with support ", base->support().str(), " and event shape ", base->event_shape());
  return base;
}

// The batch shape: the base's, with leading axes added where the gate has them (the base's batch
// must be the trailing part of it, so that a draw of the base with those axes as sample axes covers
// the batch).
Shape zero_inflated_batch(const DistributionPtr& base, const Tensor& gate) {
  const Shape& b = checked_base(base)->batch_shape();
  const Shape batch = broadcast_shapes("ZeroInflated", b, gate.shape());
  bool suffix = true;
  for (int i = 0; i < b.rank(); ++i) suffix = suffix && b[i] == batch[batch.rank() - b.rank() + i];
  VARIATE_CHECK(suffix, "ZeroInflated", "the base's batch shape ", b, " must be the trailing part of the batch shape ",
                batch, " that it makes with the gate's shape ", gate.shape());
  return batch;
}

}  // namespace

ZeroInflated::ZeroInflated(DistributionPtr base, const Tensor& gate, bool is_logits)
    : Distribution(zero_inflated_batch(base, gate), {}, base->dtype()),
      base_(std::move(base)),
      is_logits_(is_logits),
      name_(std::string("ZeroInflated") + base_->name()) {
  if (is_logits) {
    dist::check_not_nan("ZeroInflated", "gate_logits", gate);
  } else {
    dist::check_probability("ZeroInflated", "gate", gate);
  }
  param_ = dist::as_dtype(gate, dtype());
}

ZeroInflated ZeroInflated::from_probs(DistributionPtr base, Tensor gate) {
  return ZeroInflated(std::move(base), gate, false);
}
ZeroInflated ZeroInflated::from_logits(DistributionPtr base, Tensor gate_logits) {
  return ZeroInflated(std::move(base), gate_logits, true);
}

Tensor ZeroInflated::gate() const { return is_logits_ ? sigmoid(param_) : param_; }

Tensor ZeroInflated::sample(random::Key key, const Shape& sample_shape) const {
  const auto [base_key, gate_key] = random::split(key);
  Shape base_sample_shape = sample_shape;
  for (int i = 0; i < batch_shape().rank() - base_->batch_shape().rank(); ++i)
    base_sample_shape.push_back(batch_shape()[i]);
  const Tensor x = base_->sample(base_key, base_sample_shape);
  const Tensor zero = random::bernoulli(gate_key, autodiff::stop_gradient(gate()), sample_full_shape(sample_shape));
  const Tensor draw = where(cast(zero, DType::boolean), Tensor::scalar(0.0, x.dtype()), x);
  return dist::detail::without_draw_gradient("ZeroInflated", "a discrete law has no reparameterization", draw,
                                             {param_});
}

Tensor ZeroInflated::log_prob(const Tensor& value) const {
  const Tensor base_lp = base_->log_prob(value);
  const Tensor log_gate = is_logits_ ? log_sigmoid(param_) : log(param_);
  const Tensor log1m_gate = is_logits_ ? log_sigmoid(-param_) : log1p(-param_);
  const Tensor not_gated = log1m_gate + base_lp;
  const Shape shape = not_gated.shape();
  const int last[] = {-1};
  const Tensor at_zero = logsumexp(stack({broadcast_to(log_gate, shape), not_gated}, -1), last);
  const Tensor is_zero = eq(cast(autodiff::stop_gradient(value), dtype()), 0.0);
  return where(is_zero, at_zero, not_gated);
}

Tensor ZeroInflated::mean() const { return broadcast_to((1.0 - gate()) * base_->mean(), batch_shape()); }

Tensor ZeroInflated::variance() const {
  const Tensor g = gate(), m = base_->mean();
  return broadcast_to((1.0 - g) * (base_->variance() + g * square(m)), batch_shape());
}

}  // namespace variate::dist
