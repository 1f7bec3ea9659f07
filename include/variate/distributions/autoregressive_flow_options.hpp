#pragma once
// Options of the MADE-based flows (MaskedAutoregressiveFlow, InverseAutoregressiveFlow).
#include <cstdint>
#include <vector>

#include "variate/nn/made.hpp"

namespace variate::dist {

/// The shape of a masked autoregressive flow's MADE network.
struct AutoregressiveFlowOptions {
  /// The MADE's hidden widths; each at least D - 1, so that every degree has units.
  std::vector<std::int64_t> hidden{32, 32};
  /// The autoregressive order, as MADE input degrees (a permutation of 1..D); empty for 1..D.
  /// nn::made_reversed_degrees(D) gives the reverse, so that stacked flows alternate.
  nn::Degrees order{};
  nn::ActivationKind activation = nn::ActivationKind::relu;
  /// Each log-scale is bound * tanh(raw / bound) of the network's raw output: the identity near 0,
  /// and every scale factor within [exp(-bound), exp(bound)], so that neither an untrained network
  /// nor a large Adam step can overflow a draw (a sequential pass compounds D of them). Infinity
  /// uses the raw output as it is.
  double log_scale_bound = 5.0;
  DType dtype = DType::f64;
};

}  // namespace variate::dist
