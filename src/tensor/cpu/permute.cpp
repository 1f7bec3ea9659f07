// Axis permutation: out[i_0, ..., i_n] = x[i_perm^-1...], written in output order.
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {

void CpuBackend::permute(const Tensor& x, std::span<const int> perm, Tensor& out) {
  // Reading x with permuted strides while writing out contiguously is a broadcast-free strided loop.
  const auto xs = row_major_strides(x.shape());
  StridedPlan<1> plan;
  for (int i = 0; i < out.rank(); ++i) {
    if (out.dim(i) == 1) continue;
    const std::int64_t stride = xs[perm[i]];
    const int r = plan.rank;
    if (r > 0 && plan.strides[0][r - 1] == stride * out.dim(i)) {
      plan.dims[r - 1] *= out.dim(i);
      plan.strides[0][r - 1] = stride;
    } else {
      plan.dims[r] = out.dim(i);
      plan.strides[0][r] = stride;
      ++plan.rank;
    }
  }
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    parallel_chunks(out.numel(), [&](std::int64_t s, std::int64_t e) {
      strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
        for (std::int64_t i = 0; i < len; ++i) po[o + i] = px[off[0] + i * inner[0]];
      });
    });
  });
}

}  // namespace variate::cpu
