#include "variate/distribute/fused_psum.hpp"

#include <cstdint>
#include <cstring>

#include "variate/core/error.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::distribute {

void psum_fused(std::span<Tensor> tensors, std::string_view axis) {
  const char* op = "psum_fused";
  if (tensors.empty()) return;
  const DType dtype = tensors[0].defined() ? tensors[0].dtype() : DType::f64;
  const bool alone = axis_size(axis) == 1;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    VARIATE_CHECK(t.defined(), op, "tensor ", i, " is undefined");
    VARIATE_CHECK(is_floating(t.dtype()) && t.dtype() == dtype, op, "tensor ", i, " has dtype ", t.dtype(),
                  " but tensor 0 has ", dtype, "; every tensor must have the same floating dtype");
    total += t.numel();
  }
  if (alone) return;  // each tensor is its own sum: no copies
  Tensor flat = Tensor::empty(Shape{total}, dtype);
  char* out = static_cast<char*>(flat.raw());
  for (const Tensor& t : tensors) {
    std::memcpy(out, t.raw(), t.nbytes());
    out += t.nbytes();
  }
  const Tensor sum = psum(flat, axis);
  const char* in = static_cast<const char*>(sum.raw());
  for (Tensor& t : tensors) {
    // A fresh tensor rather than a write into t: t may share its storage with a parameter or with
    // the tape's adjoints.
    Tensor summed = Tensor::empty(t.shape(), dtype);
    std::memcpy(summed.raw(), in, summed.nbytes());
    in += summed.nbytes();
    t = std::move(summed);
  }
}

}  // namespace variate::distribute
