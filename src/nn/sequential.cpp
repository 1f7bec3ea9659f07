#include "variate/nn/sequential.hpp"

namespace variate::nn {

Tensor Sequential::forward(const Tensor& x) const {
  Tensor h = x;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    try {
      h = layers_[i]->forward(h);
    } catch (const Error& e) {
      throw Error("Sequential layer " + std::to_string(i) + ": " + e.what());
    }
  }
  return h;
}

void Sequential::visit_parameters(const ParameterVisitor& visit) {
  for (std::size_t i = 0; i < layers_.size(); ++i) visit_child(std::to_string(i), *layers_[i], visit);
}

std::string Sequential::describe() const {
  std::string out = "Sequential(";
  for (std::size_t i = 0; i < layers_.size(); ++i) out += (i ? ", " : "") + layers_[i]->describe();
  return out + ")";
}

}  // namespace variate::nn
