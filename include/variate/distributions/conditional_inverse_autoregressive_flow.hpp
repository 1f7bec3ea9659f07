#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "variate/distributions/conditional_bijector.hpp"
#include "variate/nn/made.hpp"

namespace variate::dist {

/// The shape of a ConditionalInverseAutoregressiveFlow.
struct ConditionalIafOptions {
  /// The MADE's hidden widths, each at least D - 1 (every layer, the output one too, sees the context).
  std::vector<std::int64_t> hidden{32, 32};
  /// The autoregressive order, as MADE input degrees; empty for 1..D (see AutoregressiveFlowOptions).
  nn::Degrees order{};
  nn::ActivationKind activation = nn::ActivationKind::relu;
  /// Added to the gate's raw output, so that an untrained flow keeps most of its input (sigmoid(2)
  /// = 0.88): the paper's forget-gate bias of +1 or +2.
  double forget_bias = 2.0;
  DType dtype = DType::f64;
};

/// Inverse autoregressive flow with a context, in the numerically stable form of Kingma, Salimans,
/// Jozefowicz, Chen, Sutskever & Welling 2016 ("Improved variational inference with inverse
/// autoregressive flow", section 4 and algorithm 2): on vectors of size D (the last axis), at a
/// context h of size C,
///   [m, s] = MADE(x, h),  sigma = sigmoid(s + forget_bias),  y = sigma * x + (1 - sigma) * m,
/// where the MADE (nn::Made with a context) makes m_d and s_d depend on the coordinates of x before
/// d in the autoregressive order and on all of h. The Jacobian dy/dx is triangular in that order
/// with diagonal sigma, so log|det dy/dx| = sum_d log sigma_d, from the same single pass as y. The
/// inverse solves one coordinate per pass (D passes). Every scale lies in (0, 1): the flow
/// contracts, and the base distribution's scale (from the same encoder) sets the size.
///
/// It is an nn::Module (parameters "made.layers.<i>.*", "made.context.<i>.weight") and, held by a
/// shared_ptr, a ConditionalBijector: given(h) is the flow at h, which holds the module and h.
///
///   auto flow = std::make_shared<dist::ConditionalInverseAutoregressiveFlow>(latent, context, key);
///   dist::DrawCachingTransformedDistribution q(base, flow->given(h));   // h from the encoder
class ConditionalInverseAutoregressiveFlow final
    : public ConditionalBijector,
      public nn::Module,
      public std::enable_shared_from_this<ConditionalInverseAutoregressiveFlow> {
 public:
  ConditionalInverseAutoregressiveFlow(std::int64_t dims, std::int64_t context, random::Key key,
                                       ConditionalIafOptions options = {});
  /// Throws unless this flow is held by a std::shared_ptr (the returned bijector shares it).
  BijectorPtr given(const Tensor& context) const override;
  int forward_event_ndims() const override { return 1; }

  /// The maps at a context, as given(context)'s bijector computes them.
  Tensor forward(const Tensor& x, const Tensor& context) const;
  Tensor inverse(const Tensor& y, const Tensor& context) const;
  Tensor forward_log_det_jacobian(const Tensor& x, const Tensor& context) const;

  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t dims() const { return std::int64_t(made_.input_degrees().size()); }
  std::int64_t context_size() const { return made_.context_size(); }
  const nn::Degrees& order() const { return made_.input_degrees(); }

 private:
  struct Gate {
    Tensor shift, log_sigma, sigma;
  };
  Gate gate(const Tensor& x, const Tensor& context, const char* method) const;

  nn::Made made_;
  std::vector<std::int64_t> hidden_;
  double forget_bias_;
};

}  // namespace variate::dist
