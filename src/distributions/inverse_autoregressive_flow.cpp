#include "variate/distributions/inverse_autoregressive_flow.hpp"

#include "distributions/affine_flow.hpp"

namespace variate::dist {

InverseAutoregressiveFlow::InverseAutoregressiveFlow(std::int64_t dims, random::Key key,
                                                     AutoregressiveFlowOptions options)
    : made_(detail::autoregressive_made("InverseAutoregressiveFlow", dims, key, options)),
      hidden_(options.hidden),
      log_scale_bound_(options.log_scale_bound) {}

Tensor InverseAutoregressiveFlow::forward(const Tensor& x) const {
  detail::check_flow_event(describe(), "forward", x, dims());
  const auto [shift, log_scale] = detail::made_shift_and_log_scale(made_, x, log_scale_bound_);
  return x * exp(log_scale) + shift;
}

Tensor InverseAutoregressiveFlow::inverse(const Tensor& y) const {
  detail::check_flow_event(describe(), "inverse", y, dims());
  // Pass k computes m and s from an iterate whose coordinates of degree < k are already exact, so
  // that the coordinate of degree k becomes exact too; after D passes all are (and so are their
  // derivatives, since each is the same formula of exact inputs).
  Tensor x = Tensor::zeros(y.shape(), float_type(y.dtype()));
  for (std::int64_t pass = 0; pass < dims(); ++pass) {
    const auto [shift, log_scale] = detail::made_shift_and_log_scale(made_, x, log_scale_bound_);
    x = (y - shift) * exp(-log_scale);
  }
  return x;
}

Tensor InverseAutoregressiveFlow::forward_log_det_jacobian(const Tensor& x) const {
  detail::check_flow_event(describe(), "forward_log_det_jacobian", x, dims());
  return detail::sum_event(detail::made_shift_and_log_scale(made_, x, log_scale_bound_).log_scale);
}

Constraint InverseAutoregressiveFlow::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? domain : Bijector::forward_image(domain);
}

void InverseAutoregressiveFlow::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("made", made_, visit);
}

std::string InverseAutoregressiveFlow::describe() const {
  return "InverseAutoregressiveFlow(dims=" + std::to_string(dims()) + ", hidden=" + detail::widths_str(hidden_) + ")";
}

}  // namespace variate::dist
