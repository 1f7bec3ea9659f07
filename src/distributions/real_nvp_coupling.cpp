#include "variate/distributions/real_nvp_coupling.hpp"

#include <algorithm>

#include "distributions/affine_flow.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"

namespace variate::dist {
namespace {

std::vector<bool> checked_keep(std::int64_t dims, std::vector<bool> keep) {
  VARIATE_CHECK(dims >= 2, "RealNvpCoupling", "the event size must be >= 2 (one kept and one transformed), got ", dims);
  if (keep.empty())
    for (std::int64_t d = 0; d < dims; ++d) keep.push_back(d < dims / 2);
  VARIATE_CHECK(std::int64_t(keep.size()) == dims, "RealNvpCoupling", "keep must have one flag per coordinate (", dims,
                "), got ", keep.size());
  const auto kept = std::count(keep.begin(), keep.end(), true);
  VARIATE_CHECK(kept >= 1 && kept < dims, "RealNvpCoupling",
                "keep must keep at least one coordinate and transform at least one, got ", kept, " kept of ", dims);
  return keep;
}

Tensor flags(const std::vector<bool>& keep, bool value, DType dtype) {
  std::vector<double> v;
  for (bool k : keep) v.push_back(k == value ? 1.0 : 0.0);
  return cast(Tensor::from(v, Shape{std::int64_t(v.size())}), dtype);
}

}  // namespace

RealNvpCoupling::RealNvpCoupling(std::int64_t dims, random::Key key, RealNvpOptions options)
    : keep_(checked_keep(dims, std::move(options.keep))),
      kept_(flags(keep_, true, options.dtype)),
      transformed_(flags(keep_, false, options.dtype)),
      hidden_(options.hidden),
      log_scale_bound_(options.log_scale_bound) {
  VARIATE_CHECK(options.log_scale_bound > 0, "RealNvpCoupling", "log_scale_bound must be > 0, got ",
                options.log_scale_bound);
  std::int64_t in = dims;
  for (std::size_t i = 0; i < hidden_.size(); ++i) {
    conditioner_.push(nn::Linear(in, hidden_[i], random::split_at(key, i), options.dtype));
    conditioner_.push(nn::Activation(options.activation));
    in = hidden_[i];
  }
  conditioner_.push(nn::Linear(in, 2 * dims, random::split_at(key, hidden_.size()), options.dtype));
}

RealNvpCoupling::ShiftAndLogScale RealNvpCoupling::conditioner(const Tensor& v, const char* method) const {
  detail::check_flow_event(describe(), method, v, dims());
  const Tensor out = conditioner_(v * kept_);
  const std::int64_t d = dims();
  return {slice(out, -1, 0, d) * transformed_,
          detail::bounded_log_scale(slice(out, -1, d, 2 * d), log_scale_bound_) * transformed_};
}

// Where b = 1 both m and s are 0, so those coordinates come out exactly as they went in.
Tensor RealNvpCoupling::forward(const Tensor& x) const {
  const auto [shift, log_scale] = conditioner(x, "forward");
  return x * exp(log_scale) + shift;
}

Tensor RealNvpCoupling::inverse(const Tensor& y) const {
  const auto [shift, log_scale] = conditioner(y, "inverse");
  return (y - shift) * exp(-log_scale);
}

Tensor RealNvpCoupling::forward_log_det_jacobian(const Tensor& x) const {
  return detail::sum_event(conditioner(x, "forward_log_det_jacobian").log_scale);
}

Tensor RealNvpCoupling::inverse_log_det_jacobian(const Tensor& y) const {
  return -detail::sum_event(conditioner(y, "inverse_log_det_jacobian").log_scale);
}

Constraint RealNvpCoupling::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? domain : Bijector::forward_image(domain);
}

void RealNvpCoupling::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("conditioner", conditioner_, visit);
}

std::string RealNvpCoupling::describe() const {
  std::string kept;
  for (bool k : keep_) kept += k ? '1' : '0';
  return "RealNvpCoupling(dims=" + std::to_string(dims()) + ", keep=" + kept +
         ", hidden=" + detail::widths_str(hidden_) + ")";
}

}  // namespace variate::dist
