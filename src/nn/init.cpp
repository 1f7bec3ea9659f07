#include "variate/nn/init.hpp"

#include <cmath>

#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::nn {

Tensor uniform_init(random::Key key, const Shape& shape, double bound, DType dtype) {
  const Tensor u = random::uniform(key, shape, dtype);
  return prim::mul(prim::binary(BinaryOp::sub, u, Tensor::scalar(0.5, dtype)), Tensor::scalar(2 * bound, dtype));
}

Tensor fan_in_uniform(random::Key key, const Shape& shape, std::int64_t fan_in, DType dtype) {
  return uniform_init(key, shape, 1 / std::sqrt(double(fan_in)), dtype);
}

}  // namespace variate::nn
