// Compressed activations behind the RAD configuration (autodiff/rad.hpp): per-group stochastic
// rounding to b-bit codes packed into i32 words, and back. Host kernels: the codes are bit fields,
// which the tensor layer's ops do not reach.
#include <algorithm>
#include <cmath>
#include <vector>

#include "variate/autodiff/rad.hpp"

namespace variate::autodiff::detail {

namespace {

std::int64_t words_per_row(std::int64_t d, int bits) { return (d * bits + 31) / 32; }
std::int64_t groups_per_row(std::int64_t d, std::int64_t group) { return (d + group - 1) / group; }

// Each entry's code, one byte each, before packing: a loop the compiler can vectorize. Returns
// false when a value is not finite (NaN escapes the group's min and max, inf makes the step inf).
template <class T>
bool round_group(const T* x, const double* u, std::int64_t n, double low, double step, std::uint32_t top,
                 std::uint8_t* code) {
  const double per_step = 1.0 / step;
  if (!std::isfinite(per_step)) return false;  // a range below about 1e-307 (subnormal steps)
  bool finite = true;
  for (std::int64_t i = 0; i < n; ++i) {
    // t >= 0, so truncation is floor(t); t - floor(t) is the probability of rounding up, so the
    // code's mean is t. (The reciprocal costs one rounding of t, far below f32's resolution.)
    const double t = std::clamp((double(x[i]) - low) * per_step, 0.0, double(top));
    finite = finite && std::isfinite(double(x[i]));
    const auto below = std::uint32_t(t);
    code[i] = std::uint8_t(std::min(top, below + (u[i] < t - double(below) ? 1u : 0u)));
  }
  return finite;
}

void check_codes(int bits, std::int64_t group, const char* function) {
  VARIATE_CHECK(bits == 1 || bits == 2 || bits == 4 || bits == 8, function, "bits must be 1, 2, 4 or 8, got ", bits);
  VARIATE_CHECK(group >= 1, function, "the group size must be at least 1, got ", group);
}

template <class T>
void quantize_rows(const T* x, const double* u, std::int64_t rows, std::int64_t d, int bits, std::int64_t group,
                   std::uint32_t* codes, T* ranges, std::uint8_t* row_codes) {
  const auto top = std::uint32_t((1u << bits) - 1);  // the highest code
  const std::int64_t words = words_per_row(d, bits), per_word = 32 / bits;
  for (std::int64_t r = 0; r < rows; ++r, x += d, u += d, codes += words) {
    for (std::int64_t start = 0; start < d; start += group, ranges += 2) {
      const std::int64_t n = std::min(group, d - start);
      const auto [lo, hi] = std::minmax_element(x + start, x + start + n);
      const T low = *lo, step = T((double(*hi) - double(*lo)) / double(top));
      ranges[0] = low;
      ranges[1] = step;
      bool coded = false;
      if (step == T(0)) {  // a constant group: every code 0 gives it back exactly
        std::fill(row_codes + start, row_codes + start + n, std::uint8_t(0));
        coded = std::all_of(x + start, x + start + n, [](T v) { return std::isfinite(double(v)); });
      } else {
        coded = std::isfinite(double(step)) &&
                round_group(x + start, u + start, n, double(low), double(step), top, row_codes + start);
      }
      VARIATE_CHECK(coded, "compressed activations",
                    "need finite values whose range in a group is a finite, normal number; row ", r, ", entries ",
                    start, " to ", start + n - 1, " hold NaN or inf, or have a range of ", double(*hi) - double(*lo),
                    " (use exact activations: quantize_bits = 0)");
    }
    for (std::int64_t w = 0; w < words; ++w) {
      std::uint32_t word = 0;
      for (std::int64_t j = 0, i = w * per_word; j < per_word && i < d; ++j, ++i)
        word |= std::uint32_t(row_codes[i]) << (j * bits);
      codes[w] = word;
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
  check_codes(bits, group, "quantize");
  const std::int64_t rows = x.dim(0), d = x.dim(1);
  QuantizedRows q{Tensor::empty(Shape{rows, words_per_row(d, bits)}, DType::i32),
                  Tensor::empty(Shape{rows, groups_per_row(d, group), 2}, x.dtype()), d};
  thread_local std::vector<std::uint8_t> row_codes;  // reused: a steady-state sweep allocates nothing here
  row_codes.resize(std::size_t(d));
  if (x.dtype() == DType::f32) {
    quantize_rows(x.data<float>(), uniforms.data<double>(), rows, d, bits, group, words_of(q.codes),
                  q.ranges.data<float>(), row_codes.data());
  } else {
    quantize_rows(x.data<double>(), uniforms.data<double>(), rows, d, bits, group, words_of(q.codes),
                  q.ranges.data<double>(), row_codes.data());
  }
  return q;
}

Tensor dequantize(const QuantizedRows& q, int bits, std::int64_t group) {
  check_codes(bits, group, "dequantize");
  const std::int64_t rows = q.codes.rank() == 2 ? q.codes.dim(0) : 0;
  const bool fits = q.codes.rank() == 2 && q.d >= 0 && q.codes.dtype() == DType::i32 &&
                    q.codes.shape() == Shape{rows, words_per_row(q.d, bits)} &&
                    q.ranges.shape() == Shape{rows, groups_per_row(q.d, group), 2};
  VARIATE_CHECK(fits, "dequantize", "codes ", q.codes.dtype(), " ", q.codes.shape(), " and ranges ", q.ranges.shape(),
                " do not hold rows of ", q.d, " values in ", bits, "-bit codes and groups of ", group);
  Tensor x = Tensor::empty(Shape{rows, q.d}, q.ranges.dtype());
  if (x.dtype() == DType::f32) {
    dequantize_rows(words_of(q.codes), q.ranges.data<float>(), rows, q.d, bits, group, x.data<float>());
  } else {
    dequantize_rows(words_of(q.codes), q.ranges.data<double>(), rows, q.d, bits, group, x.data<double>());
  }
  return x;
}

}  // namespace variate::autodiff::detail
