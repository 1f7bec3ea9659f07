#pragma once
// The CPU kernels' binder for kernel replays (tensor/kernel_binder.hpp). It binds a call only where
// the CPU kernel runs serially (below kParallelGrain) over contiguous operands or broadcast ones
// whose strides merge into two axes, and binds it to a loop that applies the same element function
// to each element (a reduction: in the same order), so a bound replay computes the same bits.
// Methods are defined next to the kernels they bind (elementwise.cpp, reduce.cpp, indexing.cpp).
#include "tensor/kernel_binder.hpp"

namespace variate::cpu {

using detail::BoundKernel;

class CpuBinder final : public detail::KernelBinder {
 public:
  BoundKernel unary(UnaryOp op, const Tensor& x, Tensor& out) const override;
  BoundKernel binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) const override;
  BoundKernel where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) const override;
  BoundKernel fill(Tensor& out, double value) const override;
  BoundKernel cast(const Tensor& x, Tensor& out) const override;
  BoundKernel broadcast_to(const Tensor& x, Tensor& out) const override;
  BoundKernel reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) const override;
  BoundKernel slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) const override;
  BoundKernel slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) const override;
};

}  // namespace variate::cpu
