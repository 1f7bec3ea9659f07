#pragma once
// The one seam between kernel replay (tensor/replay.hpp) and a device's kernels. A replay of a small
// model is mostly calls on a few numbers each, where making the call again through the backend (its
// op switch, dtype dispatch and shape checks) costs more than the arithmetic. While recording, the
// recording backend therefore asks the device's binder to bind each call it can to its operands'
// elements once; the replay then calls a plain loop. A device without a binder (or a call its binder
// declines) is replayed by making the recorded call again, so a new backend needs nothing here.
#include <cstdint>
#include <span>

#include "variate/tensor/backend.hpp"

namespace variate::detail {

/// A call bound to its operands' elements: run(*this) computes what the call computed, from the
/// values then in memory, the same bits, without looking at shapes, dtypes or the op again.
struct BoundKernel {
  void (*run)(const BoundKernel&) = nullptr;  // null: not bound, make the call
  const void* a = nullptr;
  const void* b = nullptr;
  void* out = nullptr;
  std::int64_t n = 0;       // elements; per row for a row-wise kernel
  std::int64_t rows = 1;    // for a row-wise kernel (a reduction, a broadcast, a slice's runs)
  double value = 0;         // a constant of the call (a reduction's identity, a fill's value)
  const void* c = nullptr;  // a third operand (where's condition)
  // Strides in elements for a kernel whose output is viewed as [rows, n]: a broadcast reads
  // a[r * strides[0] + i * strides[1]] and b[r * strides[2] + i * strides[3]]; a reduction's
  // inputs along its reduced axis are strides[0] apart, as are a slice's runs in the whole tensor.
  std::int32_t strides[4] = {};
};

/// Binds the Backend calls of the same names and arguments. The tensors must stay alive, at the same
/// elements, as long as the result is used. A result with run == nullptr: not bound.
class KernelBinder {
 public:
  virtual ~KernelBinder() = default;
  virtual BoundKernel unary(UnaryOp op, const Tensor& x, Tensor& out) const = 0;
  virtual BoundKernel binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) const = 0;
  virtual BoundKernel where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) const = 0;
  virtual BoundKernel fill(Tensor& out, double value) const = 0;
  virtual BoundKernel cast(const Tensor& x, Tensor& out) const = 0;
  virtual BoundKernel broadcast_to(const Tensor& x, Tensor& out) const = 0;
  virtual BoundKernel reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) const = 0;
  virtual BoundKernel slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) const = 0;
  virtual BoundKernel slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step,
                                Tensor& out) const = 0;
};

/// The binder of a device's kernels; null where the device has none.
const KernelBinder* kernel_binder(Device device);

}  // namespace variate::detail
