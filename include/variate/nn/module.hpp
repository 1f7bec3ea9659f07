#pragma once
// Modules: trees of named parameters (layer 3b). A module lists its own parameters and its
// children's through visit_parameters, with dotted names ("encoder.0.weight") as in PyTorch; the
// tensors stay inside the modules, so an optimizer updates them in place through Parameters and a
// checkpoint (nn/checkpoint.hpp) writes and reads them by name.
//
//   nn::Sequential mlp;
//   mlp.push(nn::Linear(784, 200, random::split_at(key, 0)));
//   mlp.push(nn::Activation(nn::ActivationKind::tanh));
//   nn::Parameters params(mlp);
//   std::vector<Tensor> grads(params.size());
//   Tensor loss = nn::value_and_grad(params, [&] { return sum(square(mlp(x) - y)); }, grads);
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "variate/autodiff/tape.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::nn {

/// Called with each parameter's dotted name and its tensor, which the callee may replace.
using ParameterVisitor = std::function<void(std::string_view name, Tensor& value)>;

/// A neural-network module: named parameters (visited in a fixed order) and child modules.
class Module {
 public:
  virtual ~Module() = default;
  /// Calls `visit` for every parameter of this module and its children, in a fixed order.
  virtual void visit_parameters(const ParameterVisitor& visit) = 0;
  /// What the module is, for error messages: "Linear(in_features=784, out_features=200)".
  virtual std::string describe() const = 0;
};

/// A module with one input and one output, so that it can be stacked in a Sequential.
class Layer : public Module {
 public:
  virtual Tensor forward(const Tensor& x) const = 0;
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

/// Calls `visit` for each parameter of `child` with its name prefixed by "<prefix>." (what a
/// module's visit_parameters does for each child).
void visit_child(std::string_view prefix, Module& child, const ParameterVisitor& visit);

/// A parameter's dotted name and its tensor.
struct NamedTensor {
  std::string name;
  Tensor value;
};

/// The module's parameters by name (handles sharing the module's storage), in visiting order.
std::vector<NamedTensor> named_parameters(const Module& module);
/// The number of parameter elements (weights) of the module.
std::int64_t count_parameters(const Module& module);

/// A module's parameters as a flat list, collected once: index i is the same parameter for the
/// life of the module (an optimizer keeps its state by index). value(i) is the module's own tensor:
/// assigning it (or writing its elements) updates the module. The module must not move while a
/// Parameters refers to it.
class Parameters {
 public:
  explicit Parameters(Module& module);
  std::size_t size() const { return values_.size(); }
  const std::string& name(std::size_t i) const { return names_[i]; }
  Tensor& value(std::size_t i) const { return *values_[i]; }
  /// The number of parameter elements.
  std::int64_t count() const;

 private:
  friend class TrackedParameters;
  std::vector<std::string> names_;
  std::vector<Tensor*> values_;
  std::vector<TapeRef> saved_refs_;  // reused by every value_and_grad, so steady state allocates nothing
};

/// While alive, the parameters are tracked by `scope` (they carry its tape identity), so that the
/// modules' forward passes record gradients for them; the destructor makes them constants again.
class TrackedParameters {
 public:
  TrackedParameters(Parameters& params, autodiff::detail::TapeScope& scope);
  ~TrackedParameters();
  TrackedParameters(const TrackedParameters&) = delete;
  TrackedParameters& operator=(const TrackedParameters&) = delete;

 private:
  Parameters& params_;
};

/// loss() (a one-element tensor computed from the modules' parameters) and its gradient with
/// respect to each parameter, written to grads[i] (grads.size() == params.size()).
template <class F>
Tensor value_and_grad(Parameters& params, F&& loss, std::span<Tensor> grads) {
  VARIATE_CHECK(grads.size() == params.size(), "nn::value_and_grad", params.size(), " parameters but room for ",
                grads.size(), " gradients");
  autodiff::detail::TapeScope scope;
  Tensor y;
  {
    TrackedParameters tracked(params, scope);
    y = loss();
    VARIATE_CHECK(y.defined() && y.numel() == 1, "nn::value_and_grad", "the loss must be a single-element tensor, got ",
                  y.defined() ? y.shape().str() : std::string("an undefined tensor"));
    scope.backward(y, Tensor::ones(y.shape(), y.dtype(), y.device()));
    for (std::size_t i = 0; i < params.size(); ++i) grads[i] = scope.grad_of(params.value(i));
  }
  return autodiff::stop_gradient(y);
}

}  // namespace variate::nn
