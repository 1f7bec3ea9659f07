#pragma once
// A module with one parameter tensor, a point to optimize: the smallest module an optimizer test
// needs.
#include <string>
#include <utility>

#include "variate/nn/module.hpp"

namespace variate::nn::testing {

struct Point : Module {
  Tensor x;
  explicit Point(Tensor init) : x(std::move(init)) {}
  void visit_parameters(const ParameterVisitor& visit) override { visit("x", x); }
  std::string describe() const override { return "Point"; }
};

}  // namespace variate::nn::testing
