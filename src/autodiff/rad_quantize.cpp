// Compressed activations behind the RAD configuration (autodiff/rad.hpp): per-group stochastic
// rounding to b-bit codes packed into i32 words, and back. Host kernels: the codes are bit fields,
// which the tensor layer's ops do not reach.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "variate/autodiff/rad.hpp"

namespace variate::autodiff::detail {

namespace {

std::int64_t words_per_row(std::int64_t d, int bits) { return (d * bits + 31) / 32; }
std::int64_t groups_per_row(std::int64_t d, std::int64_t group) { return (d + group - 1) / group; }

template <class T>
void quantize_rows(const T* x, const double* u, std::int64_t rows, std::int64_t d, int bits, std::int64_t group,
                   std::uint32_t* codes, T* ranges) {
  const auto top = std::uint32_t((1u << bits) - 1);  // the highest code
  const std::int64_t words = words_per_row(d, bits);
  for (std::int64_t r = 0; r < rows; ++r, x += d, u += d, codes += words) {
    std::fill(codes, codes + words, 0u);
    for (std::int64_t start = 0; start < d; start += group, ranges += 2) {
      const std::int64_t end = std::min(start + group, d);
      const auto [lo, hi] = std::minmax_element(x + start, x + end);
      const T low = *lo, step = (*hi - *lo) / T(top);
      ranges[0] = low;
      ranges[1] = step;
      if (step == T(0)) continue;  // a constant group: every code 0 gives it back exactly
      for (std::int64_t i = start; i < end; ++i) {
        const double t = double((x[i] - low) / step), floor_t = std::floor(t);
        // t - floor(t) is the probability of rounding up, so the code's mean is t.
        const auto code = std::min(top, std::uint32_t(floor_t) + (u[i] < t - floor_t ? 1u : 0u));
        codes[i * bits / 32] |= code << (i * bits % 32);
      }
    }
  }
}

template <class T>
void dequantize_rows(const std::uint32_t* codes, const T* ranges, std::int64_t rows, std::int64_t d, int bits,
                     std::int64_t group, T* x) {
  const auto mask = std::uint32_t((1u << bits) - 1);
  const std::int64_t words = words_per_row(d, bits);
  for (std::int64_t r = 0; r < rows; ++r, x += d, codes += words) {
    for (std::int64_t start = 0; start < d; start += group, ranges += 2) {
      const std::int64_t end = std::min(start + group, d);
      for (std::int64_t i = start; i < end; ++i)
        x[i] = ranges[0] + ranges[1] * T((codes[i * bits / 32] >> (i * bits % 32)) & mask);
    }
  }
}

// The i32 words of a codes tensor as the unsigned words the bit fields live in (same size, and
// every bit pattern is a valid value of both).
std::uint32_t* words_of(Tensor& codes) { return reinterpret_cast<std::uint32_t*>(codes.data<std::int32_t>()); }
const std::uint32_t* words_of(const Tensor& codes) {
  return reinterpret_cast<const std::uint32_t*>(codes.data<std::int32_t>());
}

}  // namespace

QuantizedRows quantize(const Tensor& x, int bits, std::int64_t group, const Tensor& uniforms) {
  VARIATE_CHECK(x.rank() == 2 && (x.dtype() == DType::f32 || x.dtype() == DType::f64), "quantize",
                "needs an f32 or f64 matrix (rows, d), got ", x.dtype(), " ", x.shape());
  VARIATE_CHECK(x.device() == Device{}, "quantize", "compressed activations run on the CPU only, got ", x.device());
  VARIATE_CHECK(uniforms.shape() == x.shape() && uniforms.dtype() == DType::f64, "quantize",
                "needs f64 uniforms of the values' shape ", x.shape(), ", got ", uniforms.dtype(), " ",
                uniforms.shape());
  const std::int64_t rows = x.dim(0), d = x.dim(1);
  QuantizedRows q{Tensor::empty(Shape{rows, words_per_row(d, bits)}, DType::i32),
                  Tensor::empty(Shape{rows, groups_per_row(d, group), 2}, x.dtype()), d};
  if (x.dtype() == DType::f32) {
    quantize_rows(x.data<float>(), uniforms.data<double>(), rows, d, bits, group, words_of(q.codes),
                  q.ranges.data<float>());
  } else {
    quantize_rows(x.data<double>(), uniforms.data<double>(), rows, d, bits, group, words_of(q.codes),
                  q.ranges.data<double>());
  }
  return q;
}

Tensor dequantize(const QuantizedRows& q, int bits, std::int64_t group) {
  const std::int64_t rows = q.codes.dim(0);
  Tensor x = Tensor::empty(Shape{rows, q.d}, q.ranges.dtype());
  if (x.dtype() == DType::f32) {
    dequantize_rows(words_of(q.codes), q.ranges.data<float>(), rows, q.d, bits, group, x.data<float>());
  } else {
    dequantize_rows(words_of(q.codes), q.ranges.data<double>(), rows, q.d, bits, group, x.data<double>());
  }
  return x;
}

}  // namespace variate::autodiff::detail
