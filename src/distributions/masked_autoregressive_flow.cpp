#include "variate/distributions/masked_autoregressive_flow.hpp"

#include "distributions/affine_flow.hpp"

namespace variate::dist {

MaskedAutoregressiveFlow::MaskedAutoregressiveFlow(std::int64_t dims, random::Key key,
                                                   AutoregressiveFlowOptions options)
    : made_(detail::autoregressive_made("MaskedAutoregressiveFlow", dims, key, options)),
      hidden_(options.hidden),
      log_scale_bound_(options.log_scale_bound) {}

Tensor MaskedAutoregressiveFlow::forward(const Tensor& x) const {
  detail::check_flow_event(describe(), "forward", x, dims());
  // Pass k computes m and s from an iterate whose coordinates of degree < k are already exact, so
  // that the coordinate of degree k becomes exact too; after D passes all are (and so are their
  // derivatives, since each is the same formula of exact inputs).
  Tensor y = Tensor::zeros(x.shape(), float_type(x.dtype()));
  for (std::int64_t pass = 0; pass < dims(); ++pass) {
    const auto [shift, log_scale] = detail::made_shift_and_log_scale(made_, y, log_scale_bound_);
    y = x * exp(log_scale) + shift;
  }
  return y;
}

Tensor MaskedAutoregressiveFlow::inverse(const Tensor& y) const {
  detail::check_flow_event(describe(), "inverse", y, dims());
  const auto [shift, log_scale] = detail::made_shift_and_log_scale(made_, y, log_scale_bound_);
  return (y - shift) * exp(-log_scale);
}

Tensor MaskedAutoregressiveFlow::forward_log_det_jacobian(const Tensor& x) const {
  return detail::sum_event(detail::made_shift_and_log_scale(made_, forward(x), log_scale_bound_).log_scale);
}

Tensor MaskedAutoregressiveFlow::inverse_log_det_jacobian(const Tensor& y) const {
  detail::check_flow_event(describe(), "inverse_log_det_jacobian", y, dims());
  return -detail::sum_event(detail::made_shift_and_log_scale(made_, y, log_scale_bound_).log_scale);
}

Constraint MaskedAutoregressiveFlow::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? domain : Bijector::forward_image(domain);
}

void MaskedAutoregressiveFlow::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("made", made_, visit);
}

std::string MaskedAutoregressiveFlow::describe() const {
  return "MaskedAutoregressiveFlow(dims=" + std::to_string(dims()) + ", hidden=" + detail::widths_str(hidden_) + ")";
}

}  // namespace variate::dist
