#pragma once
// What inference::optimize and inference::pathfinder share to run nn::minimize_lbfgs on a model's
// unconstrained space: the point as a module, and Stan's random initialization.
#include <string>

#include "variate/inference/unconstrained.hpp"
#include "variate/nn/module.hpp"

namespace variate::inference::detail {

// The point L-BFGS moves: the flat unconstrained vector as the one parameter of a module.
class UnconstrainedPoint : public nn::Module {
 public:
  explicit UnconstrainedPoint(Tensor start) : point(std::move(start)) {}
  void visit_parameters(const nn::ParameterVisitor& visit) override { visit("point", point); }
  std::string describe() const override {
    return "UnconstrainedPoint(dimension=" + std::to_string(point.numel()) + ")";
  }
  Tensor point;
};

/// Stan's initialization: uniform draws in (-init_radius, init_radius) on the unconstrained space,
/// from `key`, until log p and its gradient are finite (up to 100 attempts; 0 starts at 0). Throws
/// naming `op` when none is found.
Tensor finite_start_point(const Unconstrained& space, Jacobian jacobian, double init_radius, random::Key key,
                          const char* op);

}  // namespace variate::inference::detail
