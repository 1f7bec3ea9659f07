#pragma once
// A chain of layers, each fed the previous one's output.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "variate/nn/module.hpp"

namespace variate::nn {

/// Layers applied in order; the parameters of layer i are named "<i>.<name>" ("0.weight"), as in
/// torch.nn.Sequential. An error inside a layer is raised again naming its position.
class Sequential : public Layer {
 public:
  Sequential() = default;
  /// Appends a layer and returns it, owned by the Sequential (its address is stable).
  template <class L>
  requires std::is_base_of_v<Layer, L> L& push(L layer) {
    auto owned = std::make_unique<L>(std::move(layer));
    L& ref = *owned;
    layers_.push_back(std::move(owned));
    return ref;
  }
  std::size_t size() const { return layers_.size(); }
  Layer& operator[](std::size_t i) const { return *layers_[i]; }

  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

 private:
  std::vector<std::unique_ptr<Layer>> layers_;
};

}  // namespace variate::nn
