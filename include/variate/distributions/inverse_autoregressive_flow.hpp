#pragma once
#include <cstdint>
#include <string>

#include "variate/distributions/autoregressive_flow_options.hpp"
#include "variate/distributions/bijector.hpp"
#include "variate/nn/made.hpp"

namespace variate::dist {

/// Inverse autoregressive flow (Kingma, Salimans, Jozefowicz, Chen, Sutskever & Welling 2016,
/// "Improved variational inference with inverse autoregressive flow"), as TFP's
/// MaskedAutoregressiveFlow run the other way (tfb.Invert of it): on vectors of size D (the last
/// axis, forward_event_ndims 1),
///   y_d = x_d exp(s_d(x)) + m_d(x),
/// where the shift m and the log-scale s come from one MADE (nn::Made, two outputs per coordinate)
/// applied to x, so m_d and s_d depend only on the coordinates before d in the autoregressive order.
/// The forward map and log|det dy/dx| = sum_d s_d(x) take one MADE pass: a TransformedDistribution
/// over it draws in one pass (IAF's purpose, a guide whose draws are cheap). The inverse solves for
/// x one coordinate per pass (D passes, each exact for one more coordinate), so densities at given
/// values take D passes; log|det dx/dy| = -sum_d s_d(x) at x = inverse(y). The Jacobian is
/// triangular in the autoregressive order with diagonal exp(s).
///
/// It is also an nn::Module: its parameters are the MADE's ("made.layers.<i>.weight", ...), trained
/// in place through nn::Parameters. Held by a shared_ptr, the same object is the bijector of a
/// TransformedDistribution (a flow guide or prior) and the module an optimizer updates:
///
///   auto flow = std::make_shared<dist::InverseAutoregressiveFlow>(2, random::Key(0));
///   nn::Parameters params(*flow);
///   dist::TransformedDistribution q(standard_normal_2d, flow);
class InverseAutoregressiveFlow final : public Bijector, public nn::Module {
 public:
  InverseAutoregressiveFlow(std::int64_t dims, random::Key key, AutoregressiveFlowOptions options = {});
  const char* name() const override { return "InverseAutoregressiveFlow"; }

  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
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
