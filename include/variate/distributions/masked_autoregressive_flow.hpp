#pragma once
#include <cstdint>
#include <string>

#include "variate/distributions/autoregressive_flow_options.hpp"
#include "variate/distributions/bijector.hpp"
#include "variate/nn/made.hpp"

namespace variate::dist {

/// Masked autoregressive flow (Papamakarios, Pavlakou & Murray 2017, "Masked autoregressive flow for
/// density estimation"), as TFP's MaskedAutoregressiveFlow bijector: on vectors of size D (the last
/// axis, forward_event_ndims 1),
///   y_d = x_d exp(s_d(y)) + m_d(y),
/// where the shift m and the log-scale s come from one MADE (nn::Made, two outputs per coordinate)
/// applied to y, so m_d and s_d depend only on the coordinates before d in the autoregressive order.
/// The inverse, x = (y - m(y)) exp(-s(y)), and log|det dx/dy| = -sum_d s_d(y) take one MADE pass:
/// a TransformedDistribution over it evaluates densities in one pass (MAF's purpose, density
/// estimation). The forward map solves for y one coordinate per pass (D passes, each exact for one
/// more coordinate), so its draws take D passes; log|det dy/dx| = sum_d s_d(y) at y = forward(x).
/// The Jacobian is triangular in the autoregressive order with diagonal exp(s).
///
/// It is also an nn::Module: its parameters are the MADE's ("made.layers.<i>.weight", ...), trained
/// in place through nn::Parameters. Held by a shared_ptr, the same object is the bijector of a
/// TransformedDistribution (a flow prior or guide) and the module an optimizer updates:
///
///   auto flow = std::make_shared<dist::MaskedAutoregressiveFlow>(2, random::Key(0));
///   nn::Parameters params(*flow);
///   dist::TransformedDistribution q(standard_normal_2d, flow);
class MaskedAutoregressiveFlow final : public Bijector, public nn::Module {
 public:
  MaskedAutoregressiveFlow(std::int64_t dims, random::Key key, AutoregressiveFlowOptions options = {});
  const char* name() const override { return "MaskedAutoregressiveFlow"; }

  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  int forward_event_ndims() const override { return 1; }
  /// Real vectors onto real vectors.
  Constraint forward_image(const Constraint& domain) const override;

  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t dims() const { return std::int64_t(made_.input_degrees().size()); }
  const nn::Degrees& order() const { return made_.input_degrees(); }

 private:
  nn::Made made_;
  std::vector<std::int64_t> hidden_;
  double log_scale_bound_;
};

}  // namespace variate::dist
