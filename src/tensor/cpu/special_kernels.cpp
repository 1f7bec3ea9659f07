// Kernels of the special functions that take more than two arguments, so do not fit the unary and
// binary tables of elementwise.cpp.
#include "tensor/cpu/special_functions.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {

void CpuBackend::betainc(const Tensor& a, const Tensor& b, const Tensor& x, Tensor& out) {
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const auto plan = make_plan<3>(out.shape(), {&a.shape(), &b.shape(), &x.shape()});
    parallel_chunks(out.numel(), [&](std::int64_t s, std::int64_t e) {
      strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
        for (std::int64_t i = 0; i < len; ++i)
          po[o + i] = T(cpu::betainc(double(pa[off[0] + i * inner[0]]), double(pb[off[1] + i * inner[1]]),
                                     double(px[off[2] + i * inner[2]])));
      });
    });
  };
  // Evaluated in double, then rounded; prim::betainc passes floating tensors only.
  switch (out.dtype()) {
    case DType::f64: return run(double{});
    case DType::f32: return run(float{});
    default: break;
  }
  detail::fail("betainc: not defined for ", out.dtype(), " tensors");
}

}  // namespace variate::cpu
