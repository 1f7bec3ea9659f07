#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "variate/distributions/bijector.hpp"
#include "variate/nn/functional.hpp"
#include "variate/nn/sequential.hpp"

namespace variate::dist {

/// The shape of a RealNVP affine coupling: which coordinates pass through and the conditioner network.
struct RealNvpOptions {
  /// Which coordinates pass through unchanged (and condition the others): D flags with at least one
  /// kept and one transformed. Empty keeps the first floor(D / 2). Stacked couplings alternate by
  /// complementing it.
  std::vector<bool> keep{};
  /// The conditioner MLP's hidden widths.
  std::vector<std::int64_t> hidden{64, 64};
  nn::ActivationKind activation = nn::ActivationKind::relu;
  /// Each log-scale is bound * tanh(raw / bound), as in AutoregressiveFlowOptions; infinity for the
  /// raw output.
  double log_scale_bound = 5.0;
  DType dtype = DType::f64;
};

/// Affine coupling layer of real NVP (Dinh, Sohl-Dickstein & Bengio 2017, "Density estimation using
/// Real NVP", equations 4-9): on vectors of size D (the last axis, forward_event_ndims 1), with b the
/// 0/1 vector of kept coordinates,
///   y = b x + (1 - b) (x exp(s(b x)) + m(b x)),
/// where the shift m and the log-scale s (D each, used only where b = 0) are the outputs of an MLP
/// conditioner (nn::Linear layers, D inputs, 2 D outputs) applied to the kept coordinates. Since
/// b y = b x, the inverse x = b y + (1 - b) (y - m(b y)) exp(-s(b y)) is one pass too, and
/// log|det dy/dx| = sum over transformed d of s_d(b x): the Jacobian is triangular (the kept block
/// is the identity and does not depend on the rest). Both directions and both log determinants take
/// one conditioner pass.
///
/// It is also an nn::Module with the conditioner's parameters ("conditioner.<i>.weight", ...),
/// trained in place through nn::Parameters; used through a shared_ptr as a TransformedDistribution's
/// bijector (see MaskedAutoregressiveFlow).
class RealNvpCoupling final : public Bijector, public nn::Module {
 public:
  RealNvpCoupling(std::int64_t dims, random::Key key, RealNvpOptions options = {});
  const char* name() const override { return "RealNvpCoupling"; }

  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  int forward_event_ndims() const override { return 1; }
  /// Real vectors onto real vectors.
  Constraint forward_image(const Constraint& domain) const override;

  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t dims() const { return std::int64_t(keep_.size()); }
  const std::vector<bool>& keep() const { return keep_; }

 private:
  struct ShiftAndLogScale {
    Tensor shift, log_scale;
  };
  /// m and s from the kept coordinates of v (zero where kept).
  ShiftAndLogScale conditioner(const Tensor& v, const char* method) const;

  std::vector<bool> keep_;
  Tensor kept_, transformed_;  // b and 1 - b, of the conditioner's dtype
  nn::Sequential conditioner_;
  std::vector<std::int64_t> hidden_;
  double log_scale_bound_;
};

}  // namespace variate::dist
