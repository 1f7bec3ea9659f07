#include "variate/distributions/chain.hpp"

#include <algorithm>

#include "distributions/sum_rightmost.hpp"

namespace variate::dist {
namespace {

// Zeros shaped like x without its trailing `n` axes: the log determinant of an empty chain.
Tensor zero_log_det(const Tensor& x, int n) {
  VARIATE_CHECK(x.rank() >= n, "Chain", "expects at least ", n, " trailing event axes, got shape ", x.shape());
  Shape s = x.shape();
  for (int i = 0; i < n; ++i) s.erase(s.rank() - 1);
  return Tensor::zeros(s, float_type(x.dtype()));
}

}  // namespace

Chain::Chain(std::vector<BijectorPtr> bijectors) : bijectors_(std::move(bijectors)) {
  for (std::size_t i = 0; i < bijectors_.size(); ++i)
    VARIATE_CHECK(bijectors_[i] != nullptr, "Chain", "bijector ", i, " is null");
  // The chain's input must span enough trailing axes for every part: a part that needs m axes when
  // the parts before it have changed the event rank by `delta` needs m - delta at the input.
  int delta = 0;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it) {
    forward_event_ndims_ = std::max(forward_event_ndims_, (*it)->forward_event_ndims() - delta);
    delta += (*it)->inverse_event_ndims() - (*it)->forward_event_ndims();
  }
  inverse_event_ndims_ = forward_event_ndims_ + delta;
  int ndims = forward_event_ndims_;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it) {
    input_event_ndims_.push_back(ndims);
    ndims += (*it)->inverse_event_ndims() - (*it)->forward_event_ndims();
  }
}

Tensor Chain::forward(const Tensor& x) const {
  Tensor y = x;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it) y = (*it)->forward(y);
  return y;
}

Tensor Chain::inverse(const Tensor& y) const {
  Tensor x = y;
  for (const BijectorPtr& b : bijectors_) x = b->inverse(x);
  return x;
}

Tensor Chain::forward_log_det_jacobian(const Tensor& x) const {
  Tensor total = zero_log_det(x, forward_event_ndims_);
  Tensor current = x;
  std::size_t step = 0;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it, ++step) {
    const Bijector& b = **it;
    total = total + detail::sum_rightmost(b.forward_log_det_jacobian(current),
                                          input_event_ndims_[step] - b.forward_event_ndims());
    current = b.forward(current);
  }
  return total;
}

Tensor Chain::inverse_log_det_jacobian(const Tensor& y) const {
  Tensor total = zero_log_det(y, inverse_event_ndims_);
  Tensor current = y;
  std::size_t step = bijectors_.size();
  for (const BijectorPtr& b : bijectors_) {
    --step;
    const int output_event_ndims = input_event_ndims_[step] + b->inverse_event_ndims() - b->forward_event_ndims();
    total = total +
            detail::sum_rightmost(b->inverse_log_det_jacobian(current), output_event_ndims - b->inverse_event_ndims());
    current = b->inverse(current);
  }
  return total;
}

Shape Chain::forward_shape(const Shape& x_shape) const {
  Shape s = x_shape;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it) s = (*it)->forward_shape(s);
  return s;
}

Shape Chain::inverse_shape(const Shape& y_shape) const {
  Shape s = y_shape;
  for (const BijectorPtr& b : bijectors_) s = b->inverse_shape(s);
  return s;
}

Constraint Chain::forward_image(const Constraint& domain) const {
  Constraint c = domain;
  for (auto it = bijectors_.rbegin(); it != bijectors_.rend(); ++it) c = (*it)->forward_image(c);
  return c;
}

}  // namespace variate::dist
