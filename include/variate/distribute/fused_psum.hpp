#pragma once
// A psum of many tensors in one exchange: data-parallel training sums every parameter's gradient
// over the devices at each step, and one message per step costs one collective's latency instead of
// one per tensor (Goyal et al. 2017, "Accurate, Large Minibatch SGD", section 4, fuse the gradients
// into one buffer for the same reason).
#include <span>
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute {

/// Replaces each tensor by its element-wise sum over the devices of `axis`: all of them are copied
/// into one flat buffer, the devices exchange their buffers in one collective, and each device adds
/// them into fresh result tensors. Every device must pass tensors of the same shapes and
/// floating dtype (one dtype for all), in the same order; the sums are added in device order, as
/// psum's are, so they are bitwise identical on every device. Not differentiable (it is used on
/// gradients, after the backward sweep). Call it inside Mesh::run.
void psum_fused(std::span<Tensor> tensors, std::string_view axis);

}  // namespace variate::distribute
