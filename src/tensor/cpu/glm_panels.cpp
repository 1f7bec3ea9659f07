#include "tensor/cpu/glm_panels.hpp"

#include <algorithm>

#include "tensor/cpu/derived_copies.hpp"
#include "tensor/cpu/simd.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

constexpr std::size_t kKeptCopies = 4;  // design matrices in use at once: a model rarely has more

template <class T>
Tensor pack(const Tensor& x) {
  constexpr int W = Simd<T>::lanes;
  const std::int64_t n = x.dim(0), d = x.dim(1), tiles = (n + W - 1) / W;
  Tensor panels = Tensor::empty(Shape{tiles, d, W}, x.dtype());
  const T* px = x.data<T>();
  T* pp = panels.data<T>();
  parallel_blocks(tiles, 64, [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) {
      T* panel = pp + t * d * W;
      const int rows = int(std::min<std::int64_t>(W, n - t * W));
      for (int l = 0; l < rows; ++l) {
        const T* row = px + (t * W + l) * d;
        for (std::int64_t j = 0; j < d; ++j) panel[j * W + l] = row[j];
      }
      for (int l = rows; l < W; ++l)
        for (std::int64_t j = 0; j < d; ++j) panel[j * W + l] = T(0);
    }
  });
  return panels;
}

}  // namespace

Tensor glm_panels(const Tensor& x) {
  static auto& copies = *new DerivedCopies<Tensor>(kKeptCopies);  // never destroyed: see backend() on static tensors
  return copies.get(x, [](const Tensor& x) { return x.dtype() == DType::f32 ? pack<float>(x) : pack<double>(x); });
}

}  // namespace variate::cpu
