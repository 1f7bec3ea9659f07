#include "variate/distributions/invert.hpp"

#include "variate/autodiff/ops.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::dist {
namespace {

// Whether two bounds (either undefined, or tensors) hold the same values. Bounds may be computed
// (a Shift by a latent value): a replay where they compare otherwise falls back to evaluating.
bool same_bound(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  return !a.defined() || host_decision({a, b}, [a, b] { return all(eq(a, b)).item() != 0; });
}

}  // namespace

Invert::Invert(BijectorPtr bijector) : bijector_(std::move(bijector)) {
  VARIATE_CHECK(bijector_ != nullptr, "Invert", "the bijector is null");
}

Constraint Invert::forward_image(const Constraint& domain) const {
  const Constraint image = bijector_->forward_image(Constraint::real());
  if (domain.kind == image.kind && same_bound(domain.low, image.low) && same_bound(domain.high, image.high))
    return Constraint::real();
  return Bijector::forward_image(domain);
}

}  // namespace variate::dist
